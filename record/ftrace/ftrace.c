/* SPDX-License-Identifier: MIT */
/*
 * ftrace.c - the tracefs-instance event source (see ftrace.h for why and how).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/front-env.h"
#include "common/log.h"
#include "format/format.h"
#include "record/ftrace/clocksync.h"
#include "record/ftrace/ftrace-page.h"
#include "record/ftrace/ftrace.h"
#include "record/perf/filter.h"
#include "record/ring/sideband.h"
#include "record/session.h"

#define INSTANCE_PREFIX "pp-"
#define CLOCK_SUFFIX "-clock"		/* the clock-mapping instance: pp-PID-clock */
#define FTRACE_SUBBUF_KB 16u		/* page_size() */
#define FTRACE_SUBBUF_TEXT "16"

/*
 * thread id -> process id, open addressing; 0 is an empty slot (tid 0 is
 * never stored).  A followed thread (a -p/-t/-- COMMAND target or a
 * descendant: perf's inherited events would record it) has TG_FOLLOW in its pid.
 */
#define TG_FOLLOW (1u << 31)
struct tgid_map {
	uint32_t *tid, *pid;
	size_t cap, nr;
};

struct rec_ftrace {
	char rel[64];			/* "instances/pp-PID" */
	int *fds;			/* per target CPU index: trace_pipe_raw, or -1 */
	size_t nr_fds;
	size_t page_sz;
	int32_t *by_type;		/* common_type -> evsel index, -1 */
	uint32_t nr_types;
	uint64_t *announced;		/* per CPU index: drops queued as LOST records */
	uint64_t *emitted;		/* per CPU index: ... of which written (rec_emit) */
	struct tgid_map tg;
	uint8_t *rec;			/* one REC_SYNTH_FTRACE_EVENT being queued */
	bool exec_seen;			/* -- COMMAND: its exec happened (events count from there) */
	bool per_task;			/* keep only the events of followed threads */
	int guard_fd;			/* write end of the guardian's pipe, -1 */
	pid_t guard_pid;		/* the guardian, 0 if none */
	uint64_t nr_pages, nr_events, nr_bad, nr_unknown, nr_pre_exec, nr_foreign;
	bool drop_own;			/* system-wide: pp-record's own events dropped here */
	uint32_t own_pid, notrace_pid;	/* ... of this process, of PP_NOTRACE_PID's */
	uint64_t nr_own;
	int32_t *other_off;		/* per evsel: offset of next_pid/pid (switch, wakeup), -1 */
	bool local_clock;		/* trace_clock "local", mapped by clk (else "mono") */
	bool clock_inst;		/* instances/pp-PID-clock was made */
	struct rec_clocksync clk;
	uint64_t *last_ns;		/* per CPU index: the last event time given out */
	int64_t drain_off;		/* the drain thread's copy of the latest offset */
};

/* --- thread -> process ---------------------------------------------------- */

static inline size_t tg_slot(const struct tgid_map *m, uint32_t tid)
{
	return (size_t)((tid * 0x9e3779b1u) & (uint32_t)(m->cap - 1));
}

static void tg_put(struct tgid_map *m, uint32_t tid, uint32_t pid)
{
	size_t i;

	if (!tid)
		return;
	if (2 * (m->nr + 1) > m->cap) {
		struct tgid_map n = { .cap = m->cap ? m->cap * 2 : 1024 };

		n.tid = pp_xcalloc(n.cap, sizeof(*n.tid));
		n.pid = pp_xcalloc(n.cap, sizeof(*n.pid));
		for (size_t k = 0; k < m->cap; k++)
			if (m->tid[k])
				tg_put(&n, m->tid[k], m->pid[k]);
		free(m->tid);
		free(m->pid);
		*m = n;
	}
	for (i = tg_slot(m, tid); m->tid[i] && m->tid[i] != tid; i = (i + 1) & (m->cap - 1))
		;
	if (!m->tid[i])
		m->nr++;
	m->tid[i] = tid;
	m->pid[i] = pid;
}

static bool tg_get(const struct tgid_map *m, uint32_t tid, uint32_t *pid)
{
	if (!m->cap)
		return false;
	for (size_t i = tg_slot(m, tid); m->tid[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->tid[i] == tid) {
			*pid = m->pid[i];
			return true;
		}
	}
	return false;
}

/* A thread neither the snapshot nor a FORK record showed: ask /proc (once). */
static uint32_t proc_tgid(uint32_t tid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tid;		/* gone: a thread of its own process is the best guess */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return tid;
	buf[n] = '\0';
	const char *t = strstr(buf, "\nTgid:");

	return t ? (uint32_t)strtoul(t + 6, NULL, 10) : tid;
}

/* The process of @tid, with TG_FOLLOW when it is followed. */
static uint32_t tgid_of(struct rec_ftrace *f, uint32_t tid)
{
	uint32_t pid;

	if (!tid)
		return 0;
	if (tg_get(&f->tg, tid, &pid))
		return pid;
	pid = proc_tgid(tid);
	tg_put(&f->tg, tid, pid);
	return pid;
}

void rec_ftrace_task(struct rec_session *s, uint32_t pid, uint32_t tid)
{
	uint32_t old;

	if (!s->ftrace)
		return;
	if (tg_get(&s->ftrace->tg, tid, &old))
		pid |= old & TG_FOLLOW;	/* the snapshot after the set-up */
	tg_put(&s->ftrace->tg, tid, pid);
}

void rec_ftrace_fork(struct rec_session *s, uint32_t pid, uint32_t tid, uint32_t ptid)
{
	uint32_t parent = 0;

	/* a child of a followed thread is followed (perf's inherit, ftrace's event-fork) */
	if (s->ftrace && s->ftrace->per_task)
		tg_get(&s->ftrace->tg, ptid, &parent);
	if (s->ftrace)
		tg_put(&s->ftrace->tg, tid, pid | (parent & TG_FOLLOW));
}

void rec_ftrace_exec(struct rec_session *s, uint32_t pid)
{
	if (s->ftrace && s->tgt.kind == REC_TGT_WORKLOAD && pid == (uint32_t)s->wl.pid)
		s->ftrace->exec_seen = true;
}

/* --- instance set-up ---------------------------------------------------- */

static int inst_write(const struct rec_session *s, const char *file, const char *text)
{
	char rel[1024];

	snprintf(rel, sizeof(rel), "%s/%s", s->ftrace->rel, file);
	return rec_tracefs_append(&s->tfs, rel, text);
}

static bool eligible(const struct rec_session *s, const struct rec_evsel *e)
{
	(void)s;
	return e->kind == PPF_EV_TRACEPOINT && e->tp_id && !(e->flags & PPF_EVF_STACK) &&
	       !e->counting &&
	       strchr(e->name, ':');
}

/* tracing_cpumask: comma-separated 32-bit hex groups, the highest first */
static void cpumask_text(const struct rec_session *s, char *out, size_t sz)
{
	int max = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->tgt.nr_cpus; i++)
		if (s->tgt.cpus[i] > max)
			max = s->tgt.cpus[i];
	out[0] = '\0';
	for (int g = max / 32; g >= 0; g--) {
		uint32_t w = 0;

		for (size_t i = 0; i < s->tgt.nr_cpus; i++) {
			int c = s->tgt.cpus[i];

			if (c / 32 == g && !(s->tgt.sideband_only && s->tgt.sideband_only[i]))
				w |= 1u << (c % 32);
		}
		n += (size_t)snprintf(out + n, n < sz ? sz - n : 0, "%s%x", n ? "," : "", w);
	}
}

static int pid_filter(struct rec_session *s)
{
	struct pp_buf b = PP_BUF_INIT;
	int rc;

	for (size_t i = 0; i < s->tgt.nr_tids; i++)
		pp_buf_addf(&b, "%s%d", i ? " " : "", (int)s->tgt.tids[i]);
	pp_buf_addch(&b, '\0');
	rc = inst_write(s, "set_event_pid", b.data);
	pp_buf_release(&b);
	return rc;
}

/*
 * pp-record's own events stay out: each read of a page is a syscall, and
 * with raw_syscalls recorded the reads would be recorded too.  Live, pp
 * names its pp-analyze in PP_NOTRACE_PID: it stays out the same way.
 *
 * System-wide, the events of those processes are dropped here, when they
 * are written (rec_ftrace_emit()) - those of process context only: an
 * interrupt's event (a timer's expiry, a packet's arrival) names the task it
 * happened to interrupt, and dropping it lost one run of the watchdog's
 * hrtimer whenever the drain thread was on that CPU (a lockup foretold on a
 * healthy machine).  The kernel's own way, a notrace pid
 * list, would cost every traced task: with a pid list the instance hooks
 * sched_switch and sched_wakeup to track, on each switch, whether the next
 * task is to be ignored - about 10% more of a context-switch storm's own
 * CPU time than the events alone (docs/performance.md).  The feedback is
 * small: a drain round is a few system calls a CPU.
 *
 * With per-task targets the instance has a pid list anyway (set_event_pid),
 * so the main thread goes into set_event_notrace_pid before it starts the
 * drain thread, and event-fork adds the threads it creates (and the children
 * of the followed tasks to set_event_pid); the kernel then also leaves out
 * pp-record's own context switches, either side (seen on 6.18), and the
 * commands a live analyzer's expressions run (system()).
 */
static void exclude_self(struct rec_session *s)
{
	const char *more = getenv(PP_ENV_NOTRACE_PID);	/* pp's live analyzer */
	char tid[64];
	int n = 0;

	if (more && (n = atoi(more)) < 0)
		n = 0;
	if (s->tgt.kind == REC_TGT_SYSTEM || s->tgt.kind == REC_TGT_CGROUP) {
		struct rec_ftrace *f = s->ftrace;

		f->drop_own = true;
		f->own_pid = (uint32_t)getpid();
		f->notrace_pid = (uint32_t)n;
		/* a switch or a wakeup is dropped when both its tasks are theirs (own_other()) */
		f->other_off = pp_xmalloc((s->nr_evsels ? s->nr_evsels : 1) * sizeof(*f->other_off));
		for (size_t i = 0; i < s->nr_evsels; i++) {
			const struct rec_evsel *e = &s->evsels[i];
			const char *want = NULL;
			struct pp_field *fl = NULL;
			size_t nr = 0;

			f->other_off[i] = -1;
			if (!e->format || strncmp(e->name, "sched:", 6))
				continue;
			if (!strcmp(e->name + 6, "sched_switch"))
				want = "next_pid";
			else if (!strncmp(e->name + 6, "sched_wak", 9))
				want = "pid";
			if (!want || rec_format_fields(e->format, &fl, &nr))
				continue;
			for (size_t k = 0; k < nr; k++)
				if (!strcmp(fl[k].name, want) && fl[k].size == 4)
					f->other_off[i] = (int32_t)fl[k].offset;
			rec_format_fields_free(fl, nr);
		}
		return;
	}
	snprintf(tid, sizeof(tid), "%d", (int)syscall(SYS_gettid));
	if (n > 0)
		snprintf(tid + strlen(tid), sizeof(tid) - strlen(tid), " %d", n);
	if (inst_write(s, "options/event-fork", "1") ||
	    inst_write(s, "set_event_notrace_pid", tid))
		pp_debug(1, "tracefs instance: cannot leave pp-record's own events out (before Linux 5.9)");
}

/* Filters and enables; an event the instance refuses stays on perf. */
static void move_events(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;

	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];
		char rel[512];
		const char *colon;

		if (!eligible(s, e))
			continue;
		colon = strchr(e->name, ':');
		snprintf(rel, sizeof(rel), "events/%.*s/%s", (int)(colon - e->name), e->name,
			 colon + 1);
		if (e->filter) {
			char frel[600];

			snprintf(frel, sizeof(frel), "%s/filter", rel);
			if (inst_write(s, frel, e->filter) == 0) {
				e->flags |= PPF_EVF_KERNEL_FILTER;
			} else {
				e->flags |= PPF_EVF_USER_FILTER;
				/* the analyzer's results are the same: said with -v */
				if (pp_log_level >= PP_LOG_VERBOSE)
					pp_warn("%s: the kernel cannot apply filter '%s'; recording unfiltered, the analyzer will apply it",
						e->name, e->filter);
			}
		}
		strcat(rel, "/enable");
		if (inst_write(s, rel, "1")) {
			pp_debug(1, "%s: the tracefs instance refuses it; read through perf", e->name);
			e->flags &= ~(uint32_t)(PPF_EVF_KERNEL_FILTER | PPF_EVF_USER_FILTER);
			continue;
		}
		if (e->tp_id >= f->nr_types) {
			uint32_t n = e->tp_id + 64;

			f->by_type = pp_xrealloc(f->by_type, n * sizeof(*f->by_type));
			for (uint32_t k = f->nr_types; k < n; k++)
				f->by_type[k] = -1;
			f->nr_types = n;
		}
		f->by_type[e->tp_id] = (int32_t)i;
		e->ftrace = true;
	}
}

static size_t page_size(struct rec_session *s)
{
	char rel[128], *text = NULL;
	size_t kb = 0;

	snprintf(rel, sizeof(rel), "%s/buffer_subbuf_size_kb", s->ftrace->rel);
	if (rec_tracefs_read_dup(&s->tfs, rel, &text) == 0)
		kb = strtoul(text, NULL, 10);
	free(text);
	if (kb > 32 && inst_write(s, "buffer_subbuf_size_kb", "4") == 0)
		kb = 4;		/* a FIFO record holds at most 64 KiB */
	/*
	 * Larger sub-buffers: each page handed over costs the drain thread a
	 * system call and the kernel a page swap, whatever it holds - 16 KiB
	 * pages took 40% less of the drain thread's CPU than 4 KiB ones on a
	 * syscall storm, CPU taken from the workload.  Kept only with 32 of
	 * them a CPU or more (the total size stays; Linux 6.8+, else as is).
	 */
	if (kb && kb < FTRACE_SUBBUF_KB &&
	    rec_ftrace_buffer_size(s) >= 32u * FTRACE_SUBBUF_KB * 1024u &&
	    inst_write(s, "buffer_subbuf_size_kb", FTRACE_SUBBUF_TEXT) == 0)
		kb = FTRACE_SUBBUF_KB;
	if (!kb || kb > 32)
		return (size_t)sysconf(_SC_PAGESIZE);
	return kb * 1024;
}

/* This parser knows the 64-bit page header: data at offset 16. */
static bool header_known(struct rec_session *s)
{
	char *text = NULL;
	bool ok;

	if (rec_tracefs_read_dup(&s->tfs, "events/header_page", &text))
		return false;
	ok = strstr(text, "commit;\toffset:8;\tsize:8;") && strstr(text, "data;\toffset:16;");
	free(text);
	return ok;
}

/* rmdir an instance; the kernel refuses while a file of it is open: retry every 10 ms */
static void rmdir_retry(const char *dir, int tries)
{
	for (int i = 0; i < tries && rmdir(dir) && errno == EBUSY; i++)
		usleep(10000);
}

/*
 * Unlike perf events, a tracefs instance outlives its process: a SIGKILLed
 * pp-record would leave the kernel tracing into it.  So a guardian child,
 * forked before any other file is open, waits for the end of a pipe whose
 * write end only pp-record holds; when it reads EOF (pp-record exited, or
 * was killed), it turns tracing off and removes the instance, which the
 * normal exit has already done.  It ignores terminal signals: Ctrl-C must
 * not take it down before the cleanup.
 */
static void guard_main(const char *root, const char *rel, int rfd)
{
	char path[600], c;
	int fd;

	int null = open("/dev/null", O_RDWR);

	for (int i = 0; i < 3 && null >= 0; i++)	/* not a pipe's reader waiting for EOF */
		dup2(null, i);
	for (int i = 3; i < 1024; i++)
		if (i != rfd)
			close(i);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	prctl(PR_SET_NAME, "pp-record-guard");
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	snprintf(path, sizeof(path), "%s/%s/tracing_on", root, rel);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0)
			(void)0;	/* gone already */
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	rmdir_retry(path, 100);
	snprintf(path, sizeof(path), "%s/%s" CLOCK_SUFFIX, root, rel);
	rmdir_retry(path, 100);
	_exit(0);
}

static void start_guard(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;
	int p[2];
	pid_t pid;

	f->guard_fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0)
		guard_main(s->tfs.root, f->rel, p[0]);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		pp_debug(1, "no guardian for %s: %s", f->rel, strerror(errno));
		return;
	}
	f->guard_fd = p[1];
	f->guard_pid = pid;
}

/* Close the guardian's pipe and reap it (it exits at once: the instance is gone). */
static void stop_guard(struct rec_ftrace *f)
{
	if (f->guard_fd >= 0)
		close(f->guard_fd);
	f->guard_fd = -1;
	for (int i = 0; f->guard_pid > 0 && i < 300; i++) {
		pid_t r = waitpid(f->guard_pid, NULL, WNOHANG);

		if (r == f->guard_pid || (r < 0 && errno != EINTR))
			break;
		usleep(10000);
	}
	f->guard_pid = 0;
}

static int open_fds(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;

	f->nr_fds = s->tgt.nr_cpus;
	f->fds = pp_xcalloc(f->nr_fds, sizeof(*f->fds));
	f->announced = pp_xcalloc(f->nr_fds, sizeof(*f->announced));
	f->emitted = pp_xcalloc(f->nr_fds, sizeof(*f->emitted));
	for (size_t i = 0; i < f->nr_fds; i++) {
		char path[512];

		f->fds[i] = -1;
		if (s->tgt.sideband_only && s->tgt.sideband_only[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s/per_cpu/cpu%d/trace_pipe_raw", s->tfs.root,
			 f->rel, s->tgt.cpus[i]);
		f->fds[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (f->fds[i] < 0)
			return -errno;
	}
	return 0;
}

static void unmove_events(struct rec_session *s)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];

		if (e->ftrace)
			e->flags &= ~(uint32_t)(PPF_EVF_KERNEL_FILTER | PPF_EVF_USER_FILTER);
		e->ftrace = false;
	}
}

static void remove_instance(const char *root, const char *rel);

static void remove_clock_instance(struct rec_session *s)
{
	char rel[128];

	if (!s->ftrace->clock_inst)
		return;
	snprintf(rel, sizeof(rel), "%s" CLOCK_SUFFIX, s->ftrace->rel);
	remove_instance(s->tfs.root, rel);
	s->ftrace->clock_inst = false;
}

/*
 * The instance's clock: "local" mapped to CLOCK_MONOTONIC through a second
 * instance, instances/pp-PID-clock (clocksync.h: it costs the traced tasks
 * less than "mono"); "mono" where that cannot be set up or the CPUs'
 * clocks disagree.
 */
static int set_clock(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;
	char dir[600], rel[128];
	int rc;

	if (s->opts.ftrace_mono)
		return inst_write(s, "trace_clock", "mono");
	snprintf(rel, sizeof(rel), "%s" CLOCK_SUFFIX, f->rel);
	snprintf(dir, sizeof(dir), "%s/%s", s->tfs.root, rel);
	if (mkdir(dir, 0700)) {
		rc = -errno;
	} else {
		f->clock_inst = true;
		snprintf(dir, sizeof(dir), "%s/buffer_size_kb", rel);
		rc = rec_tracefs_append(&s->tfs, dir, "8");
		if (!rc)
			rc = rec_clocksync_open(&f->clk, &s->tfs, rel, (size_t)sysconf(_SC_PAGESIZE));
		if (rc == -ERANGE)
			pp_debug(1, "the CPUs' sched_clock() disagree by %lld ns: tracefs clock mono",
				 (long long)f->clk.skew_ns);
		if (!rc && (rc = inst_write(s, "trace_clock", "local")) != 0)
			rec_clocksync_close(&f->clk);
	}
	if (!rc) {
		f->local_clock = true;
		f->drain_off = rec_clocksync_last(&f->clk);
		pp_debug(1, "tracefs clock local, %lld ns from CLOCK_MONOTONIC (CPUs within %lld ns, bracket %llu ns, marker bias %lld ns)",
			 (long long)f->drain_off, (long long)f->clk.skew_ns,
			 (unsigned long long)f->clk.bracket_ns, (long long)f->clk.bias_ns);
		return 0;
	}
	if (rc != -ERANGE)
		pp_debug(1, "no mapping of the local clock (%s): tracefs clock mono", strerror(-rc));
	remove_clock_instance(s);
	return inst_write(s, "trace_clock", "mono");
}

int rec_ftrace_setup(struct rec_session *s)
{
	struct rec_ftrace *f;
	char kb[32], mask[512], dir[512], m[512];
	bool any = false;
	int rc;

	if (s->opts.no_ftrace || s->tgt.kind == REC_TGT_CGROUP)
		return 0;
	for (size_t i = 0; i < s->nr_evsels && !any; i++)
		any = eligible(s, &s->evsels[i]);
	if (!any || rec_tracefs_need(&s->tfs, m, sizeof(m)) || !header_known(s))
		return 0;
	f = pp_xcalloc(1, sizeof(*f));
	snprintf(f->rel, sizeof(f->rel), "instances/" INSTANCE_PREFIX "%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", s->tfs.root, f->rel);
	if (mkdir(dir, 0700)) {
		pp_debug(1, "cannot make tracefs instance %s (%s): tracepoints go through perf", dir,
			 strerror(errno));
		free(f);
		return 0;
	}
	s->ftrace = f;
	start_guard(s);
	snprintf(kb, sizeof(kb), "%ld",
		 (long)rec_ftrace_buffer_size(s) / 1024);
	rc = inst_write(s, "tracing_on", "0");
	if (!rc)
		rc = set_clock(s);
	if (!rc)
		rc = inst_write(s, "options/overwrite", "0");
	if (!rc)
		rc = inst_write(s, "buffer_size_kb", kb);
	if (!rc) {
		snprintf(mask, sizeof(mask), "%d", s->opts.watermark / 2 ? s->opts.watermark / 2 : 1);
		inst_write(s, "buffer_percent", mask);	/* absent before Linux 5.0: fine */
	}
	if (!rc && s->tgt.kind == REC_TGT_SYSTEM) {
		cpumask_text(s, mask, sizeof(mask));
		rc = inst_write(s, "tracing_cpumask", mask);
	}
	if (!rc)
		exclude_self(s);
	if (!rc && (s->tgt.kind == REC_TGT_THREADS || s->tgt.kind == REC_TGT_WORKLOAD)) {
		rc = pid_filter(s);
		f->per_task = true;
		for (size_t i = 0; i < s->tgt.nr_tids; i++) {
			uint32_t tid = (uint32_t)s->tgt.tids[i];

			tg_put(&f->tg, tid, proc_tgid(tid) | TG_FOLLOW);
		}
	}
	if (!rc) {
		f->page_sz = page_size(s);
		move_events(s);
		rc = open_fds(s);
	}
	if (rc) {
		pp_debug(1, "tracefs instance %s: %s; tracepoints go through perf", f->rel,
			 strerror(-rc));
		unmove_events(s);
		rec_ftrace_release(s);
		return 0;
	}
	f->rec = pp_xmalloc(f->page_sz + 64);
	f->last_ns = pp_xcalloc(f->nr_fds ? f->nr_fds : 1, sizeof(*f->last_ns));
	pp_debug(1, "tracepoints read from tracefs %s (%zu-byte pages, clock %s)", dir, f->page_sz,
		 f->local_clock ? "local" : "mono");
	return 0;
}

void rec_ftrace_enable(struct rec_session *s, bool on)
{
	if (s->ftrace && inst_write(s, "tracing_on", on ? "1" : "0"))
		pp_warn("cannot turn tracing %s in %s", on ? "on" : "off", s->ftrace->rel);
}

const int *rec_ftrace_fds(const struct rec_session *s)
{
	return s->ftrace ? s->ftrace->fds : NULL;
}

size_t rec_ftrace_page_size(const struct rec_session *s)
{
	return s->ftrace ? s->ftrace->page_sz : 0;
}

/*
 * Twice a perf ring: the instance carries the bulk of the events (a
 * syscall storm writes 64 MB/s a CPU here; 2 MB is 30 ms of it).
 */
size_t rec_ftrace_buffer_size(const struct rec_session *s)
{
	return 2 * (size_t)s->opts.mmap_pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* The merge queue of CPU index @ci's events (after the rings' and our own). */
static size_t ftrace_queue(const struct rec_session *s, size_t ci)
{
	return s->tgt.nr_cpus + 1 + ci;
}

/* --- events ----------------------------------------------------------------- */

static void push_lost(struct rec_session *s, size_t ci, uint64_t time_ns, uint64_t n)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint64_t sid[3];	/* tid, time, identifier: the trailer */
	} r = { { PERF_RECORD_LOST, REC_LOST_MISC_FTRACE, sizeof(r) }, 0, n, { 0, time_ns, 0 } };

	rec_merge_push(&s->merge, ftrace_queue(s, ci), time_ns, -1, s->tgt.cpus[ci], &r.h);
}

/* A page time on CLOCK_MONOTONIC, never before the last one of CPU index @ci. */
static uint64_t mono_time(struct rec_ftrace *f, size_t ci, uint64_t ts)
{
	if (!f->local_clock)
		return ts;
	ts = rec_clocksync_mono(&f->clk, ts);
	if (ts < f->last_ns[ci])
		ts = f->last_ns[ci];	/* a newer point moved the offset back a little */
	f->last_ns[ci] = ts;
	return ts;
}

void rec_ftrace_tick(struct rec_session *s, uint64_t now_ns)
{
	struct rec_ftrace *f = s->ftrace;

	if (!f || !f->local_clock)
		return;
	rec_clocksync_tick(&f->clk, now_ns);
	__atomic_store_n(&f->drain_off, rec_clocksync_last(&f->clk), __ATOMIC_RELAXED);
}

const int64_t *rec_ftrace_drain_offset(const struct rec_session *s)
{
	return s->ftrace && s->ftrace->local_clock ? &s->ftrace->drain_off : NULL;
}

void rec_ftrace_page(struct rec_session *s, size_t ci, const uint8_t *page, size_t len)
{
	struct rec_ftrace *f = s->ftrace;
	struct perf_event_header *h;
	struct rec_ftrace_ev *fe;
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;

	if (!f || ci >= f->nr_fds || !rec_ftpage_open(&it, page, len)) {
		if (f)
			f->nr_bad++;
		return;
	}
	f->nr_pages++;
	if (it.missed) {
		uint64_t n = it.nr_missed ? it.nr_missed : 1;

		f->announced[ci] += n;
		push_lost(s, ci, mono_time(f, ci, it.ts), n);
	}
	h = (struct perf_event_header *)f->rec;
	fe = (struct rec_ftrace_ev *)(h + 1);
	while (rec_ftpage_next(&it, &ev)) {
		uint16_t type;
		int32_t tid;
		size_t sz;

		if (ev.len < 8 || ev.len > f->page_sz) {
			f->nr_bad++;
			continue;
		}
		memcpy(&type, ev.data, sizeof(type));
		if (type >= f->nr_types || f->by_type[type] < 0) {
			f->nr_unknown++;
			continue;
		}
		memcpy(&tid, ev.data + 4, sizeof(tid));
		sz = sizeof(*h) + sizeof(*fe) + ((ev.len + 7) & ~(size_t)7);
		h->type = REC_SYNTH_FTRACE_EVENT;
		h->misc = 0;
		h->size = (uint16_t)sz;
		fe->tid = (uint32_t)tid;
		fe->raw_sz = ev.len;
		memcpy(fe + 1, ev.data, ev.len);
		rec_merge_push(&s->merge, ftrace_queue(s, ci), mono_time(f, ci, ev.time_ns),
			       f->by_type[type],
			       s->tgt.cpus[ci], h);
		f->nr_events++;
	}
	if (it.bad)
		f->nr_bad++;
}

/*
 * Every tracefs record starts with the kernel's struct trace_entry: type u16,
 * flags u8, preempt_count u8, pid s32.  The flags say in which context it ran.
 */
#define TRACE_ENTRY_FLAGS_OFF 2u
#define TRACE_FLAG_HARDIRQ 0x08u
#define TRACE_FLAG_SOFTIRQ 0x10u	/* serving one, not merely bh disabled (0x80) */
#define TRACE_FLAG_NMI 0x40u

/* The event ran in an interrupt of whatever task was current: none of its doing. */
static bool in_interrupt(const uint8_t *raw, uint32_t raw_sz)
{
	return raw_sz > TRACE_ENTRY_FLAGS_OFF &&
	       (raw[TRACE_ENTRY_FLAGS_OFF] & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ | TRACE_FLAG_NMI));
}

/* @pid is pp-record's, its guardian's or PP_NOTRACE_PID's (drop_own) */
static bool own_task(const struct rec_ftrace *f, uint32_t pid)
{
	return pid && (pid == f->own_pid || pid == f->notrace_pid || pid == (uint32_t)f->guard_pid);
}

/*
 * An event of one of those tasks is theirs alone - but for a switch or a wakeup,
 * which is also the other task's: it goes only when that task, the one switched
 * to or woken (@raw at other_off), is one of them too, as the kernel's pid list
 * decides (a switch out of pp-record is the next task's switch in).
 */
static bool own_other(struct rec_ftrace *f, int evsel, const uint8_t *raw, uint32_t raw_sz)
{
	int32_t tid;

	if (!f->other_off || evsel < 0 || f->other_off[evsel] < 0)
		return true;
	if ((uint32_t)f->other_off[evsel] + 4 > raw_sz)
		return false;
	memcpy(&tid, raw + f->other_off[evsel], sizeof(tid));
	return tid > 0 && own_task(f, tgid_of(f, (uint32_t)tid) & ~TG_FOLLOW);
}

int rec_ftrace_emit(struct rec_session *s, const struct rec_mev *e)
{
	const struct perf_event_header *h = rec_mev_rec(e);
	const struct rec_ftrace_ev *fe = (const void *)(h + 1);
	struct rec_evsel *ev = &s->evsels[e->evsel];
	struct ppf_sample smp = { 0 };
	int rc;

	if (!s->ftrace || h->size < sizeof(*h) + sizeof(*fe) ||
	    fe->raw_sz > h->size - sizeof(*h) - sizeof(*fe))
		return 0;
	if (s->tgt.kind == REC_TGT_WORKLOAD && !s->ftrace->exec_seen) {
		s->ftrace->nr_pre_exec++;	/* perf's enable_on_exec would not have seen it */
		return 0;
	}
	smp.time_ns = e->time_ns;
	smp.id = ev->id;
	smp.cpu = e->cpu;
	smp.tid = fe->tid;
	smp.pid = tgid_of(s->ftrace, fe->tid);
	if (s->ftrace->per_task) {
		/*
		 * The instance's pid filter also keeps a sched_switch to a followed
		 * thread and a wakeup of one, done by another task: perf's
		 * per-task events see only what the thread itself does.
		 */
		if (!(smp.pid & TG_FOLLOW)) {
			s->ftrace->nr_foreign++;
			return 0;
		}
	}
	smp.pid &= ~TG_FOLLOW;
	if (s->ftrace->drop_own && own_task(s->ftrace, smp.pid) &&
	    !in_interrupt((const uint8_t *)(fe + 1), fe->raw_sz) &&
	    own_other(s->ftrace, e->evsel, (const uint8_t *)(fe + 1), fe->raw_sz)) {
		s->ftrace->nr_own++;
		return 0;
	}
	smp.period = 1;
	smp.raw = (const uint8_t *)(fe + 1);
	smp.raw_sz = fe->raw_sz;
	smp.flags = PPF_SF_RAW;
	rc = ppf_write_sample(s->w, &smp);
	if (!rc) {
		ev->nr_samples++;
		s->nr_samples++;
	}
	return rc;
}

void rec_ftrace_lost_emitted(struct rec_session *s, size_t ci, uint64_t n)
{
	if (s->ftrace && ci < s->ftrace->nr_fds)
		s->ftrace->emitted[ci] += n;
}

uint64_t rec_ftrace_lost_on(const struct rec_session *s, size_t ci)
{
	return s->ftrace && ci < s->ftrace->nr_fds ? s->ftrace->emitted[ci] : 0;
}

/* --- the end ------------------------------------------------------------- */

static uint64_t stat_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl))
			return strtoull(p + kl, NULL, 10);
	return 0;
}

void rec_ftrace_losses(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;

	for (size_t i = 0; f && i < f->nr_fds; i++) {
		char rel[256], *text = NULL;
		uint64_t n;

		if (f->fds[i] < 0)
			continue;
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", f->rel, s->tgt.cpus[i]);
		if (rec_tracefs_read_dup(&s->tfs, rel, &text))
			continue;
		n = stat_value(text, "overrun:") + stat_value(text, "dropped events:");
		free(text);
		if (n > f->announced[i]) {
			push_lost(s, i, s->end_ns, n - f->announced[i]);
			f->announced[i] = n;
		}
	}
	if (f)
		pp_debug(1, "tracefs pages: %llu, events %llu; malformed %llu, of other events %llu, before the exec %llu, of other tasks %llu, of pp-record %llu",
			 (unsigned long long)f->nr_pages, (unsigned long long)f->nr_events,
			 (unsigned long long)f->nr_bad, (unsigned long long)f->nr_unknown,
			 (unsigned long long)f->nr_pre_exec, (unsigned long long)f->nr_foreign,
			 (unsigned long long)f->nr_own);
}

int rec_ftrace_write_stats(struct rec_session *s)
{
	const struct rec_ftrace *f = s->ftrace;
	int rc = 0;

	if (!f)
		return 0;
#define STAT(k, v) do { if (!rc) rc = ppf_write_stat(s->w, k, (uint64_t)(v)); } while (0)
	STAT("rec.ftrace_pages", f->nr_pages);
	STAT("rec.ftrace_events", f->nr_events);
	STAT("rec.ftrace_malformed", f->nr_bad);
	STAT("rec.ftrace_pre_exec", f->nr_pre_exec);
	STAT("rec.ftrace_other_tasks", f->nr_foreign);
	STAT("rec.ftrace_own", f->nr_own);
#undef STAT
	return rc;
}

static void remove_instance(const char *root, const char *rel)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	rmdir_retry(dir, 10);
}

void rec_ftrace_release(struct rec_session *s)
{
	struct rec_ftrace *f = s->ftrace;

	if (!f)
		return;
	for (size_t i = 0; i < f->nr_fds; i++)
		if (f->fds[i] >= 0)
			close(f->fds[i]);
	if (s->tfs.root) {
		inst_write(s, "tracing_on", "0");
		remove_instance(s->tfs.root, f->rel);
	}
	if (f->local_clock) {
		pp_debug(1, "local clock to CLOCK_MONOTONIC: %zu points (%u failed), offset moved %lld ns, widest bracket %llu ns",
			 f->clk.nr, f->clk.nr_failed, (long long)(f->clk.off_max - f->clk.off_min),
			 (unsigned long long)f->clk.bracket_ns);
		rec_clocksync_close(&f->clk);
	}
	if (s->tfs.root)
		remove_clock_instance(s);
	stop_guard(f);		/* it finds the instances gone and exits */
	free(f->fds);
	free(f->announced);
	free(f->emitted);
	free(f->by_type);
	free(f->other_off);
	free(f->tg.tid);
	free(f->tg.pid);
	free(f->rec);
	free(f->last_ns);
	free(f);
	s->ftrace = NULL;
}

int rec_ftrace_clean_stale(const struct rec_tracefs *t)
{
	char dir[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (!t->root)
		return 0;
	snprintf(dir, sizeof(dir), "%s/instances", t->root);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if ((*end && strcmp(end, CLOCK_SUFFIX)) || pid <= 0 || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char rel[300];

		snprintf(rel, sizeof(rel), "instances/%s", de->d_name);
		remove_instance(t->root, rel);
		n++;
	}
	closedir(d);
	return n;
}
