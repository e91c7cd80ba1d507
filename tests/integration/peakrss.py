#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""peakrss.py OUT ERR CMD...: run CMD (stdout to OUT, stderr to ERR), print its peak RSS in
KiB (getrusage of the children: no GNU time needed) and exit with its status."""
import resource
import subprocess
import sys

with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    rc = subprocess.call(sys.argv[3:], stdout=out, stderr=err)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)
