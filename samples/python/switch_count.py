# switch_count.py - context switches per command, every interval and in total.
# events: sched:sched_switch
# usage: pp-analyze CAPTURE python -e sched:sched_switch [-i 1000] switch_count.py [-- TOP_N]
import sys
from collections import Counter

top_n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
interval = Counter()
total = Counter()


def sched__sched_switch(event):
    interval[event.prev_comm] += 1       # reads one field: nothing else is decoded


def __interval__():
    print("interval:", ", ".join("%s=%d" % kv for kv in interval.most_common(top_n)))
    total.update(interval)
    interval.clear()


def __exit__():
    total.update(interval)
    print("%-16s %10s" % ("COMM", "SWITCHES"))
    for comm, n in total.most_common(top_n):
        print("%-16s %10d" % (comm, n))
