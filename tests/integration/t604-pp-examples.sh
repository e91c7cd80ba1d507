#!/bin/sh
# SPDX-License-Identifier: MIT
# t604-pp-examples: the perf-prof example commands of PERF-PROF-REFERENCE.md (the spec), for
# the analyzers pp has, run live under `pp` on this machine, with `perf-prof` replaced by
# `pp`.  Each runs for a few seconds while a load generator makes its events, then gets
# Ctrl-C (SIGINT to its process group, as a terminal sends it); a watchdog kills what is
# left.  Each must exit 0 with its final report, print the analyzer's table header (or,
# for analyzers that print events, an event line), no error or warning line on stderr
# (except the warnings listed in allowed_warning, which the spec explains) and no
# unresolved comm `<...>` in its output (the spec's own test suite fails on both) - unless
# pp-record reported lost events, which can take task records with them (said on its line).
#
# The examples are copied here (the test does not read the spec).  The spec gives few
# whole command lines: its `help` templates (§1.4), the python shebang (§4.9), the
# multi-trace push/pull example (§6.1); for the rest it gives each analyzer's usage as
# events and options (`rundelay -e sched:sched_wakeup*,sched:sched_switch -e
# sched:sched_switch`, `irq-off --period 10ms --than 20ms [-g]`, `blktrace -d /dev/sdX`,
# `oncpu --prio 1-99` ...), attribute examples (§3.4) and output samples (§1.1, §1.3,
# §4.1, §4.5).  Each becomes one command here, its placeholders filled (`.` and `…`
# of the templates, EVENT, f,f_ret, /dev/sdX, <addr>) and its optional [parts] given.
# Not collected: examples of perf-prof analyzers pp does not have (hrtimer, kcore,
# usdt, `--symbols`), and options only listed without an example.
#
# Examples this machine cannot produce are printed as "skipped: ..." lines and those
# needing what pp does not have as "known gap: ..." lines; the rest must pass.
# Runs as root (system-wide events, tracefs).  T604_ONLY=SUBSTRING runs only the examples
# whose ID contains it.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v setsid >/dev/null 2>&1 || skip "no setsid(1) for a process group"
TRACING=/sys/kernel/tracing

# seconds each example runs before Ctrl-C (tenths); the sanitizer build is slower
RUN10=25
sanitized && RUN10=20
KILL_AFTER=90	# seconds after Ctrl-C before the watchdog kills the group

# --- load generators --------------------------------------------------------
# Each runs as its own process group until the example is done; LOAD_PID is its
# process (the one `-p` examples name).  WATCH_ADDR: uprobe_target's written variable.

cat >pingpong.py <<'PY'
# two python3 threads waking each other about 500 times a second
import threading, time
a, b = threading.Event(), threading.Event()
def peer():
    while True:
        a.wait(); a.clear(); b.set()
threading.Thread(target=peer, daemon=True).start()
while True:
    a.set(); b.wait(); b.clear(); time.sleep(0.002)
PY

# UDP datagrams over the loopback, about 1000 a second: each is received in a NET_RX
# softirq (an idle machine may run few softirqs of its own: timers expire in hard IRQs)
cat >udploop.py <<'PY'
import socket, time
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a.bind(("127.0.0.1", 0))
b.bind(("127.0.0.1", 0))
while True:
    a.sendto(b"x", b.getsockname())
    b.recv(16)
    time.sleep(0.001)
PY

L=$PP_LOAD
LOAD_PID=
WATCH_ADDR=
# load_start NAME: start a load; return 1 with LOAD_WHY set when it cannot run here
load_start() {
	LOAD_PID=
	case $1 in
	none | kvmguest | kprobe) return 0 ;;
	sleeper) setsid "$L/sleeper" -n 1000000 -s 20ms >/dev/null 2>&1 & ;;
	rtsleeper)	# a SCHED_FIFO task (--prio 1-99 selects real-time tasks)
		command -v chrt >/dev/null 2>&1 || { LOAD_WHY="no chrt(1) for a real-time load"; return 1; }
		setsid chrt -f 10 "$L/sleeper" -n 1000000 -s 2ms >/dev/null 2>&1 & ;;
	sleep1ms) setsid "$L/sleeper" -n 10000000 -s 1ms >/dev/null 2>&1 & ;;
	sleep1ms-cpu0)	# on CPU 0, whose events a -C 0 example records (an idle CPU 0 has few)
		command -v taskset >/dev/null 2>&1 || { LOAD_WHY="no taskset(1) to keep a load on CPU 0"; return 1; }
		setsid taskset -c 0 "$L/sleeper" -n 10000000 -s 1ms >/dev/null 2>&1 & ;;
	ctxsw) setsid "$L/ctxsw" -n 1000000000 >/dev/null 2>&1 & ;;
	syscalls) setsid "$L/syscalls" -n 1000000000 -r 20000 -m both >/dev/null 2>&1 & ;;
	cpuburn) setsid "$L/cpuburn" -d 3600 >/dev/null 2>&1 & ;;
	forks) setsid sh -c 'while :; do /bin/true; done' >/dev/null 2>&1 & ;;
	pages)	# about 10000 faults a second: expr prints each, a sanitizer build too
		setsid sh -c "while :; do '$L/pagetouch' -n 200; sleep 0.02; done" >/dev/null 2>&1 & ;;
	dio)
		[ -n "$DISK" ] || { LOAD_WHY=$DISK_WHY; return 1; }
		setsid sh -c "while :; do '$L/dio' -f '$T/dio.dat' -n 500; done" >/dev/null 2>&1 & ;;
	python)
		[ -n "$PYTHON" ] || { LOAD_WHY="no python3 for the load"; return 1; }
		setsid "$PYTHON" pingpong.py >/dev/null 2>&1 & ;;
	softirqs)
		[ -n "$PYTHON" ] || { LOAD_WHY="no python3 for the load"; return 1; }
		setsid "$PYTHON" udploop.py >/dev/null 2>&1 & ;;
	bpf)
		[ -n "$BPF_WHY" ] && { LOAD_WHY=$BPF_WHY; return 1; }
		setsid sh -c "while :; do '$PYTHON' '$TOP/tests/integration/bpfload.py' pp_t604; sleep 0.2; done" >/dev/null 2>&1 & ;;
	watch)
		rm -f ready.out
		setsid "$L/uprobe_target" -m write -n 1000000000 -p 1000 >ready.out 2>/dev/null &
		LOAD_PID=$!
		for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			grep -q READY ready.out 2>/dev/null && break
			sleep 0.1
		done
		WATCH_ADDR=$(sed -n 's/.* pp_watch_var=\(0x[0-9a-f]*\).*/\1/p' ready.out)
		[ -n "$WATCH_ADDR" ] || { load_stop; LOAD_WHY="uprobe_target printed no READY line"; return 1; }
		# some (virtual) CPUs deliver no debug-register trap at all: a second of the load
		# (1000 writes) under a write breakpoint tells
		"$PP_RECORD" -p "$LOAD_PID" -e "mem:$WATCH_ADDR/8:w" --duration 1 -o bp-probe.cap \
			>bp-probe.out 2>&1
		if grep -q "^ *mem:$WATCH_ADDR/8:w  *0$" bp-probe.out; then
			load_stop
			LOAD_WHY="hardware breakpoints do not fire on this machine (a write breakpoint on a variable written 1000 times a second got no hit)"
			return 1
		fi
		return 0 ;;
	*) fail "unknown load '$1'" ;;
	esac
	LOAD_PID=$!
	sleep 0.3	# under way before the recording starts
	return 0
}
load_stop() {
	[ -n "$LOAD_PID" ] && kill -KILL -"$LOAD_PID" 2>/dev/null
	[ -n "$LOAD_PID" ] && wait "$LOAD_PID" 2>/dev/null
	LOAD_PID=
}

PYTHON=$(command -v python3 2>/dev/null)
BPF_WHY=
if [ -z "$PYTHON" ]; then
	BPF_WHY="no python3 to load a BPF program"
elif [ "$(uname -m)" != x86_64 ]; then
	BPF_WHY="the bpf(2) syscall number of the load is x86_64's"
else
	"$PYTHON" "$TOP/tests/integration/bpfload.py" pp_t604 >bpf.out 2>&1
	[ $? = 3 ] && BPF_WHY="cannot load a BPF program here: $(cat bpf.out)"
fi
# blktrace -d /dev/sdX: the disk under this test's directory, read with O_DIRECT
DISK=$(df -P "$T" 2>/dev/null | awk 'NR == 2 { print $1 }')
DISK_WHY=
if [ ! -b "$DISK" ]; then
	DISK_WHY="the test directory is not on a block device ($DISK)"
	DISK=
else
	"$L/dio" -f "$T/dio.dat" -n 1 >/dev/null 2>dio.err
	rc=$?
	[ $rc = 3 ] && DISK_WHY="no O_DIRECT on the filesystem of $T" && DISK=
	[ $rc != 0 ] && [ $rc != 3 ] && { cat dio.err; fail "dio setup exited $rc"; }
fi

# perf-prof's python shebang (§4.9): `#!/usr/bin/env -S perf-prof python -e … --`
cat >shebang.py <<PY
#!/usr/bin/env -S $PP python -e sched:sched_switch --
import sys
n = 0
def sched__sched_switch(event):
    global n
    n += 1
def __exit__():
    print("sched:sched_switch", n, " ".join(sys.argv[1:]))
PY
chmod +x shebang.py

# allowed_warning ID LINE: a stderr line the spec explains for this example
allowed_warning() {
	case $1 in
	trace-comm_get)
		# §0: a filter the kernel rejects (comm_get(), _pid) runs in user space
		case $2 in *"the kernel cannot apply filter"*"the analyzer will apply it") return 0 ;; esac ;;
	esac
	return 1
}

# --- the examples -------------------------------------------------------------
# ID | LOAD | HEADER (an ERE a line of stdout matches) | COMMAND (as written, perf-prof -> pp;
# $LOAD_PID, $WATCH_ADDR, $DISK are filled in).  The ID says where the spec shows it.
cat >examples.txt <<'EOF'
h§1 | none | ^Analyzers: | pp -h
list§1.4 | none | ^sched:sched_switch$ | pp list sched:
help-trace§1.4 | none | ^pp trace -e "sched:sched_wakeup/\./\[stack/ | pp trace -e sched:sched_wakeup help
help-kmemleak§1.4 | none | ^pp kmemleak --alloc "kmem:kmalloc/\./ptr=ptr/size=bytes_alloc/ | pp kmemleak --alloc "kmem:kmalloc//ptr=ptr/size=bytes_alloc/stack/" --free "kmem:kfree//ptr=ptr/" help
help-python§4.9 | none | ^def sched__sched_wakeup\(event\): | pp python -e sched:sched_wakeup help
python-shebang§4.9 | none | ^sched:sched_switch [1-9][0-9]* a1 a2$ | ./shebang.py a1 a2
trace-template§1.4 | sleep1ms-cpu0 | : sched:sched_wakeup: comm=sleeper pid=[0-9]+ | pp trace -e "sched:sched_wakeup//stack/" -C 0 -i 1000 --order -m 64 -g --flame-graph wakeup.folded
trace-template-p§1.4 | python | python3 +[0-9]+ .*: sched:sched_wakeup: comm=python3 pid=[0-9]+ | pp trace -e "sched:sched_wakeup//stack/" -p $LOAD_PID -g
trace-comm_get§3.4 | python | python3 +[0-9]+ .*: sched:sched_wakeup: | pp trace -e 'sched:sched_wakeup/comm_get(_pid) ~ "python*"/'
expr§1.1,§3.4 | pages | ^result: 0x[0-9a-f]+$ | pp expr -e exceptions:page_fault_user '(((address>>18)&1)?42:0) + ((address>>12)&0x3f)'
top§1.1 | ctxsw | ^PREV_PID SCHED_SWITCH +RUNTIME PREV_COMM$ | pp top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/,sched:sched_stat_runtime//key=pid/top-by=runtime/comm=comm/'
top-ksymbol§3.4 | sleep1ms | ^FUNCTION HRTIMER_EXPIRE_ENTRY KSYMBOL\(FUNCTION\)$ | pp top -e 'timer:hrtimer_expire_entry//key=function/comm=ksymbol(function)/'
top-printkey§3.4 | ctxsw | ^\(_CPU<<32\)\|PREV_PID SCHED_SWITCH | pp top -e 'sched:sched_switch//key=(_cpu<<32)|prev_pid/printkey=printf("  %03d      %d", key>>32, (int)key)/'
num-dist§1.1 | ctxsw | ^event +calls +total +min +avg +p50 +p95 +p99 +max +than$ | pp num-dist -e 'sched:sched_stat_runtime//num=runtime/' --than 1ms --heatmap runtime -g
sql§1.1,§4.8 | ctxsw | ^=== SELECT prev_comm, count\(\*\) AS n FROM sched_switch | pp sql -e sched:sched_switch -i 1000 --verify --query 'SELECT prev_comm, count(*) AS n FROM sched_switch GROUP BY prev_comm ORDER BY n DESC, prev_comm; SELECT count(*) FROM sched_switch'
sql-output2§1.1 | ctxsw | ^=== SELECT count\(\*\) AS switches FROM sched_switch ===$ | pp sql -e sched:sched_switch --output2 switch.db --query 'SELECT count(*) AS switches FROM sched_switch'
event-care§1.1 | sleeper | ^CPU +EVENTS +LOST +LATE +OUT-OF-ORDER$ | pp event-care -e sched:sched_switch
irq-off§1.1 | cpuburn | ^irq-off: gaps over 20\.000 ms between timer samples$ | pp irq-off --period 10ms --than 20ms -g
multi-trace§4.1 | softirqs | ^ +start => end +calls +total\(us\) +min\(us\) +p50\(us\) | pp multi-trace -e irq:softirq_entry -e irq:softirq_exit -i 1000
multi-trace-detail§4.1 | softirqs | than\(reqs\)$ | pp multi-trace -e irq:softirq_entry -e irq:softirq_exit --than 100us --detail=-1ms,samecpu
multi-trace-perins§4.1 | softirqs | ^CPU +start => end +calls | pp multi-trace -e irq:softirq_entry -e irq:softirq_exit -i 1000 --perins --heatmap softirq
multi-trace-profiler-source§3.1,§4.1 | softirqs | ^ +start => end +calls | pp multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,profile/-F 500 --watermark 50 -g/untraced/' -i 1000 --than 100us --detail
multi-trace-pair§4.1 | softirqs | irq:softirq_entry irq:softirq_exit paired [0-9]+$ | pp multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair -i 1000
multi-trace-role§3.4 | ctxsw | sched_switch => sched_switch +[0-9]+ | pp multi-trace -e 'sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/' --cycle -i 1000
rundelay§1.2 | ctxsw | sched_wakeup => sched_switch +[0-9]+ | pp rundelay -e 'sched:sched_wakeup*,sched:sched_switch' -e sched:sched_switch
rundelay-filter§1.2,§4.3 | sleeper | ^pid +comm +start => end .*than\(reqs\)$ | pp rundelay -e 'sched:sched_wakeup*,sched:sched_switch' -e sched:sched_switch --filter 'sleeper,sleep*' --than 1ms --detail=samecpu --perins
syscalls§1.2 | syscalls | ^syscalls +calls +total\(us\) +min\(us\) +avg\(us\) +max\(us\) +err$ | pp syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit
syscalls-perins§4.1 | syscalls | ^thread comm +syscalls +calls | pp syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit --perins
kmemprof§1.2 | forks | ^kmem:kmalloc total alloc [0-9]+ bytes on [0-9]+ objects | pp kmemprof -e 'kmem:kmalloc//size=bytes_alloc/stack/' -e kmem:kfree
kmemprof-pages§3.4 | pages | ^kmem:mm_page_alloc total alloc [0-9]+ bytes | pp kmemprof -e 'kmem:mm_page_alloc//size=(4096<<order)/key=pfn/stack/' -e 'kmem:mm_page_free//key=pfn/'
nested-trace§1.2 | softirqs | ^ +function call R +calls +total\(us\) | pp nested-trace -e irq:irq_handler_entry,irq:irq_handler_exit -e irq:softirq_entry,irq:softirq_exit --impl call-delay
nested-trace-kprobe§1.2 | kprobe | ^ +function call R +calls | pp nested-trace -e kprobe:vfs_read,kretprobe:vfs_read
kmemleak-template§1.4 | forks | ^LEAKED BYTES REPORT:$ | pp kmemleak --alloc "kmem:kmalloc//ptr=ptr/size=bytes_alloc/stack/" --free "kmem:kfree//ptr=ptr/" -g --flame-graph leak.folded
kmemleak-comm§4.4 | forks | ^LEAKED BYTES REPORT:$ | pp kmemleak --alloc 'kmem:kmalloc//ptr=ptr/size=bytes_alloc/stack/' --free 'kmem:kfree//ptr=ptr/' --than 1s --comm -g
kmemleak-pages§8 | pages | ^LEAKED BYTES REPORT:$ | pp kmemleak --alloc 'kmem:mm_page_alloc//ptr=pfn/size=(4096<<order)/stack/' --free 'kmem:mm_page_free//ptr=pfn/' -g
profile§1.3 | cpuburn | ^ *Children +Self +Samples +Symbol$ | pp profile -F 997 -g --flame-graph "" -i 1000
profile-than§1.3 | cpuburn | cpuburn +[0-9]+ \[[0-9]+\] [0-9.]+: profile: [0-9]+ cpu-clock | pp profile -F 997 --than 50 -g
task-state§1.3,§4.2 | sleeper | ^thread comm +St +calls +total\(us\) | pp task-state --perins -i 1000
task-state-than§4.2 | sleeper | task-state: [0-9]+ sleeper WAIT [0-9]+ ms | pp task-state -S --than 10ms --filter sleeper -g --flame-graph task-state.folded
task-state-D§1.3 | dio | ^St +calls +total\(us\) | pp task-state -D
oncpu§1.3 | ctxsw | ^CPU SUM\(ms\) COMM:TID\(ms/switches/max_ms\)$ | pp oncpu --detail
oncpu-prio§1.3 | rtsleeper | ^CPU SUM\(ms\) COMM:TID\(ms\)$ | pp oncpu --prio 1-99
oncpu-comm§1.3 | ctxsw | ^CPU SUM\(ms\) COMM | pp oncpu --only-comm
oncpu-p§1.3 | cpuburn | ^THREAD COMM +SUM\(ms\) CPUS\(ms\)$ | pp oncpu -p $LOAD_PID
sched-migrate§1.3 | ctxsw | sched-migrate total [0-9]+, same LLC [0-9]+ hit | pp sched-migrate --detail --filter 'prio>=100'
page-faults§1.3 | pages | : page-fault: addr [0-9a-f]+ ip [0-9a-f]+$ | pp page-faults -g -N 1000
page-faults-user§1.3 | pages | : page-fault: addr [0-9a-f]+ ip [0-9a-f]+$ | pp page-faults --exclude-kernel -N 1000
blktrace§4.5 | dio | ^ +start => end +reqs +total\(us\) | pp blktrace -d $DISK
kvm-exit§1.3,§8 | kvmguest | ^exit_reason +calls | pp kvm-exit --filter exit_reason==48
kvmmmu§1.3 | kvmguest | ^kvm_mmu_gen | pp kvmmmu --spte --mmio --detail
breakpoint§1.3 | watch | : breakpoint: 0x[0-9a-f]+/8:w ip | pp breakpoint $WATCH_ADDR/8:w -g
misc§1.3 | bpf | misc:(ksymbol: bpf reg|bpf_event: prog load) | pp misc
EOF

# Examples that need what pp does not have: "known gap" lines, not failures.
cat >gaps.txt <<'EOF'
trace-exec-system§1.1 | pp refuses system() in expressions: it analyses captures, possibly of another machine (t202) | pp trace -e 'sched:sched_wakeup//exec=(system("cat /proc/%d/stat", pid))/'
multi-trace-pull§6.1 | push=/pull= event streams between perf-prof instances are not in pp (pp-record captures replace them); kvm:kvm_msi_set_irq also needs a KVM guest | pp multi-trace -e 'kvm:kvm_msi_set_irq//key=address/' -e 'irq:irq_handler_entry//pull=9900/key=irq/' --tsc --clock-offset 0 --order
EOF

field() { # field N LINE: the Nth " | "-separated field; the last one takes the rest
	_n=$1 _r=$2
	while [ "$_n" -gt 1 ]; do _r=${_r#* | }; _n=$((_n - 1)); done
	[ "$1" -lt "$3" ] && _r=${_r%% | *}
	printf '%s' "$_r"
}

# why_not ID LOAD COMMAND: why this machine cannot produce the example's events (empty: it can)
why_not() {
	case $2 in
	kvmguest)
		[ -n "$(ls -d /sys/kernel/debug/kvm/*-* 2>/dev/null)" ] ||
			{ echo "no KVM guest runs here (kvm:* events come from a running guest; $(grep -qE 'vmx|svm' /proc/cpuinfo && echo 'none started' || echo 'the CPU has no vmx/svm: this VM cannot start one'))"; return; } ;;
	kprobe)
		[ -e "$TRACING/kprobe_events" ] ||
			{ echo "this kernel has no kprobes (no $TRACING/kprobe_events)"; return; } ;;
	esac
	case $3 in
	*" python "* | ./shebang.py*)
		"$PP_ANALYZE" help python 2>&1 | grep -q NO_PYTHON &&
			{ echo "pp is built without Python (NO_PYTHON=1)"; return; } ;;
	esac
	for ev in $(printf '%s\n' "$3" | grep -oE '[a-z][a-z0-9_]*:[a-z_][a-z0-9_]*\*?' | sort -u); do
		case ${ev%%:*} in kprobe | kretprobe | uprobe | uretprobe) continue ;; esac
		# shellcheck disable=SC2086
		ls -d $TRACING/events/${ev%%:*}/${ev#*:} >/dev/null 2>&1 ||
			{ echo "the kernel has no tracepoint $ev"; return; }
	done
}

nrun=0 nskip=0 ngap=0 nfail=0 failed=
start=$(date +%s)

while IFS= read -r line; do
	id=$(field 1 "$line" 3)
	why=$(field 2 "$line" 3)
	cmd=$(field 3 "$line" 3)
	echo "known gap: $id: $why: $cmd"
	ngap=$((ngap + 1))
done <gaps.txt

while IFS= read -r line; do
	id=$(field 1 "$line" 4)
	load=$(field 2 "$line" 4)
	hdr=$(field 3 "$line" 4)
	cmd=$(field 4 "$line" 4)
	name=${id%%§*}
	case $id in *"${T604_ONLY:-}"*) ;; *) continue ;; esac
	why=$(why_not "$id" "$load" "$cmd")
	if [ -z "$why" ] && ! load_start "$load"; then
		why=$LOAD_WHY
	fi
	if [ -n "$why" ]; then
		echo "skipped: $id: $why: $cmd"
		nskip=$((nskip + 1))
		continue
	fi
	eval "set -- $cmd"
	[ "$1" = pp ] && { shift; set -- "$PP" "$@"; }
	t0=$(date +%s)
	setsid "$@" >"$name.out" 2>"$name.err" &
	pid=$!
	i=0
	while [ $i -lt $RUN10 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT -"$pid" 2>/dev/null
	i=0
	while [ $i -lt $((KILL_AFTER * 10)) ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$pid" 2>/dev/null && { echo "$id: still running $KILL_AFTER s after Ctrl-C: killed"; kill -KILL -"$pid"; }
	wait "$pid"
	rc=$?
	load_stop
	nrun=$((nrun + 1))

	bad=
	[ $rc = 0 ] || bad="exit status $rc"
	grep -Eq -- "$hdr" "$name.out" || bad="${bad:+$bad; }no line matches /$hdr/"
	: >"$name.errlines"
	grep -Ei 'error|warning|bug at|sanitizer|traceback|segmentation fault|aborted' "$name.err" |
		while IFS= read -r e; do
			allowed_warning "$name" "$e" || printf '%s\n' "$e"
		done >"$name.errlines"
	[ -s "$name.errlines" ] && bad="${bad:+$bad; }an error line on stderr"
	lost=$(sed -n 's/^ *lost: \([0-9]*\);.*/\1/p' "$name.err" | head -1)
	[ "${lost:-0}" = 0 ] && lost=
	# a task's name can only be missing when its COMM/FORK records went with lost events
	# (a sanitizer build of pp-record is several times slower and loses some here): then
	# <...> is what the capture can tell, and the line says so; without losses it fails
	if grep -q '<\.\.\.>' "$name.out"; then
		if [ -n "$lost" ]; then
			unnamed=" and unnamed tasks"
		else
			bad="${bad:+$bad; }an unresolved comm <...> in the output"
		fi
	else
		unnamed=
	fi
	if [ -n "$bad" ]; then
		nfail=$((nfail + 1))
		failed="$failed $id"
		echo "FAILED: $id: $bad"
		echo "  command: $cmd"
		echo "  --- stderr"
		sed 's/^/  /' "$name.err" | head -40
		echo "  --- stdout (head)"
		sed 's/^/  /' "$name.out" | head -25
		grep -n '<\.\.\.>' "$name.out" | head -5 | sed 's/^/  <...>: /'
	else
		echo "ok: $id ($(($(date +%s) - t0)) s${lost:+, $lost events lost$unnamed}): $cmd"
	fi
done <examples.txt

echo "t604: $nrun run, $((nrun - nfail)) passed, $nfail failed, $nskip skipped, $ngap known gaps, $(($(date +%s) - start)) s"
[ $nfail = 0 ] || fail "examples failed:$failed"
[ $nrun -gt 0 ] || skip "no example can run here"
exit 0
