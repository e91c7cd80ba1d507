#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - `make bench`: check the tools, build the helpers, run tests/bench/bench.py.
#
# usage: [RUNS=3] [QUICK=1] [BENCH_TOOLS=none,perf,...] sh tests/bench/run.sh [STAGE...]
# Needs root (tracepoints, tracefs, mount namespaces).  Installs missing Debian packages
# (linux-perf, trace-cmd, zstd) with apt-get, mounts tracefs if needed, compiles
# tests/bench/runstat.c and spliceread.c into build/bench/, then hands over to bench.py,
# which writes docs/performance.md and build/bench/results.json.  Stages: see `bench.py --help`.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bench_dir=${BENCH_DIR:-$top/build/bench}
export PP_LOAD="${PP_LOAD:-$top/build/load}"
export PP_BIN="${PP_BIN:-$top}"

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (tracepoints, tracefs, unshare -m); run as root" >&2
	exit 1
fi

# tool -> Debian package; perf is the one tool without which nothing is compared
missing=""
command -v perf >/dev/null 2>&1 || missing="$missing linux-perf"
command -v trace-cmd >/dev/null 2>&1 || missing="$missing trace-cmd"
command -v zstd >/dev/null 2>&1 || missing="$missing zstd"
if [ -n "$missing" ]; then
	echo "bench: installing$missing"
	# shellcheck disable=SC2086 # $missing is a list of package names
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing \
		>/dev/null || echo "bench: could not install$missing; they will be skipped" >&2
fi
command -v perf >/dev/null 2>&1 || { echo "bench: perf is not available" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "bench: python3 is not available" >&2; exit 1; }

if ! awk '$3 == "tracefs" { found = 1 } END { exit !found }' /proc/mounts; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		{ echo "bench: cannot mount tracefs" >&2; exit 1; }
fi

# the load generators come from `make all` (make bench depends on it); build them if run alone
if [ ! -x "$PP_LOAD/ctxsw" ] || [ ! -x "$PP_LOAD/syscalls" ]; then
	make -s -C "$top" all
fi

mkdir -p "$bench_dir"
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -o "$bench_dir/runstat" tests/bench/runstat.c
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -pthread -o "$bench_dir/spliceread" \
	tests/bench/spliceread.c

# a trace-cmd that dies leaves its events on: switch them off whatever happens
trap 'echo 0 >/sys/kernel/tracing/events/enable 2>/dev/null || true' EXIT INT TERM
BENCH_DIR="$bench_dir" python3 tests/bench/bench.py "$@"
