/* SPDX-License-Identifier: MIT */
/*
 * live.c - `pp ANALYZER ...`: pp-record's stream piped into pp-analyze, and pp
 * between them as one process to whoever started it.
 *
 * Live mode is only a pipe: the recorder streams small, time-bounded
 * segments and the analyzer reads them as a capture.  One Ctrl-C reaches
 * both: pp-record finalizes the stream, pp-analyze (which ignores SIGINT
 * on a stream) reads to its end and prints the final report.  With --save
 * pp copies the stream's segments into FILE as they pass (save.c), so the
 * analysed capture is kept complete.  The exit status is pp-record's when it
 * failed, else pp-analyze's.
 *
 * SIGINT, SIGTERM and SIGHUP sent to pp's pid alone go to pp-record (the same
 * Ctrl-C), SIGUSR1 to pp-analyze (interval reports now), SIGUSR2 prints the
 * two programs' CPU usage; both children die with pp (PR_SET_PDEATHSIG).  The
 * signals are blocked but while pp waits in ppoll(), so the handlers only set
 * flags and nothing is missed between a check and the wait.  What pp tells
 * the two through their environment is common/front-env.h.
 * Not here: their command lines (live-argv.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/front-env.h"
#include "common/io.h"
#include "format/format.h"
#include "front/front.h"
#include "front/live.h"

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

/* What both children get when pp dies: pp-record finalizes, pp-analyze reports what it has. */
#define LIVE_DEATHSIG SIGTERM

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

/* The size of a read from the stream, and of --save's chunk in flight to pp-analyze. */
#define LIVE_CHUNK_SZ (1 << 16)

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
	int rec_out, ana_in;		/* the children's ends, closed in pp once they have them */
	bool drain;			/* no --save, the analyzer is gone: read and drop */
	struct front_saver *sv;		/* --save, or NULL */
	uint8_t *buf;			/* --save: a chunk read, written to @out up to @off */
	size_t len, off;
	struct timespec stop_by;	/* after a stop signal: when pp-analyze is told to end */
	enum { LIVE_RUNNING, LIVE_GRACE, LIVE_TERMED, LIVE_KILLED } stop;
};

/* How one of the two programs is started. */
struct live_spawn {
	const char *const *argv;	/* argv[0] names the program (front_prog()) */
	int in, out;			/* its stdin and stdout, or -1: pp's */
	bool keep_stdout;		/* pp's stdout is its fd 3 (pp-record --command-stdout 3) */
	sigset_t ignore;		/* signals it ignores until it sets its own handlers */
	const char *env, *env_val;	/* one variable of common/front-env.h for it, or NULL */
};

/* In the child: its fds, pp's signals back at their defaults but @sp->ignore's. */
static void spawn_child_setup(const struct live_spawn *sp)
{
	sigset_t live;

	if (sp->in >= 0 && dup2(sp->in, 0) < 0)
		_exit(127);
	if (sp->keep_stdout && dup2(STDOUT_FILENO, 3) < 0)
		_exit(127);
	if (sp->out >= 0 && dup2(sp->out, 1) < 0)
		_exit(127);
	for (int fd = sp->keep_stdout ? 4 : 3; fd < 256; fd++)
		close(fd);
	sigemptyset(&live);
	for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++) {
		int sig = live_sigs[i];

		signal(sig, sigismember(&sp->ignore, sig) ? SIG_IGN : SIG_DFL);
		sigaddset(&live, sig);
	}
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &live, NULL);
	if (sp->env)
		setenv(sp->env, sp->env_val, 1);
}

/*
 * Fork and exec one of the two programs.  It dies with pp (LIVE_DEATHSIG) and
 * ignores the signals of @sp->ignore until it sets its own (a SIGUSR1 before
 * pp-analyze has a handler must not kill it; SIGINT is pp-analyze's to ignore
 * on a stream).  Return: its pid.
 */
static pid_t spawn(const char *bindir, const struct live_spawn *sp)
{
	char path[PATH_MAX + 32];
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	spawn_child_setup(sp);
	/* pp may have died before the prctl(): then nobody would send it */
	if (prctl(PR_SET_PDEATHSIG, LIVE_DEATHSIG) || getppid() != parent)
		_exit(127);
	const char *p = front_prog(bindir, sp->argv[0], path, sizeof(path));
	execvp(p, (char **)sp->argv);
	fprintf(stderr, "pp: cannot run %s: %s\n", p, strerror(errno));
	_exit(127);
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

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
 * @buf on pp's stdout if it can take it now, else nothing: stdout may be a pipe nobody
 * reads, filled by pp-analyze, and pp's loop must never wait on it (it stops the children
 * when told to).  A pipe is written through a file description of its own, non-blocking
 * (pp-analyze writes to it through the shared one, whose writes must stay blocking), and
 * takes up to PIPE_BUF bytes whole or not at all; a file is written as always (its own
 * description would write at offset 0); anything else only when poll() says it has room.
 */
static void write_nowait(const char *buf, size_t len)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat st;
	int fd;

	if (fstat(STDOUT_FILENO, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		struct iovec iov = { (void *)buf, len };

		(void)pp_writev_full(STDOUT_FILENO, &iov, 1, NULL);
	} else if (S_ISFIFO(st.st_mode) &&
		   (fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC)) >= 0) {
		(void)!write(fd, buf, len);
		close(fd);
	} else if (len <= PIPE_BUF && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT)) {
		(void)!write(STDOUT_FILENO, buf, len);
	}
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
	write_nowait(buf, len);
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
	uint8_t sink[LIVE_CHUNK_SZ];
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
			front_saver_close(lv->sv);
		return;
	}
	if (!lv->sv)
		return;
	front_saver_add(lv->sv, b, (size_t)n);
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
 * After a stop signal, how long ppoll() may wait: until the grace's end, when
 * pp-analyze is told to report what it has (SIGTERM), then until the kill's
 * end, when it is killed.  @tmo receives @left or NULL (no bound).
 * Return: true when pp-analyze was just told: the loop looks again first.
 */
static bool live_stop_due(struct live *lv, struct timespec *left, struct timespec **tmo)
{
	struct timespec now;

	*tmo = NULL;
	if (lv->stop == LIVE_RUNNING || lv->stop == LIVE_KILLED || lv->ana.done)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	left->tv_sec = lv->stop_by.tv_sec - now.tv_sec;
	left->tv_nsec = lv->stop_by.tv_nsec - now.tv_nsec;
	if (left->tv_nsec < 0) {
		left->tv_nsec += 1000000000L;
		left->tv_sec--;
	}
	if (left->tv_sec >= 0) {
		*tmo = left;
		return false;
	}
	if (lv->stop == LIVE_GRACE) {
		kill(lv->ana.pid, SIGTERM);	/* report what you have */
		lv->stop = LIVE_TERMED;
		lv->stop_by.tv_sec += LIVE_STOP_KILL_S;
		return true;
	}
	pp_err("pp-analyze did not end %d s after it was told to: killed",
	       LIVE_STOP_GRACE_S + LIVE_STOP_KILL_S);
	kill(lv->ana.pid, SIGKILL);
	lv->stop = LIVE_KILLED;
	return false;
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
		struct timespec left, *tmo;

		live_signals(lv);
		live_reap(lv);
		if (lv->rec.done && lv->ana.done && (!lv->sv || lv->in < 0))
			break;
		if (lv->in >= 0 && (lv->drain || (lv->sv && lv->off == lv->len)))
			fds[nfds++] = (struct pollfd){ .fd = lv->in, .events = POLLIN };
		if (lv->out >= 0 && lv->off < lv->len)
			fds[nfds++] = (struct pollfd){ .fd = lv->out, .events = POLLOUT };
		if (live_stop_due(lv, &left, &tmo))
			continue;
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
 * pp's signals wait for ppoll() (live_loop()), from before the first child:
 * blocked now, their handlers set; @waitmask receives the mask that lets
 * them in.
 */
static void live_block_signals(sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t live;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_live_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&live);
	for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++)
		sigaddset(&live, live_sigs[i]);
	sigprocmask(SIG_BLOCK, &live, waitmask);
	for (size_t i = 0; i < PP_ARRAY_SIZE(live_sigs); i++) {
		sigdelset(waitmask, live_sigs[i]);
		sigaction(live_sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The stream's pipe, and with --save @path (made now, to fail early; the
 * writer makes it anew) a second pipe from pp to pp-analyze.
 */
static void live_pipes(struct live *lv, const char *path, struct front_saver *sv)
{
	int p1[2], p2[2] = { -1, -1 };

	if (pipe(p1))
		pp_die("pipe: %s", strerror(errno));
	if (path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			pp_die("cannot write '%s': %s", path, strerror(errno));
		close(fd);
		if (pipe(p2))
			pp_die("pipe: %s", strerror(errno));
		front_saver_init(sv, path);
	}
	*lv = (struct live){
		.in = p1[0], .out = p2[1], .sv = path ? sv : NULL,
		.rec_out = p1[1], .ana_in = path ? p2[0] : p1[0],
	};
}

/*
 * pp-analyze first: pp-record leaves its events (and its children's: a
 * system() shell per event) out of the tracefs instance, as its own, so the
 * analysis does not watch itself (PP_ENV_NOTRACE_PID).  pp-record's refusal
 * is the one line: pp-analyze says nothing of the empty stream
 * (PP_ENV_LIVE_RECORDER).  Both ignore SIGUSR1 and SIGUSR2 until they handle
 * them; pp-analyze ignores SIGINT, which is pp-record's to end the stream.
 */
static void live_start(struct live *lv, const char *bindir, const struct front_live_argv *la)
{
	char ana_pid[32];
	struct live_spawn ana = {
		.argv = la->ana.v, .in = lv->ana_in, .out = -1,
		.env = PP_ENV_LIVE_RECORDER, .env_val = "1",
	};
	struct live_spawn rec = {
		.argv = la->rec.v, .in = -1, .out = lv->rec_out, .keep_stdout = la->nr_cmd > 0,
		.env = PP_ENV_NOTRACE_PID, .env_val = ana_pid,
	};

	sigemptyset(&rec.ignore);
	sigaddset(&rec.ignore, SIGUSR1);
	sigaddset(&rec.ignore, SIGUSR2);
	ana.ignore = rec.ignore;
	sigaddset(&ana.ignore, SIGINT);
	lv->rec = (struct child){ .name = "pp-record" };
	clock_gettime(CLOCK_MONOTONIC, &lv->rec.at);
	lv->ana = (struct child){ .name = "pp-analyze", .at = lv->rec.at };
	lv->ana.pid = spawn(bindir, &ana);
	snprintf(ana_pid, sizeof(ana_pid), "%d", (int)lv->ana.pid);
	lv->rec.pid = spawn(bindir, &rec);
	close(lv->rec_out);
	if (lv->sv) {
		close(lv->ana_in);
		fcntl(lv->out, F_SETFL, fcntl(lv->out, F_GETFL) | O_NONBLOCK);
		lv->buf = pp_xmalloc(LIVE_CHUNK_SZ);
	}
}

static void live_close(struct live *lv)
{
	if (lv->in >= 0)
		close(lv->in);
	if (lv->out >= 0)
		close(lv->out);
	free(lv->buf);
}

int front_live_run(const char *bindir, int argc, const char **argv)
{
	struct front_live_argv la;
	struct front_saver sv;
	struct live lv;
	sigset_t waitmask;

	front_live_argv_init(&la, argc, argv);
	live_block_signals(&waitmask);
	live_pipes(&lv, la.save, &sv);
	live_start(&lv, bindir, &la);
	live_loop(&lv, &waitmask);
	live_close(&lv);
	front_live_argv_release(&la);
	return lv.rec.code ? lv.rec.code : lv.ana.code;
}
