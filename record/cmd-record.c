/* SPDX-License-Identifier: MIT */
/*
 * cmd-record.c - `pp-record`: the option table, validation, and the run.
 *
 * Only parsing and checking happen here; every step of the recording is
 * library code in session.c and friends.  Exit status: 0, 1 (the recording
 * failed, e.g. a full disk), 2 (bad input, one line naming the bad part),
 * or the status of `-- COMMAND`.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/callgraph.h"
#include "common/err.h"
#include "common/log.h"
#include "common/man.h"
#include "common/options.h"
#include "common/version.h"
#include "record/check/check.h"
#include "record/perf/counters.h"
#include "record/plan.h"
#include "record/record.h"
#include "record/plans.h"
#include "record/ring/prod.h"
#include "record/selfstat.h"
#include "record/session.h"
#include "record/summary.h"

static const char *const record_usage[] = {
	"pp-record [-e EVENTS]... [--for 'ANALYZER ARGS']... [OPTIONS] [-- COMMAND ARGS...]",
	"pp-record --check [--format json] [--for 'ANALYZER ARGS']... [OPTIONS] [-- COMMAND ARGS...]",
	NULL,
};

static const char record_help[] =
	"\nRecords perf events into a capture file (default " REC_DEFAULT_OUTPUT ")\n"
	"for pp-analyze.\n"
	"Stops on --duration, SIGINT/SIGTERM, or when COMMAND exits (then exits with its status).\n"
	"With -a or -C, COMMAND only bounds the recording; otherwise only COMMAND and its\n"
	"children are recorded, from their first instruction.\n"
	"\nExamples:\n"
	"  pp-record -e sched:sched_switch,sched:sched_wakeup --duration 10\n"
	"  pp-record -e 'sched:sched_switch/prev_pid==1234/' -o sched.capture\n"
	"  pp-record -e 'raw_syscalls:sys_enter/common_pid==42/' -p 42\n"
	"  pp-record -e cpu-clock -F 997 -g -- ./myprog arg1\n"
	"  pp-record -a -e sched:sched_switch -- sleep 2\n"
	"  pp-record -e 'sched:sched_wak*' -C 0-1 --duration 5s\n"
	"  pp-record -e uprobe:/usr/bin/bash:readline -e 'mem:jiffies/8:r' --duration 1\n"
	"  pp-record --count sched:sched_switch,page-faults --count-period 100 -a --duration 5\n"
	"  pp-record -e sched:sched_switch -o - | pp-analyze - info\n"
	"  pp-record -a -e sched:sched_switch --max-size 256M --rotate 4 -o sched.capture\n"
	"  pp-record -a -e sched:sched_switch --flight-recorder 64M -o fr.capture   # kill -USR1 to dump\n"
	"  pp-record -a -e sched:sched_switch --flight-recorder 64M \\\n"
	"      --trigger 'sched:sched_process_exit/comm==\"myprog\"/' --post-trigger 1s\n"
	"\nTracepoints without call chains are read from a tracefs instance of pp-record's\n"
	"own (instances/pp-PID, removed at the end; one a killed pp-record left is removed\n"
	"at the next start): the ftrace ring buffer slows the traced tasks less than perf's\n"
	"output path. Their clock is the instance's local clock (cheaper to read than\n"
	"CLOCK_MONOTONIC on some machines), mapped to CLOCK_MONOTONIC every 250 ms through\n"
	"a second instance, instances/pp-PID-clock; --ftrace-mono has the instance use\n"
	"CLOCK_MONOTONIC itself. --no-ftrace reads every event through perf rings.\n"
	"Recording to a file, their pages wait in a spill file next to it (unlinked,\n"
	"--spill-max bounds it) while the CPUs are busy, and pp-record's own work runs\n"
	"when a CPU is free.\n"
	"\n--check records nothing: it says what this machine lets pp-record do (one line\n"
	"each, with the fix for each no), opens the command line's events for real, disabled,\n"
	"and closes them; exit 0 when it would record here, 1 when not (the first reason),\n"
	"2 for a bad command line (docs/production.md, docs/kernels.md).\n"
	"\nProduction recording (docs/production.md): --rotate writes FILE.0, FILE.1, ...\n"
	"and keeps the newest N; --flight-recorder writes FILE.0, FILE.1, ... on each dump\n"
	"(SIGUSR1, the end, or the trigger). Every such file analyses on its own.\n";

static void on_stop(int sig)
{
	(void)sig;
	pp_stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	rec_dump = 1;
}

static void on_child(int sig)
{
	(void)sig;		/* only to interrupt poll() */
}

static void on_usr2(int sig)
{
	(void)sig;		/* pp's CPU report: nothing to do, but not the default death */
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* a handler, not SIG_IGN, which COMMAND would inherit */
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static int kallsyms_cb(const struct pp_option *opt, const char *arg, bool unset, char *err,
		       size_t errsz)
{
	if (unset || !strcmp(arg, "no")) {
		*(int *)opt->value = 0;
	} else if (!strcmp(arg, "yes")) {
		*(int *)opt->value = 1;
	} else {
		snprintf(err, errsz, "option '--kallsyms' takes yes or no, not '%s'", arg);
		return PP_EUSAGE;
	}
	return 0;
}

/* --call-graph fp|dwarf[,SIZE] (common/callgraph.h); -g is fp */
static int call_graph_cb(const struct pp_option *opt, const char *arg, bool unset, char *err,
			 size_t errsz)
{
	struct rec_opts *o = opt->value;
	uint32_t mode = 0;
	int rc = unset ? 0 : pp_callgraph_parse(arg, &mode, err, errsz);

	if (rc)
		return rc;
	o->callgraph = mode != 0;
	o->dwarf_sz = mode > PP_CALLGRAPH_FP ? mode : 0;
	return 0;
}

static char *cmdline_dup(int argc, const char **argv)
{
	struct pp_buf b = PP_BUF_INIT;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (i)
			pp_buf_addch(&b, ' ');
		if (*a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;!#~")) {
			pp_buf_adds(&b, a);
			continue;
		}
		pp_buf_addch(&b, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				pp_buf_adds(&b, "'\\''");
			else
				pp_buf_addch(&b, *a);
		}
		pp_buf_addch(&b, '\'');
	}
	return pp_buf_detach(&b);
}

static long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Checks that need no kernel: return 0 or an error message in @s. */
static int validate(struct rec_session *s)
{
	struct rec_opts *o = &s->opts;
	int targets = !!o->pids + !!o->tids + !!o->cgroups + !!o->argv;
	long maxrate;

	if (targets > 1)
		return rec_session_fail(s, PP_EUSAGE,
					"-p, -t, --cgroups and a COMMAND exclude each other");
	if (o->all_cpus && (o->pids || o->tids || o->cgroups))
		return rec_session_fail(s, PP_EUSAGE,
					"-a records every task: it cannot be combined with %s",
					o->pids ? "-p" : o->tids ? "-t" : "--cgroups");
	if (o->freq && o->period)
		return rec_session_fail(s, PP_EUSAGE, "-F and --period exclude each other");
	maxrate = o->check ? 0 : max_sample_rate();	/* --check: its own line says it */
	if (o->freq && maxrate > 0 && o->freq > (uint64_t)maxrate)
		return rec_session_fail(s, PP_ERANGE,
					"-F %llu is above the kernel's limit of %ld Hz (/proc/sys/kernel/perf_event_max_sample_rate)",
					(unsigned long long)o->freq, maxrate);
	/*
	 * Call chains on whole CPUs come at 100 MB/s a CPU and more at the peaks of a
	 * context-switch storm: a 1 MiB ring is 5-10 ms of them, and one late round
	 * of the single drain thread loses events (docs/performance.md, issue 22).
	 */
#if !defined(__x86_64__)
	if (o->dwarf_sz)
		return rec_session_fail(s, PP_EUSAGE,
					"--call-graph dwarf: user stacks are recorded on x86-64 only");
#endif
	if (o->mmap_pages == REC_PAGES_AUTO && o->dwarf_sz)	/* a copy of the stack a sample */
		o->mmap_pages = REC_DEFAULT_PAGES_DWARF;
	if (o->mmap_pages == REC_PAGES_AUTO)
		o->mmap_pages = o->callgraph && (o->all_cpus || o->cpus || !targets) ?
				REC_DEFAULT_PAGES_CALLCHAINS : REC_DEFAULT_PAGES;
	if (o->mmap_pages <= 0 || (o->mmap_pages & (o->mmap_pages - 1)))
		return rec_session_fail(s, PP_ERANGE,
					"-m %d: the number of pages must be a power of 2",
					o->mmap_pages);
	if (o->watermark < 1 || o->watermark > 100)
		return rec_session_fail(s, PP_ERANGE, "--watermark %d: expected 1 to 100 (percent)",
					o->watermark);
	/*
	 * Stack copies: their XOR residue is most of the bytes, and zstd level 3 on it was a
	 * third of the recorder's CPU a sample on a C++ program; level 1 halves that for some
	 * 6 % more bytes (tests/bench/recstack.sh).  Level 1 still Huffman-codes the residue's
	 * literals, half of what zstd spends on it; -3 stores them as they are and skips ahead
	 * in the bytes that do not match: zstd at 2-2.5x level 1's speed for 1.5x the bytes
	 * (1140 against 740 a sample on unwind-cxx, perf's 8441).  A --zstd-level given wins.
	 */
	if (!o->zstd_level && o->dwarf_sz)
		o->zstd_level = -3;
	if (o->zstd_level < -50 || o->zstd_level > 22)
		return rec_session_fail(s, PP_ERANGE, "--zstd-level %d: expected -50 to 22",
					o->zstd_level);
	if (o->spill_max && o->spill_max < (1u << 20))
		return rec_session_fail(s, PP_ERANGE,
					"--spill-max %llu: at least 1M (0 turns the spill file off)",
					(unsigned long long)o->spill_max);
	if (o->merge_max < (1u << 20))
		return rec_session_fail(s, PP_ERANGE, "--merge-max %llu: at least 1M",
					(unsigned long long)o->merge_max);
	if (o->exclude_user && o->exclude_kernel)
		return rec_session_fail(s, PP_EUSAGE,
					"--exclude-user and --exclude-kernel together leave nothing to record");
	if (o->argv) {
		char *path = rec_workload_find_dup(o->argv[0]);

		if (!path)
			return rec_session_fail(s, PP_ENOT_FOUND, "command '%s' not found",
						o->argv[0]);
		free(path);
	}
	return 0;
}

/*
 * The command line into s->opts (s->opts.argv: the command, owned).
 * Return: -1 to record, else the exit status of a run that ends here
 * (--help, --version, a bad option), the session released.
 */
static int parse_args(struct rec_session *s, int argc, const char **argv,
		      const struct pp_option *opts, const int *quiet, const bool *version)
{
	struct rec_opts *o = &s->opts;
	char err[512];
	int n;

	if (pp_help_man(stdout, argc - 1, argv + 1, record_usage, opts, record_help)) {
		rec_session_release(s);	/* the man pages' parts (make man) */
		return 0;
	}
	o->cmdline = cmdline_dup(argc, argv);	/* before parsing reorders argv */
	n = pp_parse_options(argc - 1, argv + 1, opts, PP_PARSE_STOP_AT_NON_OPTION, err,
			     sizeof(err));
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, record_usage, opts);
		fputs(record_help, stdout);
		rec_session_release(s);
		return 0;
	}
	if (n < 0) {
		pp_err("%s (see pp-record --help)", err);
		rec_session_release(s);
		return 2;
	}
	if (*version) {
		pp_version_print(stdout, "pp-record", NULL);
		rec_session_release(s);
		return 0;
	}
	if (*quiet)
		o->verbose = 0;		/* -q wins: no self-statistics either */
	pp_log_level = *quiet > 1 ? PP_LOG_SILENT : *quiet ? PP_LOG_QUIET : o->verbose;
	if (n > 0) {
		/* argv + 1 was compacted: the leftovers are the command */
		o->argv = pp_xcalloc((size_t)n + 1, sizeof(*o->argv));
		memcpy(o->argv, argv + 1, (size_t)n * sizeof(*o->argv));
	}
	return -1;
}

/* --for, -e, --count and the production options into events.  Return: 0 or the code, s->errmsg set. */
static int plan_events(struct rec_session *s)
{
	struct rec_opts *o = &s->opts;
	int rc = 0;

	for (size_t i = 0; !rc && i < o->fors.nr; i++)
		rc = rec_plan_apply(s, o->fors.v[i], s->errmsg, sizeof(s->errmsg));	/* may set targets and rates */
	if (!rc)
		rc = validate(s);
	for (size_t i = 0; !rc && i < o->events.nr; i++)
		rc = rec_evsels_add(s, o->events.v[i], s->errmsg, sizeof(s->errmsg));
	for (size_t i = 0; !rc && i < o->counters.nr; i++)
		rc = rec_counters_add(s, o->counters.v[i], s->errmsg, sizeof(s->errmsg));
	if (!rc && !s->nr_evsels)
		rc = rec_evsels_add(s, "cpu-clock", s->errmsg, sizeof(s->errmsg));
	if (!rc)
		rc = rec_prod_setup(s, s->errmsg, sizeof(s->errmsg));	/* after -e: the trigger is one more event */
	return rc;
}

/* plan_events(); a failure said, the session released.  Return: 0, or 2 (usage). */
static int add_events(struct rec_session *s)
{
	if (!plan_events(s))
		return 0;
	pp_err("%s", s->errmsg);
	free(s->opts.argv);
	rec_session_release(s);
	rec_prod_free(s);
	return 2;
}

/* A code of plan_events() that is the command line's fault, not the machine's. */
static bool usage_code(int rc)
{
	return rc == PP_EUSAGE || rc == PP_ESYNTAX || rc == PP_ERANGE || rc == PP_EUNKNOWN_ATTR;
}

/* The command line as a recording would run it: without --check and --format. */
static char *check_cmdline(int argc, const char **argv)
{
	const char **v = pp_xcalloc((size_t)argc + 1, sizeof(*v));
	char *line;
	int n = 0;

	v[n++] = "pp-record";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			while (i < argc)
				v[n++] = argv[i++];
		if (i >= argc)
			break;
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			i++;
		else if (strcmp(argv[i], "--check") && strncmp(argv[i], "--format=", 9))
			v[n++] = argv[i];
	}
	line = cmdline_dup(n, v);
	free(v);
	return line;
}

/*
 * --check: the machine's lines, then the command line's events opened for
 * real, disabled, and closed (record/check/).  Return: 0 (it records here),
 * 1 (it does not), 2 (a bad command line).
 */
static int record_check(struct rec_session *s, char *cmdline, const char *format)
{
	struct rec_check c = { .run = true };
	char name[64] = "";
	int rc, status;

	if (format && strcmp(format, "json") && strcmp(format, "text")) {
		pp_err("--format %s: expected text or json", format);
		rec_session_release(s);
		free(cmdline);
		return 2;
	}
	if (s->opts.fors.nr)
		sscanf(s->opts.fors.v[0], "%63s", name);
	for (size_t i = 0; i < s->opts.fors.nr; i++) {
		char a[64] = "";

		if (sscanf(s->opts.fors.v[i], "%63s", a) == 1 && !rec_plan_find(a)) {
			pp_err("--for '%s': no analyzer '%s' (see pp-analyze help)", s->opts.fors.v[i], a);
			rec_session_release(s);
			free(cmdline);
			return 2;
		}
	}
	rc = plan_events(s);
	if (rc && usage_code(rc)) {
		pp_err("%s", s->errmsg);
		free(s->opts.argv);
		rec_check_session_release(s);
		rec_prod_free(s);
		free(cmdline);
		return 2;
	}
	c.analyzer = *name ? name : NULL;
	c.command = cmdline;
	rec_check_machine(&c, s);
	rec_check_machine_perf(&c);
	if (rc) {
		rec_check_add(&c, "event", REC_CHECK_NO, NULL, "%s", s->errmsg);
		c.v[c.nr - 1].event = true;
		rec_check_fail(&c, s->errmsg, NULL);
		rec_check_session_release(s);
	} else {
		rec_check_dry_open(&c, s);	/* releases the session */
	}
	rec_prod_free(s);
	rec_check_print(&c, format && !strcmp(format, "json"), stdout);
	status = c.run ? 0 : 1;
	free(s->opts.argv);
	rec_check_release(&c);
	return status;
}

/* Open, run and finish the recording, the summary.  Return: the exit status. */
static int record_run(struct rec_session *s)
{
	struct rec_opts *o = &s->opts;
	int rc, status = 0;

	rc = rec_session_open(s);
	if (!rc && o->verbose)
		rec_selfstat_start(s, o->stat_interval_ns, stderr);
	if (!rc)
		rc = rec_session_run(s);
	if (rc && s->reader_gone) {
		/* as `cat | head`: the reader has what it wanted; said at the info level */
		pp_info("%s; recording stopped", s->errmsg);
		rc = rec_session_finish(s);
	} else if (rc) {
		pp_err("%s", s->errmsg);
		status = rc == PP_EUSAGE ? 2 : 1;
		rc = rec_session_finish(s);
		if (s->drain.nr_rounds && pp_log_level >= PP_LOG_INFO) {
			rec_summary_print(s, stderr);	/* what made it to the capture */
			rec_prod_summary(s, stderr);
		}
	} else {
		rc = rec_session_finish(s);
		if (rc && s->reader_gone)
			pp_info("%s; recording stopped", s->errmsg);
		else if (rc)
			pp_err("%s", s->errmsg);
		if (pp_log_level >= PP_LOG_INFO) {
			rec_summary_print(s, stderr);
			rec_prod_summary(s, stderr);
		}
		status = rc && !s->reader_gone ? 1 : 0;
		if ((!rc || s->reader_gone) && s->wl.pid) {
			rec_workload_stop(&s->wl);
			status = rec_workload_exit_code(&s->wl);
		}
	}
	return status;
}

int cmd_record(int argc, const char **argv)
{
	struct rec_session s;
	struct rec_opts *o = &s.opts;
	int status, quiet = 0;
	bool version = false;
	const char *format = NULL;
	char *check_line = check_cmdline(argc, argv);	/* before parsing reorders argv */

	rec_session_init(&s);
	const struct pp_option opts[] = {
		PP_OPT_GROUP("What to record"),
		PP_OPT_STRLIST('e', "event", &o->events, "events",
			       "events: sys:name[/filter/ATTR/], globs, cpu-clock, page-faults,"
			       " uprobe:BIN:fn, mem:ADDR ..."),
		PP_OPT_STRLIST(0, "for", &o->fors, "'analyzer args'",
			       "record what this analyzer invocation needs"),
		PP_OPT_STRLIST(0, "count", &o->counters, "events",
			       "count these events (no samples): COUNTER readings every --count-period"),
		PP_OPT_TIME(0, "count-period", &o->count_period, 1000000,
			    "how often the counters are read (ms; 1000)"),
		PP_OPT_BOOL(0, "count-leader", &o->count_leader,
			    "a cpu-clock sample per CPU reads them each period (hrcount's way)"),
		PP_OPT_BOOL(0, "count-no-samples", &o->count_no_samples,
			    "with --count-leader: keep the counts, not the leader's samples"),
		PP_OPT_U64('F', "freq", &o->freq, "hz",
			   "sampling frequency of cpu-clock/task-clock (997)"),
		PP_OPT_TIME(0, "period", &o->period, 1,
			    "sampling period (ns for clocks, else a count)"),
		PP_OPT_BOOL('g', NULL, &o->callgraph,
			    "record call chains for every event (frame pointers)"),
		{ .type = PP_OPT_T_CALLBACK, .long_name = "call-graph", .value = o,
		  .argh = "fp|dwarf[,size]", .cb = call_graph_cb,
		  .help = "call chains: frame pointers, or the user registers and SIZE bytes of the"
			  " user stack (8192), unwound by pp-analyze" },
		PP_OPT_BOOL(0, "user-callchain", &o->user_callchain,
			    "keep the user part of call chains (on)"),
		PP_OPT_BOOL(0, "kernel-callchain", &o->kernel_callchain,
			    "keep the kernel part of call chains (on)"),
		PP_OPT_BOOL(0, "exclude-user", &o->exclude_user, "do not count in user mode"),
		PP_OPT_BOOL(0, "exclude-kernel", &o->exclude_kernel, "do not count in kernel mode"),
		PP_OPT_GROUP("Where"),
		PP_OPT_BOOL('a', "all-cpus", &o->all_cpus, "every CPU, every task (the default)"),
		PP_OPT_STRING('C', "cpus", &o->cpus, "cpus", "only these CPUs: 0,2-3"),
		PP_OPT_STRING('p', "pids", &o->pids, "pids",
			      "these processes, new threads included"),
		PP_OPT_STRING('t', "tids", &o->tids, "tids", "these threads"),
		PP_OPT_STRING(0, "cgroups", &o->cgroups, "names",
			      "tasks of these cgroups (under /sys/fs/cgroup)"),
		PP_OPT_GROUP("How"),
		PP_OPT_INT('m', "mmap-pages", &o->mmap_pages, "pages",
			   "ring buffer pages per CPU, a power of 2 (256; 1024 with -g on whole CPUs;"
			   " 2048 with --call-graph dwarf)"),
		PP_OPT_INT(0, "watermark", &o->watermark, "pct",
			   "wake up when a ring is this % full (50)"),
		{ .type = PP_OPT_T_INT, .long_name = "command-stdout", .value = &o->command_stdout,
		  .argh = "fd", .flags = PP_OPT_HIDDEN,
		  .help = "the command's standard output (with -o -: stderr unless given; pp's)" },
		PP_OPT_STRING('o', "output", &o->output, "file",
			      "capture file (" REC_DEFAULT_OUTPUT "); - for standard output"),
		PP_OPT_TIME(0, "duration", &o->duration_ns, 1000000000ull,
			    "stop after this long (s)"),
		PP_OPT_INT(0, "zstd-level", &o->zstd_level, "n",
			   "zstd level, negative for faster (3; -3 with --call-graph dwarf)"),
		{ .type = PP_OPT_T_CALLBACK, .long_name = "kallsyms", .value = &o->kallsyms,
		  .argh = "yes|no", .flags = PP_OPT_OPTARG, .defarg = "yes", .cb = kallsyms_cb,
		  .help = "store kernel symbols (default: when kernel addresses are recorded)" },
		PP_OPT_BOOL(0, "sideband", &o->sideband,
			    "also record ksymbol, bpf, cgroup, text_poke records"),
		PP_OPT_BOOL(0, "no-realtime", &o->no_realtime,
			    "do not run the ring reader thread at real-time priority"),
		PP_OPT_BOOL(0, "no-ftrace", &o->no_ftrace,
			    "read tracepoints through perf rings, not a tracefs instance"),
		PP_OPT_BOOL(0, "ftrace-mono", &o->ftrace_mono,
			    "the tracefs instance stamps events with CLOCK_MONOTONIC itself"),
		PP_OPT_SIZE(0, "spill-max", &o->spill_max,
			    "spill file for tracefs pages while CPUs are busy: SIZE at most (512M; 0 off)"),
		PP_OPT_SIZE(0, "merge-max", &o->merge_max,
			    "memory for records waiting to be put in time order (3M; at least 1M)"),
		PP_OPT_COUNT('v', "verbose", &o->verbose,
			     "more messages; per-CPU losses in the summary"),
		PP_OPT_COUNT('q', "quiet", &quiet,
			     "no summary or informational messages (-qq: no warnings either)"),
		PP_OPT_BOOL('V', "version", &version, "print the version and the git commit"),
		PP_OPT_GROUP("Production (docs/production.md)"),
		PP_OPT_SIZE(0, "max-size", &o->max_size,
			    "stop when the capture reaches SIZE; with --rotate, each file's size"),
		PP_OPT_INT(0, "rotate", &o->rotate, "n",
			   "write FILE.0, FILE.1 ... and keep the newest N (files or dumps)"),
		PP_OPT_SIZE(0, "flight-recorder", &o->flight_size,
			    "keep the newest SIZE of events in memory; FILE.N on SIGUSR1 and at the end"),
		PP_OPT_STRING(0, "trigger", &o->trigger, "EVENT/filter/",
			      "the first such event ends the recording (or dumps) --post-trigger later"),
		PP_OPT_TIME(0, "post-trigger", &o->post_trigger_ns, 1000000000ull,
			    "how long to go on after the trigger (s; 0)"),
		PP_OPT_TIME(0, "stat-interval", &o->stat_interval_ns, 1000000000ull,
			    "with -v: pp-record's own CPU, RSS and rates this often (s; 1)"),
		PP_OPT_GROUP("Check (docs/production.md)"),
		PP_OPT_BOOL(0, "check", &o->check,
			    "record nothing: what this machine allows, and whether this records here"),
		PP_OPT_STRING(0, "format", &format, "text|json", "--check's output (text)"),
		PP_OPT_END(),
	};

	status = parse_args(&s, argc, argv, opts, &quiet, &version);
	if (status < 0 && o->check)
		return record_check(&s, check_line, format);
	free(check_line);
	if (status >= 0)
		return status;
	install_signals();
	if (add_events(&s))
		return 2;
	status = record_run(&s);
	free(o->argv);
	rec_session_release(&s);
	rec_prod_free(&s);
	rec_selfstat_free(&s);
	return status;
}
