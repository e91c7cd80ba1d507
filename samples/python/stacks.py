# stacks.py - the most frequent call stacks of a sampled event, innermost frame first.
# events: cpu-clock
# usage: pp-analyze CAPTURE python -e 'cpu-clock' stacks.py
from collections import Counter

stacks = Counter()


def __sample__(event):
    if "_callchain" in event:
        frames = tuple("%s (%s)" % (f["symbol"], f["dso"]) for f in event._callchain)
        stacks[frames] += 1


def __exit__():
    for frames, n in stacks.most_common(3):
        print("%d samples" % n)
        for f in frames:
            print("    " + f)
