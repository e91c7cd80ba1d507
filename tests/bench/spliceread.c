/* SPDX-License-Identifier: MIT */
/*
 * spliceread.c - the least work a tracefs reader that keeps every event can do, around a
 * command: the bench's `splice reader` row, one step above floor.sh.
 *
 * Like floor.sh it makes a tracefs instance of its own (instances/pp-bench-splice-PID, `local`
 * clock, default buffer size) and enables EVENTS in it; unlike the floor, one thread per CPU
 * empties that CPU's ring while the command runs: splice() from per_cpu/cpuN/trace_pipe_raw
 * into a pipe, and from the pipe into /dev/null.  The pages change hands inside the kernel -
 * no decoding, no copy to user space, no file - so what this costs the workload above the
 * floor is what waking a reader and handing it the ring's pages costs on this machine, a
 * bound under any real recorder.  Each thread blocks in its splice() as trace-cmd's per-CPU
 * readers do, and the kernel wakes it when the ring is `buffer_percent` full (50 by default).
 *
 * After the command exits: tracing_on 0, the threads are woken (a signal) and drain what is
 * left without blocking - whole pages with splice(), the last partial page with read(), which
 * splice() does not hand out - then the events are disabled, the ring statistics read and the
 * instance removed.  The same cleanup runs on SIGINT, SIGTERM and SIGHUP (passed on to the
 * command) and when a reader thread fails (the command gets SIGTERM); either way the command
 * is reaped (SIGKILL after 2 s) and no tracefs state is left behind.
 *
 * usage: EVENTS="sched:sched_switch sched:sched_wakeup" spliceread CMD [ARGS...]
 * Ends with one line on stderr:
 *   SPLICEREAD cpus=N pages=N partial_pages=N bytes=N splices=N empty=N events=N lost=N
 * (pages moved by splice, pages read by the final read(), the bytes of both, splice() calls
 * that moved data and that returned nothing, and the rings' own counts: events read, and
 * overrun + dropped).
 * Exit status: the command's (128+N if it died of signal N); 1 if the instance could not be
 * set up or a reader failed; 128+N after signal N.  SPLICEREAD_FAIL_CPU=N makes CPU N's
 * reader fail at once (for the cleanup test).  Not here: decoding, storing, per-task filters.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define PIPE_WANT_SZ (1u << 20)		/* a half-full default ring (704 KiB) in one splice */
#define STOP_WAIT_MS 5000		/* a reader that does not leave its splice by then: a bug */

struct cpu_reader {
	struct splice_session *s;
	int cpu;
	int fd;				/* per_cpu/cpuN/trace_pipe_raw, blocking */
	int pipe[2];
	pthread_t thread;
	bool started;
	atomic_bool blocking_done;	/* left the blocking loop (stop seen) */
	uint64_t nr_pages;		/* moved by splice() */
	uint64_t nr_partial_pages;	/* read() at the end */
	uint64_t nr_bytes;
	uint64_t nr_splices;		/* splice() calls that moved data */
	uint64_t nr_empty;		/* ... and those that returned nothing */
	int err;			/* errno of the failure, 0 */
	const char *err_what;
};

struct splice_session {
	char inst[96];			/* TRACEFS/instances/pp-bench-splice-PID */
	char *events;			/* EVENTS, copied */
	size_t subbuf_sz;		/* a ring page */
	int devnull;
	int nr_cpus;
	struct cpu_reader *cpus;
	pid_t main_pid;
	atomic_bool stop;
	int fail_cpu;			/* SPLICEREAD_FAIL_CPU, -1 */
};

static void on_kick(int sig)
{
	(void)sig;			/* only interrupts a blocked splice() */
}

static void on_child(int sig)
{
	(void)sig;			/* SIGCHLD must not be ignored for sigwaitinfo() */
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int inst_write(struct splice_session *s, const char *file, const char *val)
{
	char path[sizeof(s->inst) + PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", s->inst, file);
	return write_str(path, val);
}

/* "sys:name" -> events/sys/name/enable; "name" alone is refused (floor.sh's form) */
static int event_enable(struct splice_session *s, const char *ev, bool on)
{
	char file[PATH_MAX];
	const char *colon = strchr(ev, ':');

	if (!colon || colon == ev || !colon[1])
		return -EINVAL;
	snprintf(file, sizeof(file), "events/%.*s/%s/enable", (int)(colon - ev), ev, colon + 1);
	return inst_write(s, file, on ? "1" : "0");
}

/* the events of EVENTS, one callback each; stops at the first error when @stop_on_err */
static int events_set(struct splice_session *s, bool on, bool stop_on_err)
{
	char *copy = strdup(s->events), *save = NULL, *ev;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (ev = strtok_r(copy, " \t\n", &save); ev; ev = strtok_r(NULL, " \t\n", &save)) {
		int e = event_enable(s, ev, on);

		if (e && stop_on_err) {
			fprintf(stderr, "spliceread: cannot enable %s: %s\n", ev,
				e == -EINVAL ? "not of the form system:event" : strerror(-e));
			err = e;
			break;
		}
	}
	free(copy);
	return err;
}

static uint64_t stats_field(const char *text, const char *key)
{
	const char *p = text;
	size_t len = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* events read and lost (overrun, commit overrun, dropped) over the rings, from their stats */
static void rings_stats(struct splice_session *s, uint64_t *events, uint64_t *lost)
{
	*events = *lost = 0;
	for (int i = 0; i < s->nr_cpus; i++) {
		char path[sizeof(s->inst) + 64], text[1024];
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", s->inst, s->cpus[i].cpu);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n <= 0)
			continue;
		text[n] = '\0';
		*events += stats_field(text, "read events") + stats_field(text, "entries");
		*lost += stats_field(text, "overrun") + stats_field(text, "commit overrun") +
			 stats_field(text, "dropped events");
	}
}

static void reader_fail(struct cpu_reader *r, const char *what, int err)
{
	if (r->err)
		return;
	r->err = err;
	r->err_what = what;
	kill(r->s->main_pid, SIGUSR1);	/* the main thread ends the run */
}

/* move @len bytes out of the pipe into /dev/null; 0 or -errno */
static int pipe_to_null(struct cpu_reader *r, size_t len)
{
	while (len) {
		ssize_t n = splice(r->pipe[0], NULL, r->s->devnull, NULL, len, SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		len -= (size_t)n;
	}
	return 0;
}

/* one splice() of whole pages out of the ring; >0 bytes moved, 0 nothing, -errno */
static ssize_t ring_splice(struct cpu_reader *r, size_t chunk, unsigned int flags)
{
	ssize_t n = splice(r->fd, NULL, r->pipe[1], NULL, chunk, SPLICE_F_MOVE | flags);
	int err;

	if (n < 0)
		return -errno;
	if (n == 0) {
		r->nr_empty++;
		return 0;
	}
	err = pipe_to_null(r, (size_t)n);
	if (err)
		return err;
	r->nr_pages += (uint64_t)n / r->s->subbuf_sz;
	r->nr_bytes += (uint64_t)n;
	r->nr_splices++;
	return n;
}

/* after the stop: whole pages without blocking, then the partial page with read() */
static void reader_drain(struct cpu_reader *r, size_t chunk)
{
	char *page = malloc(r->s->subbuf_sz);
	ssize_t n;

	if (!page) {
		reader_fail(r, "drain buffer", ENOMEM);
		return;
	}
	if (fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) | O_NONBLOCK) < 0) {
		reader_fail(r, "fcntl O_NONBLOCK", errno);
		goto out;
	}
	while ((n = ring_splice(r, chunk, SPLICE_F_NONBLOCK)) > 0 || n == -EINTR)
		;
	if (n < 0 && n != -EAGAIN) {
		reader_fail(r, "splice (drain)", (int)-n);
		goto out;
	}
	for (;;) {
		n = read(r->fd, page, r->s->subbuf_sz);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->nr_partial_pages++;
		r->nr_bytes += (uint64_t)n;
	}
	if (n < 0 && errno != EAGAIN)
		reader_fail(r, "read (drain)", errno);
out:
	free(page);
}

static void *reader_main(void *arg)
{
	struct cpu_reader *r = arg;
	struct splice_session *s = r->s;
	int sz = fcntl(r->pipe[1], F_GETPIPE_SZ);
	size_t chunk = sz > 0 ? (size_t)sz : s->subbuf_sz;

	chunk -= chunk % s->subbuf_sz;	/* splice from the ring takes whole pages */
	if (r->cpu == s->fail_cpu) {
		reader_fail(r, "SPLICEREAD_FAIL_CPU", EIO);
		atomic_store(&r->blocking_done, true);
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		/* blocks until the ring is buffer_percent full, or a kick */
		ssize_t n = ring_splice(r, chunk, 0);

		if (n < 0 && n != -EINTR && n != -EAGAIN) {
			reader_fail(r, "splice", (int)-n);
			atomic_store(&r->blocking_done, true);
			return NULL;
		}
	}
	atomic_store(&r->blocking_done, true);
	reader_drain(r, chunk);
	return NULL;
}

static int readers_open(struct splice_session *s)
{
	char path[sizeof(s->inst) + 64];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "%s/per_cpu", s->inst);
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		fprintf(stderr, "spliceread: cannot open %s: %s\n", path, strerror(errno));
		return err;
	}
	while ((de = readdir(dir))) {
		struct cpu_reader *grown, *r;
		char *end;
		long cpu;

		if (strncmp(de->d_name, "cpu", 3))
			continue;
		cpu = strtol(de->d_name + 3, &end, 10);
		if (end == de->d_name + 3 || *end || cpu < 0 || cpu > INT_MAX)
			continue;
		grown = realloc(s->cpus, (size_t)(s->nr_cpus + 1) * sizeof(*s->cpus));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		s->cpus = grown;
		r = &s->cpus[s->nr_cpus++];
		memset(r, 0, sizeof(*r));
		r->s = s;
		r->cpu = (int)cpu;
		r->fd = r->pipe[0] = r->pipe[1] = -1;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", s->inst, cpu);
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			err = -errno;
			fprintf(stderr, "spliceread: cannot open %s: %s\n", path, strerror(errno));
			break;
		}
		if (pipe2(r->pipe, O_CLOEXEC) < 0) {
			err = -errno;
			fprintf(stderr, "spliceread: pipe: %s\n", strerror(errno));
			break;
		}
		(void)fcntl(r->pipe[1], F_SETPIPE_SZ, (int)PIPE_WANT_SZ);	/* else 64 KiB */
	}
	closedir(dir);
	if (!err && !s->nr_cpus) {
		fprintf(stderr, "spliceread: no per_cpu/cpuN under %s\n", s->inst);
		err = -ENOENT;
	}
	return err;
}

static int readers_start(struct splice_session *s)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		int err = pthread_create(&s->cpus[i].thread, NULL, reader_main, &s->cpus[i]);

		if (err) {
			fprintf(stderr, "spliceread: cannot start a reader: %s\n", strerror(err));
			return -err;
		}
		s->cpus[i].started = true;
	}
	return 0;
}

/* tracing off, every reader out of its blocking splice() and drained, joined */
static void readers_stop(struct splice_session *s)
{
	struct timespec ms = { .tv_nsec = 1000000 };

	inst_write(s, "tracing_on", "0");
	atomic_store(&s->stop, true);
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu_reader *r = &s->cpus[i];

		if (!r->started)
			continue;
		/* a kick can land just before the thread enters splice(): repeat it */
		for (int t = 0; !atomic_load(&r->blocking_done); t++) {
			if (t == STOP_WAIT_MS) {
				fprintf(stderr, "spliceread: cpu%d's reader does not stop\n",
					r->cpu);
				break;
			}
			pthread_kill(r->thread, SIGUSR2);
			nanosleep(&ms, NULL);
		}
		pthread_join(r->thread, NULL);
		r->started = false;
	}
}

/* everything undone, in reverse: events, fds, instance; safe at any stage of setup */
static void session_cleanup(struct splice_session *s, bool made, uint64_t *events,
			    uint64_t *lost)
{
	readers_stop(s);
	if (made)
		events_set(s, false, false);
	if (events && lost)
		rings_stats(s, events, lost);
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu_reader *r = &s->cpus[i];

		if (r->fd >= 0)
			close(r->fd);
		if (r->pipe[0] >= 0)
			close(r->pipe[0]);
		if (r->pipe[1] >= 0)
			close(r->pipe[1]);
		r->fd = r->pipe[0] = r->pipe[1] = -1;
	}
	if (made && rmdir(s->inst) < 0)
		fprintf(stderr, "spliceread: cannot remove %s: %s\n", s->inst, strerror(errno));
}

/* @sig to the command, and reap it: after 2 s it gets SIGKILL (no orphan left running) */
static void child_end(pid_t pid, int sig, int *status)
{
	struct timespec ms = { .tv_nsec = 1000000 };

	kill(pid, sig);
	for (int t = 0; t < 2000; t++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
}

static size_t subbuf_size(void)
{
	char text[32] = "";
	long kb = 0;
	int fd = open(TRACEFS "/buffer_subbuf_size_kb", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, text, sizeof(text) - 1);

		if (n > 0)
			kb = strtol(text, NULL, 10);
		close(fd);
	}
	return kb > 0 ? (size_t)kb * 1024 : (size_t)sysconf(_SC_PAGESIZE);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: EVENTS=\"sys:event ...\" spliceread CMD [ARGS...]\n"
		"Runs CMD with EVENTS enabled in a tracefs instance of its own whose per-CPU rings\n"
		"one thread per CPU splices into /dev/null; prints a SPLICEREAD line on stderr.\n");
}

int main(int argc, char **argv)
{
	struct splice_session s = { .devnull = -1, .fail_cpu = -1 };
	struct sigaction kick = { .sa_handler = on_kick };	/* no SA_RESTART */
	struct sigaction chld = { .sa_handler = on_child };
	const char *ev = getenv("EVENTS"), *fail = getenv("SPLICEREAD_FAIL_CPU");
	uint64_t events = 0, lost = 0, pages = 0, partial = 0, bytes = 0, splices = 0, empty = 0;
	sigset_t waitset, blockset, oldset;
	int rc = 1, status = 0, got_sig = 0;
	bool made = false, failed = false;
	int go[2] = { -1, -1 };		/* the command's start signal */
	pid_t pid = -1;
	siginfo_t si;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!ev || !*ev) {
		fprintf(stderr, "spliceread: EVENTS is empty\n");
		return 2;
	}
	if (access(TRACEFS "/instances", W_OK) < 0) {
		fprintf(stderr, "spliceread: no writable tracefs instances under %s: %s\n",
			TRACEFS, strerror(errno));
		return 1;
	}
	s.events = strdup(ev);
	if (!s.events)
		return 1;
	if (fail && *fail)
		s.fail_cpu = atoi(fail);
	s.subbuf_sz = subbuf_size();
	s.main_pid = getpid();

	/* SIGINT/SIGTERM/SIGHUP, the command's end and a reader's failure come to sigwaitinfo() */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGHUP);
	sigaddset(&waitset, SIGCHLD);
	sigaddset(&waitset, SIGUSR1);
	blockset = waitset;		/* a closed stderr must not kill us before the cleanup */
	sigaddset(&blockset, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &blockset, &oldset);	/* the readers inherit it */
	sigaction(SIGUSR2, &kick, NULL);
	sigaction(SIGCHLD, &chld, NULL);

	s.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (s.devnull < 0) {
		fprintf(stderr, "spliceread: cannot open /dev/null: %s\n", strerror(errno));
		goto out;
	}
	snprintf(s.inst, sizeof(s.inst), TRACEFS "/instances/pp-bench-splice-%d", (int)s.main_pid);
	if (mkdir(s.inst, 0755) < 0) {
		fprintf(stderr, "spliceread: cannot create %s: %s\n", s.inst, strerror(errno));
		goto out;
	}
	made = true;
	inst_write(&s, "trace_clock", "local");

	/*
	 * The command is forked before the rings are opened and waits for a byte on @go: a
	 * trace_pipe_raw descriptor closed anywhere - in a child's exec() too, O_CLOEXEC or not -
	 * marks the reader closed, and from then on a blocking splice() on it returns 0 at once
	 * (the readers spun at 100% of a CPU when the command inherited them).
	 */
	if (pipe2(go, O_CLOEXEC) < 0) {
		fprintf(stderr, "spliceread: pipe: %s\n", strerror(errno));
		failed = true;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "spliceread: fork: %s\n", strerror(errno));
		failed = true;
		goto out;
	}
	if (pid == 0) {
		char c;

		close(go[1]);
		pthread_sigmask(SIG_SETMASK, &oldset, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the setup failed: the parent says nothing */
		execvp(argv[1], argv + 1);
		fprintf(stderr, "spliceread: cannot run '%s': %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	if (readers_open(&s) || readers_start(&s) || events_set(&s, true, true)) {
		failed = true;
		goto out;
	}
	if (write(go[1], "g", 1) != 1) {
		fprintf(stderr, "spliceread: cannot start the command: %s\n", strerror(errno));
		failed = true;
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	for (;;) {
		if (sigwaitinfo(&waitset, &si) < 0)
			continue;	/* EINTR: SIGUSR2 is not ours to get */
		if (si.si_signo == SIGCHLD) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
		} else if (si.si_signo == SIGUSR1) {
			failed = true;	/* a reader failed: end the command, then clean up */
			child_end(pid, SIGTERM, &status);
			break;
		} else {
			got_sig = si.si_signo;
			child_end(pid, got_sig, &status);
			break;
		}
	}
out:
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0) {
		close(go[1]);	/* the command never started: it exits now */
		if (pid > 0)
			waitpid(pid, &status, 0);
	}
	if (made || s.nr_cpus)
		session_cleanup(&s, made, &events, &lost);
	for (int i = 0; i < s.nr_cpus; i++) {
		struct cpu_reader *r = &s.cpus[i];

		if (r->err) {
			fprintf(stderr, "spliceread: cpu%d: %s: %s\n", r->cpu, r->err_what,
				strerror(r->err));
			failed = true;
		}
		pages += r->nr_pages;
		partial += r->nr_partial_pages;
		bytes += r->nr_bytes;
		splices += r->nr_splices;
		empty += r->nr_empty;
	}
	if (made)
		fprintf(stderr, "SPLICEREAD cpus=%d pages=%" PRIu64 " partial_pages=%" PRIu64
			" bytes=%" PRIu64 " splices=%" PRIu64 " empty=%" PRIu64 " events=%" PRIu64
			" lost=%" PRIu64 "\n", s.nr_cpus, pages, partial, bytes, splices, empty,
			events, lost);
	if (got_sig)
		rc = 128 + got_sig;
	else if (failed)
		rc = 1;
	else if (pid > 0)
		rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (s.devnull >= 0)
		close(s.devnull);
	free(s.cpus);
	free(s.events);
	return rc;
}
