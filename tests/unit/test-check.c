/* SPDX-License-Identifier: MIT */
/*
 * test-check.c - what a capture gives an analyzer (analyze/check.c) and what its
 * sched_switch's prev_state means (analyze/schedstate.c), on small captures written
 * here: a per-task recording lacks task-state's scope, -g without stacks, a missing
 * event, a narrower filter, CPUs left out, losses; the prev_state encodings of 4.9,
 * 4.18 and 6.x print fmts, a release alone, and hostile texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/check.h"
#include "analyze/internal.h"
#include "tests/tools/tp-format.h"
#include "tests/unit/unit.h"

#define SW_FIELDS                                                                          \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"                     \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"                         \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                        \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"                    \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"                         \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
#define SW_HEAD "name: sched_switch\nID: 287\nformat:\n" TP_COMMON_FIELDS "\n" SW_FIELDS "\n"
#define SW_PF                                                                              \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "          \
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "          \
	"REC->prev_prio, "
#define SW_TAIL ", REC->next_comm, REC->next_pid, REC->next_prio\n"
#define MAX414 "(((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1)"

/* 4.14 to 5.x, as tracefs prints TASK_REPORT_MAX */
static const char sw_418[] = SW_HEAD SW_PF
	"(REC->prev_state & (" MAX414 " - 1)) ? __print_flags(REC->prev_state & (" MAX414
	" - 1), \"|\", { 0x01, \"S\" }, { 0x02, \"D\" }, { 0x04, \"T\" }, { 0x08, \"t\" }, "
	"{ 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, { 0x80, \"I\" }) : \"R\", "
	"REC->prev_state & " MAX414 " ? \"+\" : \"\"" SW_TAIL;
/* 4.2 to 4.13: the raw task state, TASK_STATE_MAX as a number */
static const char sw_49[] = SW_HEAD SW_PF
	"REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 2048 ? \"+\" : \"\"" SW_TAIL;
/* hostile: nesting past any kernel's, an operator no kernel writes there */
#define P10 "(((((((((("
#define Q10 "))))))))))"
static const char sw_bad[] = SW_HEAD SW_PF
	"__print_flags(REC->prev_state, \"|\", { 0x01, \"S\" }) : \"R\", "
	"REC->prev_state & " P10 P10 P10 P10 "1" Q10 Q10 Q10 Q10 " ? \"+\" : \"\"" SW_TAIL;
static const char sw_op[] = SW_HEAD SW_PF
	"__print_flags(REC->prev_state, \"|\", { 0x01, \"S\" }) : \"R\", "
	"REC->prev_state & (1 * 2) ? \"+\" : \"\"" SW_TAIL;

static const char wakeup_fmt[] = "name: sched_wakeup\nID: 289\nformat:\n" TP_COMMON_FIELDS "\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:36;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n";

/* One event of a test capture: its name, format ("" for a software event), flags, filter. */
struct tev {
	const char *name, *format;
	uint32_t flags;
	const char *filter;
};

/* A capture of @evs and the KVs @kv ("key", "value", ..., NULL), @lost events lost on CPU 1. */
static struct ana_session *capture(const struct tev *evs, size_t nr, const char *const *kv,
				   uint64_t lost, char *path)
{
	struct ppf_writer *w;
	struct ana_session *s;
	struct ppf_record first;
	int fd;

	strcpy(path, "/tmp/pp-unit-check-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(ppf_writer_open(path, NULL, &w), 0);
	for (size_t i = 0; kv && kv[i]; i += 2)
		CU_ASSERT_EQUAL(ppf_write_kv(w, kv[i], kv[i + 1]), 0);
	for (size_t i = 0; i < nr; i++) {
		struct ppf_event_desc d = {
			.id = (uint32_t)i + 1, .kind = *evs[i].format ? 1 : 2, .flags = evs[i].flags,
			.tp_id = *evs[i].format ? 287 + (uint32_t)i : 0, .name = evs[i].name,
			.selector = evs[i].name, .filter = evs[i].filter ? evs[i].filter : "",
			.format = evs[i].format,
		};
		CU_ASSERT_EQUAL(ppf_write_event_desc(w, &d), 0);
	}
	if (lost) {
		struct ppf_lost l = { .time_ns = 1000, .cpu = 1, .id = 1, .count = lost };
		CU_ASSERT_EQUAL(ppf_write_lost(w, &l), 0);
	}
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(ana_session_open(path, 0, &s), 0);
	s->registry = &ana_registry;
	CU_ASSERT(ana_session_load_meta(s, &first) >= 0);
	return s;
}

/* The verdicts of "ANALYZER ARGS" (@argv, NULL-terminated) on @s, scanned as cmd-check does. */
static void verdict(struct ana_session *s, const char **argv, struct ana_check *c)
{
	int argc = 0;
	bool help = false;
	char err[512] = "";
	struct pp_az *az;
	struct ana_check_scan sc = { 0 };
	struct ppf_record rec;

	while (argv[argc])
		argc++;
	az = ana_az_try_parse(argc, argv, &help, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(az);
	memset(c, 0, sizeof(*c));
	CU_ASSERT_EQUAL(ana_check_meta(s, az, argc, argv, c, err, sizeof(err)), 0);
	while (ppf_reader_next(s->r, &rec, NULL) == 0)
		if (rec.type == PPF_REC_LOST)
			ana_session_meta(s, &rec);
	ana_check_scanned(s, az, &sc, c);
	ana_az_free(az);
}

#define ST(c, k) ((c).need[ANA_NEED_##k].state)

/* A capture of @evs... (capture()) and the verdicts of @argv on it (verdict()). */
static struct ana_session *checked(const struct tev *evs, size_t nr, const char *const *kv,
				   uint64_t lost, const char **argv, struct ana_check *c, char *path)
{
	struct ana_session *s = capture(evs, nr, kv, lost, path);

	verdict(s, argv, c);
	return s;
}

/* The end of one case: its verdicts, session and capture file gone. */
static void done(struct ana_session *s, struct ana_check *c, const char *path)
{
	ana_check_release(c);
	ana_session_free(s);
	unlink(path);
}

static const struct tev sched3[] = {
	{ "sched:sched_switch", sw_418, 0, NULL },
	{ "sched:sched_wakeup", wakeup_fmt, 0, NULL },
	{ "sched:sched_wakeup_new", wakeup_fmt, 0, NULL },
};

static void test_check__scope(void)
{
	static const char *const per_task[] = { "record.target", "workload", NULL };
	static const char *const system[] = { "record.target", "system", "record.cpus", "0,1",
					      "cpus_online", "0-1\n", NULL };
	static const char *const some_cpus[] = { "record.target", "system", "record.cpus", "1",
						 "cpus_online", "0-1\n", NULL };
	const char *ts[] = { "task-state", NULL };
	char path[] = "/tmp/pp-unit-check-XXXXXX";
	struct ana_check c;
	struct ana_session *s = checked(sched3, 3, per_task, 0, ts, &c, path);
	CU_ASSERT_EQUAL(ST(c, EVENTS), ANA_NEED_MET);
	CU_ASSERT_EQUAL(ST(c, SCOPE), ANA_NEED_UNMET);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.need[ANA_NEED_SCOPE].detail,
				      "switches into the followed tasks"));
	CU_ASSERT_STRING_EQUAL(c.record, "pp-record --for 'task-state' ...");
	CU_ASSERT_FALSE(ana_check_complete(&c));
	done(s, &c, path);

	s = checked(sched3, 3, system, 0, ts, &c, path);
	CU_ASSERT_EQUAL(ST(c, SCOPE), ANA_NEED_MET);
	CU_ASSERT_EQUAL(ST(c, CPUS), ANA_NEED_MET);
	CU_ASSERT_EQUAL(ST(c, STACKS), ANA_NEED_NONE);
	CU_ASSERT_EQUAL(ST(c, LOSSES), ANA_NEED_MET);
	CU_ASSERT_TRUE(ana_check_complete(&c));
	done(s, &c, path);

	s = checked(sched3, 3, some_cpus, 0, ts, &c, path);
	CU_ASSERT_EQUAL(ST(c, CPUS), ANA_NEED_UNMET);
	CU_ASSERT_STRING_EQUAL(c.need[ANA_NEED_CPUS].detail, "CPU 0 was not recorded (pp-record -C)");
	done(s, &c, path);

	/* a capture that does not say: unknown, never unmet */
	s = checked(sched3, 3, NULL, 0, ts, &c, path);
	CU_ASSERT_EQUAL(ST(c, SCOPE), ANA_NEED_UNKNOWN);
	CU_ASSERT_TRUE(ana_check_complete(&c));
	done(s, &c, path);
}

static void test_check__events_stacks_filters_losses(void)
{
	static const struct tev clock_nostack[] = { { "cpu-clock", "", 0, NULL } };
	static const struct tev clock_stack[] = { { "cpu-clock", "", PPF_EVF_STACK, NULL } };
	static const struct tev filtered[] = {
		{ "sched:sched_switch", sw_418, PPF_EVF_KERNEL_FILTER, "prev_pid==7" },
		{ "sched:sched_wakeup", wakeup_fmt, 0, NULL },
		{ "sched:sched_wakeup_new", wakeup_fmt, 0, NULL },
	};
	const char *prof[] = { "profile", "-g", NULL };
	const char *ts[] = { "task-state", NULL };
	char path[] = "/tmp/pp-unit-check-XXXXXX";
	struct ana_check c;
	struct ana_session *s = checked(clock_nostack, 1, NULL, 0, prof, &c, path);
	CU_ASSERT_EQUAL(ST(c, STACKS), ANA_NEED_UNMET);
	CU_ASSERT_STRING_EQUAL(c.need[ANA_NEED_STACKS].detail,
			       "no call stacks recorded for cpu-clock");
	done(s, &c, path);

	s = checked(clock_stack, 1, NULL, 12, prof, &c, path);
	CU_ASSERT_EQUAL(ST(c, STACKS), ANA_NEED_MET);
	CU_ASSERT_EQUAL(ST(c, LOSSES), ANA_NEED_UNMET);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.need[ANA_NEED_LOSSES].detail, "12 events lost"));
	/* task-state on a profile's capture: its events are named */
	ana_check_release(&c);
	verdict(s, ts, &c);
	CU_ASSERT_EQUAL(ST(c, EVENTS), ANA_NEED_UNMET);
	CU_ASSERT_STRING_EQUAL(c.need[ANA_NEED_EVENTS].detail,
			       "not in this capture: sched:sched_switch, sched:sched_wakeup, "
			       "sched:sched_wakeup_new");
	done(s, &c, path);

	/* recorded for one task, analysed for all: narrower; for the same task: not */
	s = checked(filtered, 3, NULL, 0, ts, &c, path);
	CU_ASSERT_EQUAL(ST(c, FILTERS), ANA_NEED_UNMET);
	done(s, &c, path);
}

/* ANA_PS_* of each stored value, for the encoding of @format (NULL: none, @release's). */
static void ps_of(const char *format, const char *release, struct ana_prev_state *ps)
{
	const char *kvs[] = { "release", release, NULL };
	struct tev ev = { "sched:sched_switch", format ? format : "", 0, NULL };
	char path[] = "/tmp/pp-unit-check-XXXXXX";
	struct ana_session *s = capture(&ev, 1, release ? kvs : NULL, 0, path);

	ana_prev_state_init(s, format ? s->type_list[0] : NULL, ps);
	ana_session_free(s);
	unlink(path);
}

static void test_check__prev_state(void)
{
	struct ana_prev_state ps;

	ps_of(sw_418, NULL, &ps);
	CU_ASSERT_TRUE(ps.from_format);
	CU_ASSERT_EQUAL(ps.preempt, 0x100);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 0x100), ANA_PS_PREEMPT);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 0x80), ANA_PS_I);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 0x10), ANA_PS_X);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 0), 0);
	CU_ASSERT_TRUE(ana_prev_state_runnable(&ps, 0x100));
	CU_ASSERT_FALSE(ana_prev_state_runnable(&ps, 1));

	/* 4.9: Z 16, X 32, TASK_DEAD 64 dead, K|D a D, D|N (TASK_IDLE) a D, 2048 preempted */
	ps_of(sw_49, "4.9.0", &ps);
	CU_ASSERT_TRUE(ps.from_format);
	CU_ASSERT_EQUAL(ps.preempt, 2048);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 16), ANA_PS_Z);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 32), ANA_PS_X);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 64), ANA_PS_X);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 0x82), ANA_PS_D);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 1026), ANA_PS_D);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 2048), ANA_PS_PREEMPT);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 512), ANA_PS_P);

	/* no format: the release decides */
	ps_of(NULL, "4.9.0", &ps);
	CU_ASSERT_FALSE(ps.from_format);
	CU_ASSERT_EQUAL(ps.preempt, 1024);
	CU_ASSERT_EQUAL(ana_prev_state_canon(&ps, 16), ANA_PS_Z);
	ps_of(NULL, "5.14.0", &ps);
	CU_ASSERT_EQUAL(ps.preempt, 0x100);

	/* hostile print fmts: the release's answer, no crash */
	ps_of(sw_bad, "6.1.0", &ps);
	CU_ASSERT_FALSE(ps.from_format);
	CU_ASSERT_EQUAL(ps.preempt, 0x100);
	ps_of(sw_op, "6.1.0", &ps);
	CU_ASSERT_FALSE(ps.from_format);
}

void test_check__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_check__scope, "task-state's every CPU: a per-task capture lacks it, "
					   "a system one has it, CPUs left out are named"),
		PP_TEST(test_check__events_stacks_filters_losses,
			"-g without stacks, absent events, a narrower filter, losses: unmet"),
		PP_TEST(test_check__prev_state, "prev_state of 4.9 and 4.18 print fmts, a release "
						"alone, hostile texts"),
	};

	pp_suite_add("check", tests, PP_ARRAY_SIZE(tests));
}
