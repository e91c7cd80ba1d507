/* SPDX-License-Identifier: MIT */
/*
 * pp-main.c - `pp`: perf-prof's command surface on top of the two programs.
 *
 *   pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND...]
 *       = pp-record --for 'ANALYZER OPTIONS' -o - [-- COMMAND] | pp-analyze - ANALYZER OPTIONS
 *   pp python [OPTIONS] -- SCRIPT [ARGS]   (perf-prof's form: no COMMAND for python)
 *   pp record ... / pp analyze ...   the two programs
 *   pp list [FILTER]                 this machine's tracepoints
 *   pp usdt ... / pp kcore ...       perf-prof's live tools: pp-record usdt/kcore ...
 *   pp -h | pp ANALYZER -h           the analyzers / one analyzer's help
 *   pp fleet ANALYZER ... CAPTURE... one analyzer over many captures on Dask (pp-fleet.c)
 *
 * Live mode is only a pipe: the recorder streams small, time-bounded
 * segments and the analyzer reads them as a capture.  One Ctrl-C reaches
 * both: pp-record finalizes the stream, pp-analyze (which ignores SIGINT
 * on a stream) reads to its end and prints the final report.  With --save
 * pp copies the stream's segments into FILE as they pass, through a capture
 * writer that indexes them, so the analysed capture is kept complete.  The
 * exit status is pp-record's when it failed, else pp-analyze's.
 *
 * pp is one process to whoever started it, as perf-prof is: SIGINT, SIGTERM
 * and SIGHUP sent to its pid alone go to pp-record (the same Ctrl-C),
 * SIGUSR1 to pp-analyze (interval reports now), SIGUSR2 prints the two
 * programs' CPU usage; both children die with pp (PR_SET_PDEATHSIG).  The
 * signals are blocked but while pp waits in ppoll(), so the handlers only
 * set flags and nothing is missed between a check and the wait.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "front/fleet.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/io.h"
#include "common/log.h"
#include "common/man.h"
#include "common/version.h"
#include "format/format.h"

static char bindir[PATH_MAX];

/* Our own programs live next to us; fall back to PATH. */
static const char *prog(const char *name, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/%s", bindir, name);
	if (bindir[0] && access(buf, X_OK) == 0)
		return buf;
	return name;
}

static void exec_prog(const char *name, int argc, const char **argv)
{
	char path[PATH_MAX + 32];
	const char **v = pp_xcalloc((size_t)argc + 2, sizeof(*v));

	v[0] = prog(name, path, sizeof(path));
	for (int i = 0; i < argc; i++)
		v[i + 1] = argv[i];
	execvp(v[0], (char **)v);
	pp_die("cannot run %s: %s", v[0], strerror(errno));
}

static int list_tracepoints(const char *filter)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256], line[512];
	FILE *fp = NULL;

	for (size_t i = 0; i < PP_ARRAY_SIZE(roots) && !fp; i++) {
		snprintf(path, sizeof(path), "%s/available_events", roots[i]);
		fp = fopen(path, "r");
	}
	if (!fp && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		fp = fopen("/sys/kernel/tracing/available_events", "r");
	if (!fp) {
		pp_err("cannot read the tracepoint list: tracefs is not mounted at /sys/kernel/tracing "
		       "and cannot be mounted here (%s)", strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), fp))
		if (!filter || strstr(line, filter))
			fputs(line, stdout);
	fclose(fp);
	return 0;
}

/* pp's forms and what each does, for `pp -h` and pp(1) (make man). */
static const char *const pp_forms[][2] = {
	{ "pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND [ARGS]]", NULL },
	{ "pp record [pp-record options]", "record a capture" },
	{ "pp analyze FILE ANALYZER ...", "analyse a capture" },
	{ "pp fleet ANALYZER [OPTIONS] CAPTURE...", "many captures on a Dask cluster (pp fleet -h)" },
	{ "pp list [FILTER]", "this machine's tracepoints" },
	{ "pp usdt list|add|del SPEC...", "USDT probes as uprobe events" },
	{ "pp kcore [-1|-2|-4|-8] [--string] ADDR|SYMBOL [COUNT]", "kernel memory" },
	{ "pp ANALYZER -h", "one analyzer's options" },
};

static const char pp_help_text[] =
	"`pp ANALYZER ...` records what the analyzer needs and analyses it live, like\n"
	"perf-prof: it runs `pp-record --for 'ANALYZER ...' -o - | pp-analyze - ANALYZER ...`.\n"
	"Ctrl-C ends both and prints the final report. --save FILE keeps the capture.\n"
	"`pp python [OPTIONS] -- SCRIPT [ARGS]`: for python, as for perf-prof, what follows\n"
	"-- is the script, not a command (#!/usr/bin/env -S pp python -e EVENTS --).\n";

static void usage(FILE *fp)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++) {
		const char *form = pp_forms[i][0], *what = pp_forms[i][1];

		fprintf(fp, "%s%s", i ? "       " : "usage: ", form);
		if (what)
			fprintf(fp, "%*s%s", strlen(form) < 33 ? 35 - (int)strlen(form) : 3, "", what);
		fputc('\n', fp);
	}
	fprintf(fp, "\n%s\n", pp_help_text);
}

/*
 * `pp --help-man=PART`: pp(1)'s parts (make man, docs/man/pp.1.in): synopsis,
 * description, commands (the forms with what each does).  Return: exit status.
 */
static int help_man(const char *arg)
{
	const char *forms[PP_ARRAY_SIZE(pp_forms) + 1] = { NULL };
	const char *part = arg[10] == '=' ? arg + 11 : "";

	for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++)
		forms[i] = pp_forms[i][0];
	if (!strcmp(part, "synopsis")) {
		pp_man_synopsis(stdout, forms);
	} else if (!strcmp(part, "description")) {
		pp_man_text(stdout, pp_help_text, PP_MAN_LEVEL_SECTION);
	} else if (!strcmp(part, "commands")) {
		for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++) {
			if (!pp_forms[i][1])
				continue;
			fputs(".TP\n", stdout);
			pp_man_escape(stdout, forms[i], strlen(forms[i]), true);
			fputc('\n', stdout);
			pp_man_escape(stdout, pp_forms[i][1], strlen(pp_forms[i][1]), true);
			fputc('\n', stdout);
		}
	} else {
		pp_err("'%s': the parts are synopsis, description, commands", arg);
		return 2;
	}
	return 0;
}

/* Set by on_live_signal(), read by the loop with the signals blocked. */
static volatile sig_atomic_t got_stop;	/* SIGINT, SIGTERM or SIGHUP: which */
static volatile sig_atomic_t got_usr1, got_usr2;

static void on_live_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig == SIGUSR2)
		got_usr2 = 1;
	else if (sig != SIGCHLD)	/* SIGCHLD only ends the wait */
		got_stop = sig;
}

static const int live_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD };

/*
 * --save: the stream's segments go into FILE through a capture writer, which
 * indexes them and closes FILE with an index and a trailer - a saved live
 * session is as complete as a recorded file.  A segment cut off by the end of
 * the stream is left out.
 */
struct saver {
	const char *path;
	struct ppf_writer *w;
	uint8_t *buf;			/* the file header, then one segment at a time */
	size_t len, cap, need;
	bool have_hdr;
	bool failed;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void saver_fail(struct saver *sv, const char *what)
{
	pp_err("cannot save '%s': %s", sv->path, what);
	sv->failed = true;
}

/* A whole piece is in sv->buf: the file header opens the writer, a segment is copied. */
static void saver_piece(struct saver *sv)
{
	int rc;

	if (!sv->have_hdr) {
		struct ppf_writer_opts o = { 0 };

		if (memcmp(sv->buf, PPF_FILE_MAGIC, 8)) {
			saver_fail(sv, "the stream is not a pp capture");
			return;
		}
		for (int i = 7; i >= 0; i--)
			o.created_ns = o.created_ns << 8 | sv->buf[40 + i];
		rc = ppf_writer_open(sv->path, &o, &sv->w);
		if (rc) {
			saver_fail(sv, pp_strerror(rc));
			return;
		}
		sv->have_hdr = true;
		sv->len = 0;
		sv->need = PPF_SEG_HDR_SZ;
		return;
	}
	if (sv->need == PPF_SEG_HDR_SZ) {
		if (le32(sv->buf) != PPF_SEG_MAGIC) {
			sv->need = SIZE_MAX;	/* a trailer, or garbage: the end */
			return;
		}
		sv->need += le32(sv->buf + 32);
		if (sv->need > PPF_SEG_HDR_SZ)
			return;
	}
	rc = ppf_writer_put_segment(sv->w, sv->buf, sv->len);
	if (rc == PP_EBAD_CRC || rc == PP_EBAD_LENGTH || rc == PP_EBAD_MAGIC)
		pp_warn("'%s': a damaged segment of the stream is left out", sv->path);
	else if (rc) {
		saver_fail(sv, ppf_writer_errmsg(sv->w));
		return;
	}
	sv->len = 0;
	sv->need = PPF_SEG_HDR_SZ;
}

static void saver_add(struct saver *sv, const uint8_t *p, size_t n)
{
	while (n && !sv->failed && sv->need != SIZE_MAX) {
		size_t take = sv->need - sv->len < n ? sv->need - sv->len : n;

		if (sv->len + take > sv->cap) {
			sv->cap = sv->len + take > 2 * sv->cap ? sv->len + take : 2 * sv->cap;
			sv->buf = pp_xrealloc(sv->buf, sv->cap);
		}
		memcpy(sv->buf + sv->len, p, take);
		sv->len += take;
		p += take;
		n -= take;
		if (sv->len == sv->need)
			saver_piece(sv);
	}
}

static void saver_close(struct saver *sv)
{
	if (sv->w) {
		int rc = ppf_writer_close(sv->w);

		if (rc && !sv->failed)
			pp_err("cannot save '%s': %s", sv->path, pp_strerror(rc));
	} else if (!sv->failed) {
		pp_err("cannot save '%s': the stream was empty", sv->path);
	}
	free(sv->buf);
}

/*
 * Fork and exec one of the two programs on @in/@out.  It dies with pp
 * (@deathsig), gets pp's signals back at their defaults, except those in
 * @ignore, ignored until it sets its own (a SIGUSR1 before pp-analyze has a
 * handler must not kill it; SIGINT is pp-analyze's to ignore on a stream).
 */
/*
 * Run @name with @in and @out as its stdin and stdout; with @keep_stdout, pp's own
 * stdout stays open as its fd 3 (pp-record --command-stdout 3: the recorded command
 * writes where perf-prof's would, not into the capture's pipe).
 */
static pid_t spawn(const char *name, const char *const *argv, int in, int out, bool keep_stdout,
		   int deathsig, const sigset_t *ignore)
{
	char path[PATH_MAX + 32];
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		sigset_t live;

		if (in >= 0 && dup2(in, 0) < 0)
			_exit(127);
		if (keep_stdout && dup2(STDOUT_FILENO, 3) < 0)
			_exit(127);
		if (out >= 0 && dup2(out, 1) < 0)
			_exit(127);
		for (int fd = keep_stdout ? 4 : 3; fd < 256; fd++)
			close(fd);
		sigemptyset(&live);
		for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++) {
			int sig = live_sigs[i];

			signal(sig, sigismember(ignore, sig) ? SIG_IGN : SIG_DFL);
			sigaddset(&live, sig);
		}
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &live, NULL);
		/* pp may have died before the prctl(): then nobody would send it */
		if (prctl(PR_SET_PDEATHSIG, deathsig) || getppid() != parent)
			_exit(127);
		const char *p = prog(name, path, sizeof(path));
		execvp(p, (char **)argv);
		fprintf(stderr, "pp: cannot run %s: %s\n", p, strerror(errno));
		_exit(127);
	}
	return pid;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* One of the two programs, as the live loop sees it. */
struct child {
	const char *name;
	pid_t pid;
	bool done;
	int code;			/* exit_code(), once done */
	unsigned long long usr, sys;	/* its CPU ticks at the last SIGUSR2 report */
	struct timespec at;		/* when: its start, then the last report */
};

/* The live session: the two programs and the stream between them. */
struct live {
	struct child rec, ana;
	int in;				/* pp-record's stream; -1 at its end */
	int out;			/* --save: the analyzer's pipe (O_NONBLOCK), or -1 */
	bool drain;			/* no --save, the analyzer is gone: read and drop */
	struct saver *sv;		/* --save, or NULL */
	uint8_t *buf;			/* --save: a chunk read, written to @out up to @off */
	size_t len, off;
	struct timespec stop_by;	/* after a stop signal: when pp-analyze is told to end */
	enum { LIVE_RUNNING, LIVE_GRACE, LIVE_TERMED, LIVE_KILLED } stop;
};

/*
 * After Ctrl-C, pp-record ends the stream and pp-analyze reports on all of it;
 * an analyzer far behind (a printf per event of a syscall storm) is given this
 * long, then told to stop where it is and report, as perf-prof stops at once.
 */
#define LIVE_STOP_GRACE_S 2
/*
 * ...and this long after that to end, or it is killed: an analyzer that cannot
 * (blocked writing to a stdout nobody reads, a system() command that hangs)
 * must not outlive pp, and pp must not wait for it forever.
 */
#define LIVE_STOP_KILL_S 5

/* utime and stime (ticks) from /proc/PID/stat, the peak RSS (KiB) from /proc/PID/status. */
static int proc_cpu(pid_t pid, unsigned long long *usr, unsigned long long *sys,
		    unsigned long *hwm_kb)
{
	char path[64], line[1024];
	const char *p;
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	p = fgets(line, sizeof(line), fp) ? strrchr(line, ')') : NULL;
	fclose(fp);
	/* after "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt */
	ok = p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 usr, sys) == 2;
	if (!ok)
		return -EINVAL;
	*hwm_kb = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "re");
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %lu", hwm_kb) == 1)
			break;
	if (fp)
		fclose(fp);
	return 0;
}

static double seconds_since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * SIGUSR2: perf-prof's line for its own CPU usage, on stdout, once for each
 * program (named at the end): the share of one CPU used since its start or
 * the last report, and its peak RSS.  One write, so that the line does not
 * land inside one of pp-analyze's.
 */
static void print_cpu(struct live *lv)
{
	struct child *cs[] = { &lv->rec, &lv->ana };
	double hz = (double)sysconf(_SC_CLK_TCK);
	char buf[512], date[32];
	struct timespec now;
	struct timeval tv;
	struct tm tm;
	size_t len = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	for (size_t i = 0; i < PP_ARRAY_SIZE(cs); i++) {
		struct child *c = cs[i];
		unsigned long long usr, sys;
		unsigned long hwm;
		double dt = seconds_since(&c->at, &now);

		if (c->done || proc_cpu(c->pid, &usr, &sys, &hwm) || dt <= 0)
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s.%06ld CPU %%usr %.2f %%sys %.2f MAXRSS %luk %s\n", date,
					(long)tv.tv_usec, (double)(usr - c->usr) * 100.0 / hz / dt,
					(double)(sys - c->sys) * 100.0 / hz / dt, hwm, c->name);
		c->usr = usr;
		c->sys = sys;
		c->at = now;
	}
	struct iovec iov = { buf, len };
	(void)pp_writev_full(STDOUT_FILENO, &iov, 1, NULL);	/* stdout gone: nobody to tell */
}

/* The flags the handlers set, acted on with the signals blocked. */
static void live_signals(struct live *lv)
{
	int sig = got_stop;

	if (sig) {
		got_stop = 0;
		if (!lv->rec.done)
			kill(lv->rec.pid, sig);	/* it ends the stream, pp-analyze reads it */
		if (lv->stop == LIVE_RUNNING) {
			clock_gettime(CLOCK_MONOTONIC, &lv->stop_by);
			lv->stop_by.tv_sec += LIVE_STOP_GRACE_S;
			lv->stop = LIVE_GRACE;
		}
	}
	if (got_usr1) {
		got_usr1 = 0;
		if (!lv->ana.done)
			kill(lv->ana.pid, SIGUSR1);
	}
	if (got_usr2) {
		got_usr2 = 0;
		print_cpu(lv);
		if (!lv->ana.done)	/* and the analyzers' statistics (python's __print_stat__) */
			kill(lv->ana.pid, SIGUSR2);
	}
}

/* The analyzer no longer reads: stop recording for it, and stop writing to it. */
static void analyzer_gone(struct live *lv)
{
	if (!lv->rec.done)
		kill(lv->rec.pid, SIGTERM);
	if (lv->out >= 0) {
		close(lv->out);
		lv->out = -1;
	}
	lv->len = lv->off = 0;
	if (!lv->sv)
		lv->drain = true;
}

static void live_reap(struct live *lv)
{
	pid_t w;
	int st;

	while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
		struct child *c = w == lv->rec.pid ? &lv->rec : w == lv->ana.pid ? &lv->ana : NULL;

		if (!c)
			continue;
		c->done = true;
		c->code = exit_code(st);
		if (c == &lv->ana)	/* done first (-N): the recording is of no use */
			analyzer_gone(lv);
	}
}

/* The stream is readable: into the saved capture and the analyzer's pipe, or dropped. */
static void live_read(struct live *lv)
{
	uint8_t sink[1 << 16];
	uint8_t *b = lv->sv ? lv->buf : sink;
	ssize_t n = read(lv->in, b, sizeof(sink));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(lv->in);
		lv->in = -1;
		if (lv->out >= 0) {	/* nothing is pending: we read only then */
			close(lv->out);
			lv->out = -1;
		}
		if (lv->sv)
			saver_close(lv->sv);
		return;
	}
	if (!lv->sv)
		return;
	saver_add(lv->sv, b, (size_t)n);
	if (lv->out >= 0) {
		lv->len = (size_t)n;
		lv->off = 0;
	}
}

static void live_write(struct live *lv)
{
	ssize_t w = write(lv->out, lv->buf + lv->off, lv->len - lv->off);

	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w <= 0) {		/* the analyzer is done (-N): keep saving */
		analyzer_gone(lv);
		return;
	}
	lv->off += (size_t)w;
	if (lv->off == lv->len)
		lv->len = lv->off = 0;
}

/*
 * Until both programs are done (and with --save, the stream read to its
 * end): wait in ppoll() with pp's signals let in, then act on what came.
 * Without --save pp keeps a read end of the stream it does not read: when
 * pp-analyze is done first (-N), pp-record gets a SIGTERM, not a broken
 * pipe, and pp drains what it still writes.
 */
static void live_loop(struct live *lv, const sigset_t *waitmask)
{
	for (;;) {
		struct pollfd fds[2];
		nfds_t nfds = 0;

		live_signals(lv);
		live_reap(lv);
		if (lv->rec.done && lv->ana.done && (!lv->sv || lv->in < 0))
			break;
		if (lv->in >= 0 && (lv->drain || (lv->sv && lv->off == lv->len)))
			fds[nfds++] = (struct pollfd){ .fd = lv->in, .events = POLLIN };
		if (lv->out >= 0 && lv->off < lv->len)
			fds[nfds++] = (struct pollfd){ .fd = lv->out, .events = POLLOUT };
		struct timespec left, *tmo = NULL;

		if (lv->stop != LIVE_RUNNING && lv->stop != LIVE_KILLED && !lv->ana.done) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			left.tv_sec = lv->stop_by.tv_sec - now.tv_sec;
			left.tv_nsec = lv->stop_by.tv_nsec - now.tv_nsec;
			if (left.tv_nsec < 0) {
				left.tv_nsec += 1000000000L;
				left.tv_sec--;
			}
			if (left.tv_sec < 0 && lv->stop == LIVE_GRACE) {
				kill(lv->ana.pid, SIGTERM);	/* report what you have */
				lv->stop = LIVE_TERMED;
				lv->stop_by.tv_sec += LIVE_STOP_KILL_S;
				continue;
			} else if (left.tv_sec < 0) {
				pp_err("pp-analyze did not end %d s after it was told to: killed",
				       LIVE_STOP_GRACE_S + LIVE_STOP_KILL_S);
				kill(lv->ana.pid, SIGKILL);
				lv->stop = LIVE_KILLED;
			} else {
				tmo = &left;
			}
		}
		if (ppoll(fds, nfds, tmo, waitmask) <= 0)
			continue;	/* a signal, or the grace's end */
		for (nfds_t i = 0; i < nfds; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == lv->in)
				live_read(lv);
			else if (fds[i].fd == lv->out)
				live_write(lv);
		}
	}
}

/*
 * How verbose the analyzer's options ask for: each -v, each v of -vv..., each
 * --verbose (the common option; not a script's, after --).
 */
static int verbose_arg(int argc, const char **argv)
{
	int n = 0;

	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];
		size_t vs = a[0] == '-' ? strspn(a + 1, "v") : 0;

		if (!strcmp(a, "--verbose"))
			n++;
		else if (vs && a[vs + 1] == '\0')
			n += (int)vs;
	}
	return n;
}

static int run_live(int argc, const char **argv)
{
	const char *save = NULL;
	const char **an = pp_xcalloc((size_t)argc + 3, sizeof(*an));
	const char **cmd = NULL;
	int nan = 0, ncmd = 0;
	struct pp_buf forstr = PP_BUF_INIT;

	/*
	 * Split off pp's own --save and the workload after "--".  python is
	 * perf-prof's exception: what follows its "--" is the script and its
	 * arguments (`#!/usr/bin/env -S pp python -e EVENTS --`), so it all goes
	 * to the analyzer.
	 */
	bool script_args = !strcmp(argv[0], "python");
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--") && script_args) {
			while (i < argc)
				an[nan++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--")) {
			cmd = argv + i + 1;
			ncmd = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "--save") && i + 1 < argc) {
			save = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--save=", 7)) {
			save = argv[i] + 7;
			continue;
		}
		an[nan++] = argv[i];
	}
	pp_argv_join(&forstr, nan, an);

	const char **rv = pp_xcalloc((size_t)ncmd + 13, sizeof(*rv));
	int nr = 0;
	rv[nr++] = "pp-record";
	/*
	 * stderr stays empty unless something is wrong.  -v is the analyzer's own
	 * verbose output, as perf-prof's (expr -v lists its program on stdout, and
	 * perf-prof's harness fails on any stderr line); -vv adds pp-record's
	 * summary, -vvv its debug lines.
	 */
	int verbose = verbose_arg(nan, an);
	if (verbose >= 3)
		rv[nr++] = "-v";
	else if (verbose < 2)
		rv[nr++] = "-q";
	/*
	 * Live, tracefs events are stamped with CLOCK_MONOTONIC by the kernel, the
	 * clock of the side band: a task forked and gone within a millisecond
	 * (system()'s shell) is named at its first event, not "<...>" because the
	 * mapped local clock put the event before its FORK record.
	 */
	rv[nr++] = "--ftrace-mono";
	rv[nr++] = "--for";
	rv[nr++] = pp_buf_str(&forstr);
	rv[nr++] = "-o";
	rv[nr++] = "-";
	if (ncmd) {
		rv[nr++] = "--command-stdout";
		rv[nr++] = "3";
		rv[nr++] = "--";
		for (int i = 0; i < ncmd; i++)
			rv[nr++] = cmd[i];
	}
	const char **av = pp_xcalloc((size_t)nan + 3, sizeof(*av));
	av[0] = "pp-analyze";
	av[1] = "-";
	for (int i = 0; i < nan; i++)
		av[i + 2] = an[i];

	/* pp's signals wait for ppoll() (live_loop()), from before the first child */
	sigset_t live, waitmask;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_live_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&live);
	for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++)
		sigaddset(&live, live_sigs[i]);
	sigprocmask(SIG_BLOCK, &live, &waitmask);
	for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++) {
		sigdelset(&waitmask, live_sigs[i]);
		sigaction(live_sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);

	int p1[2], p2[2] = { -1, -1 };
	struct saver sv = { .path = save, .need = PPF_FILE_HDR_SZ };
	if (pipe(p1))
		pp_die("pipe: %s", strerror(errno));
	if (save) {
		int fd = open(save, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			pp_die("cannot write '%s': %s", save, strerror(errno));
		close(fd);	/* fail early; the writer makes it anew */
		if (pipe(p2))
			pp_die("pipe: %s", strerror(errno));
	}

	struct live lv = { .in = p1[0], .out = p2[1], .sv = save ? &sv : NULL };
	sigset_t ign;
	sigemptyset(&ign);
	sigaddset(&ign, SIGUSR1);
	sigaddset(&ign, SIGUSR2);
	sigset_t ign_ana = ign;
	char ana_pid[32];

	sigaddset(&ign_ana, SIGINT);
	lv.rec = (struct child){ .name = "pp-record" };
	clock_gettime(CLOCK_MONOTONIC, &lv.rec.at);
	lv.ana = (struct child){ .name = "pp-analyze", .at = lv.rec.at };
	/*
	 * pp-analyze first: pp-record leaves its events (and its children's: a
	 * system() shell per event) out of the tracefs instance, as its own, so the
	 * analysis does not watch itself.  SIGTERM at pp's death: pp-record
	 * finalizes, pp-analyze reports what it has.  pp-record's refusal is the
	 * one line: pp-analyze says nothing of the empty stream.
	 */
	setenv("PP_LIVE_RECORDER", "1", 1);
	lv.ana.pid = spawn("pp-analyze", av, save ? p2[0] : p1[0], -1, false, SIGTERM, &ign_ana);
	unsetenv("PP_LIVE_RECORDER");
	snprintf(ana_pid, sizeof(ana_pid), "%d", (int)lv.ana.pid);
	setenv("PP_NOTRACE_PID", ana_pid, 1);
	lv.rec.pid = spawn("pp-record", rv, -1, p1[1], ncmd > 0, SIGTERM, &ign);
	unsetenv("PP_NOTRACE_PID");
	close(p1[1]);
	if (save) {
		close(p2[0]);
		fcntl(p2[1], F_SETFL, fcntl(p2[1], F_GETFL) | O_NONBLOCK);
		lv.buf = pp_xmalloc(1 << 16);
	}
	live_loop(&lv, &waitmask);
	if (lv.in >= 0)
		close(lv.in);
	if (lv.out >= 0)
		close(lv.out);
	free(lv.buf);
	pp_buf_release(&forstr);
	free(rv);
	free(av);
	free(an);
	return lv.rec.code ? lv.rec.code : lv.ana.code;
}

/*
 * perf-prof's name: a symlink named perf-prof to pp is a drop-in.  perf-prof
 * prints its help on stderr, in its own layout (" Usage: perf-prof ...",
 * " Available Profilers:" then one "   NAME   SUMMARY" line each), and exits
 * 129; scripts and perf-prof's test harness read it so.  Under the name pp
 * help goes to stdout as before.
 */
static bool perfprof_name;

#define PERFPROF_HELP_EXIT 129

/*
 * Run program @name with @arg1 and @arg2 (either may be NULL: the end of the arguments), its
 * stdout on stderr when @to_stderr; its exit status.
 */
static int run_wait(const char *name, const char *arg1, const char *arg2, bool to_stderr)
{
	char path[PATH_MAX + 32];
	const char *v[] = { prog(name, path, sizeof(path)), arg1, arg2, NULL };
	int st;

	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(v[0], (char **)v);
		pp_err("cannot run %s: %s", v[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			pp_die("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run_to_stderr(const char *name, const char *arg1, const char *arg2)
{
	return run_wait(name, arg1, arg2, true);
}

/*
 * `pp --version`: pp's own line, then those of the two programs it runs (each
 * found as they are for any command), so a pp beside a pp-record of another
 * build shows it.  Exit status: the first program that failed, else 0.
 */
static int print_versions(void)
{
	pp_version_print(stdout, "pp", NULL);
	int rc = run_wait("pp-record", "--version", NULL, false);
	int rc2 = run_wait("pp-analyze", "--version", NULL, false);

	return rc ? rc : rc2;
}

/*
 * perf-prof's tools that are no analyzers: pp-record runs them (they read this machine's
 * binaries, kernel memory and tracefs), named by its first argument.
 */
static const struct {
	const char *name;
	const char *summary;	/* perf-prof's */
} tools[] = {
	{ "usdt", "User Statically-Defined Tracing." },
	{ "kcore", "Read kernel memory." },
};

static bool is_tool(const char *name)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(tools); i++)
		if (!strcmp(name, tools[i].name))
			return true;
	return false;
}

/* `perf-prof`, `perf-prof -h`: the profilers (pp's analyzers), then pp's help. */
static int perfprof_help(void)
{
	char path[PATH_MAX + 32], cmd[PATH_MAX + 64], line[1024];
	struct pp_buf text = PP_BUF_INIT;
	bool in_list = false;

	/* the list is pp-analyze's: read its help once, print it after the list */
	snprintf(cmd, sizeof(cmd), "'%s' help", prog("pp-analyze", path, sizeof(path)));
	FILE *fp = strchr(path, '\'') ? NULL : popen(cmd, "r");
	if (!fp) {
		pp_err("cannot run %s", path);
		return 2;
	}
	fprintf(stderr, " Usage: perf-prof profiler [PROFILER OPTION...] [help] [cmd [args...]]\n"
			"    or: perf-prof --symbols /path/to/bin\n\n"
			" Available Profilers:\n");
	while (fgets(line, sizeof(line), fp)) {
		pp_buf_adds(&text, line);
		if (!strcmp(line, "Analyzers:\n")) {
			in_list = true;
			continue;
		}
		if (!in_list)
			continue;
		if (line[0] != ' ') {
			in_list = false;
			continue;
		}
		char *name = line + strspn(line, " ");
		char *end = name + strcspn(name, " \n");
		char *sum = end + strspn(end, " ");
		sum[strcspn(sum, "\n")] = '\0';
		*end = '\0';
		if (*name && *sum)
			fprintf(stderr, "   %-20s %s\n", name, sum);
	}
	int st = pclose(fp);
	for (size_t i = 0; i < PP_ARRAY_SIZE(tools); i++)
		fprintf(stderr, "   %-20s %s\n", tools[i].name, tools[i].summary);
	fputc('\n', stderr);
	usage(stderr);
	fputs(pp_buf_str(&text), stderr);
	pp_buf_release(&text);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 2;
	return PERFPROF_HELP_EXIT;
}

/* `perf-prof NAME -h`: perf-prof's usage line, then the analyzer's help. */
static int perfprof_analyzer_help(const char *name)
{
	fprintf(stderr, " Usage: perf-prof %s [OPTION...]\n\n", name);
	int rc = is_tool(name) ? run_to_stderr("pp-record", name, "-h")
			       : run_to_stderr("pp-analyze", "help", name);
	return rc ? rc : PERFPROF_HELP_EXIT;
}


int main(int argc, const char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	pp_progname = "pp";
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(bindir, sizeof(bindir), "%s", self);
		}
	}
	const char *base = strrchr(argv[0], '/');
	perfprof_name = !strcmp(base ? base + 1 : argv[0], "perf-prof");
	if (argc == 2 && !strncmp(argv[1], "--help-man", 10))
		return help_man(argv[1]);
	/* perf-prof's address lookup is pp-record's: it reads this machine's binaries */
	if (argc >= 2 && !strncmp(argv[1], "--symbols", 9)) {
		if (perfprof_name)	/* an unreadable binary: nothing said, as perf-prof */
			setenv("PP_PERF_PROF_ERRORS", "1", 1);
		exec_prog("pp-record", argc - 1, argv + 1);
	}
	if (perfprof_name && (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return perfprof_help();
	/* usdt, kcore: pp-record's, -h included (under perf-prof's name: its help layout) */
	if (argc >= 2 && is_tool(argv[1])) {
		for (int i = 2; perfprof_name && i < argc; i++)
			if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
				return perfprof_analyzer_help(argv[1]);
		if (perfprof_name)	/* a missing binary or /proc/kcore: said as perf-prof says it */
			setenv("PP_PERF_PROF_ERRORS", "1", 1);
		exec_prog("pp-record", argc - 1, argv + 1);
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		fflush(stdout);
		const char *h[] = { "help" };
		exec_prog("pp-analyze", 1, h);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return print_versions();
	if (!strcmp(argv[1], "record"))
		exec_prog("pp-record", argc - 2, argv + 2);
	if (!strcmp(argv[1], "analyze"))
		exec_prog("pp-analyze", argc - 2, argv + 2);
	if (!strcmp(argv[1], "fleet"))
		return pp_fleet_main(argc - 2, argv + 2, bindir);
	if (!strcmp(argv[1], "help") && argc > 2 && is_tool(argv[2]))
		exec_prog("pp-record", 2, (const char *[]){ argv[2], "-h" });
	if (!strcmp(argv[1], "help"))
		exec_prog("pp-analyze", argc - 1, argv + 1);
	/* perf-prof's `list -h` is help, as for any profiler */
	for (int i = 2; perfprof_name && i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return perfprof_analyzer_help(argv[1]);
	if (!strcmp(argv[1], "list"))
		return list_tracepoints(argc > 2 ? argv[2] : NULL);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			if (perfprof_name)
				return perfprof_analyzer_help(argv[1]);
			exec_prog("pp-analyze", 2, (const char *[]){ "help", argv[1] });
		}
	return run_live(argc - 1, argv + 1);
}
