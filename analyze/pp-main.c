/* SPDX-License-Identifier: MIT */
/*
 * pp-main.c - `pp`: perf-prof's command surface on top of the two programs.
 *
 *   pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND...]
 *       = pp-record --for 'ANALYZER OPTIONS' -o - [-- COMMAND] | pp-analyze - ANALYZER OPTIONS
 *   pp python [OPTIONS] -- SCRIPT [ARGS]   (perf-prof's form: no COMMAND for python)
 *   pp record ... / pp analyze ...   the two programs
 *   pp list [FILTER]                 this machine's tracepoints
 *   pp -h | pp ANALYZER -h           the analyzers / one analyzer's help
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
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/io.h"
#include "common/log.h"
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

static void usage(FILE *fp)
{
	fprintf(fp, "usage: pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND [ARGS]]\n"
		    "       pp record [pp-record options]     record a capture\n"
		    "       pp analyze FILE ANALYZER ...       analyse a capture\n"
		    "       pp list [FILTER]                   this machine's tracepoints\n"
		    "       pp ANALYZER -h                     one analyzer's options\n\n"
		    "`pp ANALYZER ...` records what the analyzer needs and analyses it live, like\n"
		    "perf-prof: it runs `pp-record --for 'ANALYZER ...' -o - | pp-analyze - ANALYZER ...`.\n"
		    "Ctrl-C ends both and prints the final report. --save FILE keeps the capture.\n"
		    "`pp python [OPTIONS] -- SCRIPT [ARGS]`: for python, as for perf-prof, what follows\n"
		    "-- is the script, not a command (#!/usr/bin/env -S pp python -e EVENTS --).\n\n");
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
static pid_t spawn(const char *name, const char *const *argv, int in, int out, int deathsig,
		   const sigset_t *ignore)
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
		if (out >= 0 && dup2(out, 1) < 0)
			_exit(127);
		for (int fd = 3; fd < 256; fd++)
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
};

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
	}
	if (got_usr1) {
		got_usr1 = 0;
		if (!lv->ana.done)
			kill(lv->ana.pid, SIGUSR1);
	}
	if (got_usr2) {
		got_usr2 = 0;
		print_cpu(lv);
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
		if (ppoll(fds, nfds, NULL, waitmask) <= 0)
			continue;	/* a signal */
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

	const char **rv = pp_xcalloc((size_t)ncmd + 8, sizeof(*rv));
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
	rv[nr++] = "--for";
	rv[nr++] = pp_buf_str(&forstr);
	rv[nr++] = "-o";
	rv[nr++] = "-";
	if (ncmd) {
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
	lv.rec = (struct child){ .name = "pp-record" };
	clock_gettime(CLOCK_MONOTONIC, &lv.rec.at);
	/* SIGTERM at pp's death: pp-record finalizes, pp-analyze reports what it has */
	lv.rec.pid = spawn("pp-record", rv, -1, p1[1], SIGTERM, &ign);
	sigaddset(&ign, SIGINT);
	lv.ana = (struct child){ .name = "pp-analyze", .at = lv.rec.at };
	lv.ana.pid = spawn("pp-analyze", av, save ? p2[0] : p1[0], -1, SIGTERM, &ign);
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

/* Run `pp-analyze help [ANALYZER]` with its stdout on stderr; its exit status. */
static int analyze_help_to_stderr(const char *analyzer)
{
	char path[PATH_MAX + 32];
	const char *v[] = { prog("pp-analyze", path, sizeof(path)), "help", analyzer, NULL };
	int st;

	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid == 0) {
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
	int rc = analyze_help_to_stderr(name);
	return rc ? rc : PERFPROF_HELP_EXIT;
}

/*
 * --symbols BIN: perf-prof's (and pprof's) address lookup.  stdin holds
 * /proc/PID/maps lines, then one item a line: an address "0x..." prints
 * "symbol+0xOFF" of the mapped file ("??" when unknown); a symbol name of
 * BIN prints its file offset "0x..." (nothing when unknown).  The ELF files
 * are read here, by a small reader of 64-bit ELF symbol tables (.symtab and
 * .dynsym, functions only).  Names are printed as stored (pp links no
 * demangler; common/symbolize.c needs libiberty).
 */
struct elf_fn {
	uint64_t start, size;
	const char *name;	/* into the mapped file, or allocated (@owned) */
	bool owned;
};

struct elf_img {
	const uint8_t *map;
	size_t len;
	uint64_t text_vaddr, text_off;
	struct elf_fn *fn;
	size_t nfn, cap;
	const uint8_t *build_id;	/* into the mapped file */
	size_t build_id_sz;
	bool debug;		/* the debug file was read */
};

static bool in_file(const struct elf_img *e, uint64_t off, uint64_t sz)
{
	return off <= e->len && sz <= e->len - off;
}

static void elf_add_syms(struct elf_img *e, const Elf64_Shdr *sh, const Elf64_Shdr *shs,
			 unsigned shnum)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= shnum ||
	    !in_file(e, sh->sh_offset, sh->sh_size))
		return;
	const Elf64_Shdr *strs = &shs[sh->sh_link];
	if (!in_file(e, strs->sh_offset, strs->sh_size) || !strs->sh_size ||
	    e->map[strs->sh_offset + strs->sh_size - 1] != '\0')
		return;
	const char *str = (const char *)e->map + strs->sh_offset;
	size_t n = sh->sh_size / sizeof(Elf64_Sym);

	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s;
		memcpy(&s, e->map + sh->sh_offset + i * sizeof(s), sizeof(s));
		int type = ELF64_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value || s.st_name >= strs->sh_size || !str[s.st_name])
			continue;
		if (e->nfn == e->cap) {
			e->cap = e->cap ? e->cap * 2 : 1024;
			e->fn = pp_xrealloc(e->fn, e->cap * sizeof(*e->fn));
		}
		e->fn[e->nfn++] = (struct elf_fn){ s.st_value, s.st_size, str + s.st_name, false };
	}
}

/* 0, or a negative errno (-ENOEXEC: not a 64-bit ELF file of this machine's byte order) */
static int elf_load(const char *path, struct elf_img *e)
{
	struct stat sb;
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < sizeof(eh)) {
		close(fd);
		return S_ISREG(sb.st_mode) ? -ENOEXEC : -EINVAL;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	e->map = m;
	e->len = (size_t)sb.st_size;
	memcpy(&eh, e->map, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    (eh.e_shnum && eh.e_shentsize != sizeof(Elf64_Shdr)) ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
	    !in_file(e, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)) ||
	    !in_file(e, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))) {
		munmap(m, e->len);
		e->map = NULL;
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, e->map + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			e->text_vaddr = ph.p_vaddr;
			e->text_off = ph.p_offset;
			break;
		}
	}
	Elf64_Shdr *shs = pp_xcalloc(eh.e_shnum ? eh.e_shnum : 1, sizeof(*shs));
	memcpy(shs, e->map + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*shs));
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (shs[i].sh_type == SHT_SYMTAB || shs[i].sh_type == SHT_DYNSYM)
			elf_add_syms(e, &shs[i], shs, eh.e_shnum);
		/* the build id names a separate debug file */
		if (shs[i].sh_type == SHT_NOTE && in_file(e, shs[i].sh_offset, shs[i].sh_size) &&
		    shs[i].sh_size >= 16) {
			const uint8_t *n = e->map + shs[i].sh_offset;
			uint32_t nsz, dsz, type;
			memcpy(&nsz, n, 4);
			memcpy(&dsz, n + 4, 4);
			memcpy(&type, n + 8, 4);
			if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(n + 12, "GNU", 4) &&
			    dsz >= 2 && dsz <= 64 && 16 + (uint64_t)dsz <= shs[i].sh_size) {
				e->build_id = n + 16;
				e->build_id_sz = dsz;
			}
		}
	}
	free(shs);
	return 0;
}

static void elf_free(struct elf_img *e);

/* Add the functions of /usr/lib/debug/.build-id/xx/yyyy.debug, when there is one. */
static void elf_add_debug(struct elf_img *e)
{
	char path[256];
	int n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", e->build_id[0]);
	struct elf_img dbg;

	for (size_t i = 1; i < e->build_id_sz; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", e->build_id[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	if (elf_load(path, &dbg))
		return;
	e->fn = pp_xrealloc(e->fn, (e->nfn + dbg.nfn + 1) * sizeof(*e->fn));
	e->cap = e->nfn + dbg.nfn + 1;
	for (size_t i = 0; i < dbg.nfn; i++) {
		e->fn[e->nfn] = dbg.fn[i];
		e->fn[e->nfn].owned = true;
		e->fn[e->nfn++].name = pp_xstrdup(dbg.fn[i].name);
	}
	e->debug = true;
	elf_free(&dbg);
}

static void elf_free(struct elf_img *e)
{
	if (e->map)
		munmap((void *)e->map, e->len);
	for (size_t i = 0; i < e->nfn; i++)
		if (e->fn[i].owned)
			free((char *)e->fn[i].name);
	free(e->fn);
	memset(e, 0, sizeof(*e));
}

static int symbols_fail(const char *path, int err)
{
	/* perf-prof prints nothing and exits 0; pp says why */
	if (perfprof_name)
		return 0;
	pp_err("--symbols: cannot read '%s': %s", path,
	       err == -ENOEXEC ? "not a 64-bit ELF file" : strerror(-err));
	return 2;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct elf_fn *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* then fewer leading underscores (malloc, not __libc_malloc), then by name */
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Sort the functions; a zero size extends to the next function. */
static void elf_index(struct elf_img *e)
{
	if (e->build_id_sz && !e->debug)
		elf_add_debug(e);
	qsort(e->fn, e->nfn, sizeof(*e->fn), fn_cmp);
	for (size_t i = 0; i < e->nfn; i++)
		if (!e->fn[i].size)
			for (size_t j = i + 1; j < e->nfn; j++)
				if (e->fn[j].start > e->fn[i].start) {
					e->fn[i].size = e->fn[j].start - e->fn[i].start;
					break;
				}
}

/* The function covering @vaddr, or NULL. */
static const struct elf_fn *elf_find(const struct elf_img *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nfn;

	while (lo < hi) {	/* the first function starting after vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (e->fn[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* among those starting at or before vaddr, the nearest one that covers it */
	for (size_t i = lo; i-- > 0;) {
		const struct elf_fn *f = &e->fn[i];
		if (vaddr - f->start < f->size || vaddr == f->start)
			return f;
		if (i + 1 < lo && f->start != e->fn[i + 1].start)
			break;
	}
	return NULL;
}

struct sym_map {
	uint64_t start, end, pgoff;
	size_t file;		/* index into the loaded files */
};

static int symbols_mode(const char *binpath)
{
	struct elf_img bin;
	struct elf_img *files = NULL;
	char **paths = NULL;
	struct sym_map *maps = NULL;
	size_t nfiles = 0, nmaps = 0;
	char line[PATH_MAX + 256];
	int rc = elf_load(binpath, &bin);

	if (rc)
		return symbols_fail(binpath, rc);
	elf_index(&bin);

	bool have = fgets(line, sizeof(line), stdin) != NULL;

	/* the maps lines: executable, file-backed mappings */
	for (; have; have = fgets(line, sizeof(line), stdin) != NULL) {
		unsigned long long start, end, off, inode;
		unsigned maj, min;
		char perm[5];
		int pos = 0;
		size_t f;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, perm, &off,
			   &maj, &min, &inode, &pos) != 7 || !pos)
			break;
		char *name = line + pos;
		name += strspn(name, " \t");
		name[strcspn(name, "\n")] = '\0';
		if (strlen(perm) < 3 || perm[2] != 'x' || name[0] != '/' || end <= start)
			continue;
		for (f = 0; f < nfiles; f++)
			if (!strcmp(paths[f], name))
				break;
		if (f == nfiles) {
			files = pp_xrealloc(files, (nfiles + 1) * sizeof(*files));
			paths = pp_xrealloc(paths, (nfiles + 1) * sizeof(*paths));
			int err = elf_load(name, &files[nfiles]);
			if (err && !nmaps) {	/* as perf-prof: the first file must load */
				rc = symbols_fail(name, err);
				free(files);
				free(paths);
				elf_free(&bin);
				return rc;
			}
			elf_index(&files[nfiles]);
			paths[nfiles++] = pp_xstrdup(name);
		}
		maps = pp_xrealloc(maps, (nmaps + 1) * sizeof(*maps));
		maps[nmaps++] = (struct sym_map){ start, end, off, f };
	}
	/* then the items */
	for (; have; have = fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0x", 2) && isxdigit((unsigned char)line[2])) {
			uint64_t addr = strtoull(line + 2, NULL, 16);
			const struct elf_fn *fn = NULL;
			uint64_t vaddr = 0;

			for (size_t i = 0; i < nmaps && !fn; i++) {
				const struct elf_img *e = &files[maps[i].file];
				if (addr < maps[i].start || addr >= maps[i].end || !e->map)
					continue;
				vaddr = addr - maps[i].start + maps[i].pgoff - e->text_off + e->text_vaddr;
				fn = elf_find(e, vaddr);
			}
			if (fn)
				printf("%s+0x%llx\n", fn->name, (unsigned long long)(vaddr - fn->start));
			else
				printf("??\n");
			continue;
		}
		for (size_t i = 0; i < bin.nfn; i++)
			if (!strcmp(bin.fn[i].name, line)) {
				printf("0x%llx\n", (unsigned long long)(bin.fn[i].start - bin.text_vaddr +
									bin.text_off));
				break;
			}
	}
	for (size_t i = 0; i < nfiles; i++) {
		elf_free(&files[i]);
		free(paths[i]);
	}
	free(files);
	free(paths);
	free(maps);
	elf_free(&bin);
	if (fflush(stdout) || ferror(stdout)) {
		pp_err("--symbols: cannot write the output: %s", strerror(errno));
		return 2;
	}
	return 0;
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
	if (argc >= 2 && !strncmp(argv[1], "--symbols=", 10))
		return symbols_mode(argv[1] + 10);
	if (argc >= 2 && !strcmp(argv[1], "--symbols")) {
		if (argc < 3) {
			pp_err("--symbols needs a binary: --symbols /path/to/bin");
			return 2;
		}
		return symbols_mode(argv[2]);
	}
	if (perfprof_name && (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return perfprof_help();
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		fflush(stdout);
		const char *h[] = { "help" };
		exec_prog("pp-analyze", 1, h);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		exec_prog("pp-analyze", 1, (const char *[]){ "--version" });
	if (!strcmp(argv[1], "record"))
		exec_prog("pp-record", argc - 2, argv + 2);
	if (!strcmp(argv[1], "analyze"))
		exec_prog("pp-analyze", argc - 2, argv + 2);
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
