# standalone.py - a capture from a plain python3, no pp-analyze: the pp module.
# events: sched:sched_switch
# usage: PYTHONPATH=build/python python3 standalone.py CAPTURE
#        (a notebook: rows = [ev.to_dict() for ev in cap.events(...)];
#         pandas.DataFrame(rows) turns them into a table)
import sys
from collections import defaultdict

import pp

cap = pp.open(sys.argv[1])
print("events in the capture:", ", ".join(cap.event_names()))
runtime = defaultdict(int)       # comm -> ns on CPU, from switch to switch per CPU
last = {}                        # cpu -> (time, comm switched in)
for ev in cap.events("sched:sched_switch"):
    if ev._cpu in last:
        t, comm = last[ev._cpu]
        runtime[comm] += ev._time - t
    last[ev._cpu] = (ev._time, ev.next_comm)
for comm, ns in sorted(runtime.items(), key=lambda kv: -kv[1])[:10]:
    print("%-16s %10.3f ms" % (comm, ns / 1e6))
