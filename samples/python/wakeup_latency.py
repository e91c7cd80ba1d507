# wakeup_latency.py - time from sched_wakeup to the woken task running, as a log2 histogram.
# events: sched:sched_wakeup,sched:sched_switch
# usage: pp-analyze CAPTURE python -e sched:sched_wakeup,sched:sched_switch wakeup_latency.py
from collections import Counter

woken = {}          # pid -> time of its wakeup
hist = Counter()    # log2(latency in us) -> count
worst = (0, None)


def sched__sched_wakeup(event):
    woken.setdefault(event.pid, event._time)


def sched__sched_switch(event):
    global worst
    t = woken.pop(event.next_pid, None)
    if t is None:
        return
    lat = event._time - t
    hist[max(lat // 1000, 1).bit_length() - 1] += 1
    if lat > worst[0]:
        worst = (lat, event.next_comm)


def __lost__(start, end):
    woken.clear()       # a wakeup may be missing: start afresh


def __exit__():
    print("%12s %10s" % ("latency(us)", "count"))
    for b in sorted(hist):
        print("%5d .. %-5d %10d" % (1 << b, (2 << b) - 1, hist[b]))
    if worst[1]:
        print("worst: %d us (%s)" % (worst[0] // 1000, worst[1]))
