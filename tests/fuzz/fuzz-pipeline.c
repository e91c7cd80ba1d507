/* SPDX-License-Identifier: MIT */
/*
 * fuzz-pipeline.c - libFuzzer entry: a capture with valid checksums through pp-analyze.
 *
 * The bytes are a capfuzz program (capfuzz.h): the capture it writes goes
 * to a memfd, and pp-analyze's command layer (ana_cmd_run_file(), the same code
 * as the program, in this process) replays it:
 *   - info and dump;
 *   - one pass of trace (text, and JSON with stacks), list -v, event-care,
 *     sql (a SELECT * of every event's table, both table modes compared),
 *     and export to every format (chrome, perfetto, pprof, jsonl, csv, folded);
 *   - for the events the capture has, the analyzers made for them
 *     (task-state, rundelay, syscalls, multi-trace, kmemleak, kvm-exit,
 *     blktrace, ..., see specialists[]) and top/num-dist/expr/multi-trace on
 *     the first event with a field.
 * Output goes to /dev/null and messages are off: only crashes, sanitizer
 * reports, leaks and exits count.  An analyzer may refuse a capture (a
 * missing field, an unknown event): that is an answer, not a finding.
 * FZ_TIME=1 prints each pass's time on stderr.  Not here: the python
 * analyzer (fuzz-python.c: its interpreter is not leak-clean under
 * LeakSanitizer).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "common/buf.h"
#include "common/log.h"
#include "tests/fuzz/capfuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An analyzer (its argv, split on blanks) and the events it needs: all of them. */
struct specialist {
	const char *needs;	/* comma list of event names */
	const char *argv;
};

static const struct specialist specialists[] = {
	{ "sched:sched_switch", "task-state --perins -g -i 1" },
	{ "sched:sched_switch,sched:sched_wakeup", "task-state -S --than 1us --format json" },
	{ "sched:sched_switch", "oncpu --detail -i 1" },
	{ "sched:sched_switch", "oncpu --only-comm --format csv" },
	{ "sched:sched_migrate_task", "sched-migrate --detail -g -i 1" },
	{ "sched:sched_switch,sched:sched_wakeup", "rundelay --perins --than 1ns --detail=samekey" },
	{ "sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new",
	  "multi-trace -e sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_switch/prev_state==0&&prev_pid>0/key=prev_pid/"
	  " -e sched:sched_switch//key=next_pid/ -k pid --than 1ns --detail=samecpu" },
	{ "sched:sched_switch", "hrcount -e sched:sched_switch --period 1ms --perins" },
	{ "sched:sched_switch", "stat -e sched:sched_switch --period 1ms --perins" },
	{ "sched:sched_switch", "multi-trace -e sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/ --cycle" },
	{ "sched:sched_stat_runtime", "top -e sched:sched_stat_runtime//key=pid/comm=comm/top-by=runtime/ -i 1" },
	{ "cpu-clock", "profile -g --perins --flame-graph /dev/null" },
	{ "cpu-clock", "profile -g --sort children --format json" },
	{ "cpu-clock", "cpu-util --split -i 1" },
	{ "cpu-clock", "watchdog -g" },
	{ "page-faults", "page-faults -g --summary" },
	{ "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "syscalls --perins --than 1ns" },
	{ "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "syscalls --format csv" },
	{ "raw_syscalls:sys_enter", "percpu-stat --syscalls -i 1" },
	{ "irq:softirq_entry,irq:softirq_exit",
	  "multi-trace -e irq:softirq_entry//key=vec/printkey=printf(\"vec%02d\",key)/ -e irq:softirq_exit//key=vec/ --perins --than 1ns --detail" },
	{ "irq:softirq_entry,irq:softirq_exit", "multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair" },
	{ "irq:softirq_entry,irq:softirq_exit,irq:irq_handler_entry,irq:irq_handler_exit",
	  "nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit --format json" },
	{ "kmem:kmalloc,kmem:kfree", "kmemprof -e kmem:kmalloc//stack/ -e kmem:kfree -k ptr" },
	{ "kmem:kmalloc,kmem:kfree", "kmemleak --alloc kmem:kmalloc//ptr=ptr/size=bytes_alloc/ --free kmem:kfree//ptr=ptr/ -v" },
	{ "kmem:mm_page_alloc,kmem:mm_page_free",
	  "kmemprof -e kmem:mm_page_alloc//size=4096<<order/key=pfn/stack/ -e kmem:mm_page_free//key=pfn/stack/" },
	{ "kvm:kvm_exit", "kvm-exit --perins --than 1ns -i 1" },
	{ "kvm:kvm_exit", "bpf-kvm-exit --perins --detail --format json" },
	{ "kvmmmu:kvm_mmu_get_page", "kvmmmu --spte --mmio --detail -v" },
	{ "block:block_rq_issue", "blktrace -v --than 1ns" },
	{ "", "misc" },
	{ "", "breakpoint -g" },
	{ "", "irq-off --than 1ns -g" },
	{ "", "hwstat -i 1" },
	{ "", "llcstat --format csv" },
	{ "", "tlbstat" },
	{ "", "split-lock -g" },
	{ "", "ldlat-loads --perins" },
	{ "", "ldlat-stores -v" },
	{ "timer:hrtimer_start", "hrtimer -e sched:sched_switch --period 1ms sched_switch==0" },
};

static const char *const exports[] = { "chrome", "perfetto", "pprof", "jsonl", "csv", "folded" };

struct argv {
	const char *v[256];
	int n;
	struct pp_buf store[8];	/* built arguments */
	int nr_store;
};

static void arg(struct argv *a, const char *s)
{
	if (a->n < (int)PP_ARRAY_SIZE(a->v) - 1)
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* Split @s on blanks into @a; the copy is kept in @a until argv_release(). */
static void args(struct argv *a, const char *s)
{
	struct pp_buf *b = &a->store[a->nr_store++];
	size_t start;

	pp_buf_adds(b, s);
	pp_buf_addch(b, '\0');
	for (size_t i = 0; i < b->len;) {
		while (i < b->len && (b->data[i] == ' ' || !b->data[i]))
			b->data[i++] = '\0';
		start = i;
		while (i < b->len && b->data[i] && b->data[i] != ' ')
			i++;
		if (i > start)
			arg(a, b->data + start);
	}
}

static void argv_release(struct argv *a)
{
	for (int i = 0; i < a->nr_store; i++)
		pp_buf_release(&a->store[i]);
	memset(a, 0, sizeof(*a));
}

static bool has_event(const struct fz_capture *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->nr_events; i++)
		if (strlen(c->names[i]) == len && !memcmp(c->names[i], name, len))
			return true;
	return false;
}

static bool has_all(const struct fz_capture *c, const char *needs)
{
	while (*needs) {
		const char *comma = strchr(needs, ',');
		size_t len = comma ? (size_t)(comma - needs) : strlen(needs);
		if (!has_event(c, needs, len))
			return false;
		needs += len + !!comma;
	}
	return true;
}

static void run(struct argv *a)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	(void)ana_cmd_run_file(a->n, a->v, &(struct ana_cmd_ctx){ 0 });
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("FZ_TIME"))
		fprintf(stderr, "%8.3f ms %s %s\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e6, a->v[1], a->n > 2 ? a->v[2] : "");
	fflush(stdout);
	argv_release(a);
}

/* SQL's table name for an event: the part after ':', double-quoted. */
static void sql_table(struct pp_buf *q, const char *name)
{
	const char *colon = strchr(name, ':');

	pp_buf_adds(q, "SELECT * FROM \"");
	for (const char *p = colon ? colon + 1 : name; *p; p++) {
		if (*p == '"')
			pp_buf_addch(q, '"');
		pp_buf_addch(q, *p);
	}
	pp_buf_adds(q, "\";");
}

static void generic_pass(const struct fz_capture *c)
{
	struct argv a = { 0 };
	struct pp_buf *q = &a.store[a.nr_store++];

	arg(&a, c->path);
	args(&a, "trace -g , trace --format json -g , list -v , event-care ,");
	arg(&a, "sql");
	arg(&a, "--verify");
	arg(&a, "--query");
	pp_buf_adds(q, "SELECT name FROM sqlite_master;");
	for (size_t i = 0; i < c->nr_events; i++)
		sql_table(q, c->names[i]);
	arg(&a, pp_buf_str(q));
	for (size_t i = 0; i < PP_ARRAY_SIZE(exports); i++) {
		arg(&a, ",");
		arg(&a, "export");
		arg(&a, "--to");
		arg(&a, exports[i]);
		arg(&a, "-o");
		arg(&a, "/dev/null");
		if (i == 3 || i == 4)
			arg(&a, "--stacks");
	}
	run(&a);
}

/* top, num-dist, expr and multi-trace on the first event with a field of its own. */
static void field_pass(const struct fz_capture *c)
{
	struct argv a = { 0 };
	struct pp_buf *b = &a.store[a.nr_store++];
	size_t i;

	for (i = 0; i < c->nr_events; i++)
		if (c->fields[i] && !strchr(c->names[i], '/') && !strchr(c->names[i], ','))
			break;
	if (i == c->nr_events)
		return;
	/* the arguments are made in one buffer first: its data must not move afterwards */
	pp_buf_addf(b, "%s//key=%s/%c", c->names[i], c->fields[i], 0);
	pp_buf_addf(b, "%s//num=%s/%c", c->names[i], c->fields[i], 0);
	pp_buf_addf(b, "%s ? %s : _cpu%c", c->fields[i], c->fields[i], 0);
	const char *key = b->data, *num = key + strlen(key) + 1, *ex = num + strlen(num) + 1;
	arg(&a, c->path);
	args(&a, "top -e");
	arg(&a, key);
	args(&a, "-i 1 , num-dist --perins -e");
	arg(&a, num);
	args(&a, ", expr -e");
	arg(&a, c->names[i]);
	arg(&a, ex);
	args(&a, ", multi-trace -k common_pid --than 1ns --detail -e");
	arg(&a, c->names[i]);
	arg(&a, "-e");
	arg(&a, c->names[(i + 1) % c->nr_events]);
	run(&a);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_quiet_analyze();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_capture c;

	if (fz_capture_build(data, size, &c))
		return 0;
	/* read-ahead or not: one more code path for a bit of the config */
	setenv("PP_READ_AHEAD", c.config & 0x10 ? "1" : "0", 1);
	{
		struct argv a = { 0 };
		arg(&a, c.path);
		arg(&a, "info");
		run(&a);
		arg(&a, c.path);
		arg(&a, "dump");
		run(&a);
	}
	generic_pass(&c);
	field_pass(&c);
	for (size_t i = 0; i < PP_ARRAY_SIZE(specialists); i++) {
		if (!has_all(&c, specialists[i].needs))
			continue;
		/* the ones needing no event run on a quarter of the inputs each */
		if (!*specialists[i].needs && !c.verbatim && (c.config >> 6) != i % 4)
			continue;
		struct argv a = { 0 };
		arg(&a, c.path);
		args(&a, specialists[i].argv);
		run(&a);
	}
	fz_capture_release(&c);
	return 0;
}
