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
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
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

static volatile sig_atomic_t got_term;
static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

/* A SIGTERM or SIGHUP to pp ends the recording: pp-analyze then reads to the end. */
static void forward_term(pid_t rec)
{
	if (got_term) {
		kill(rec, SIGTERM);
		got_term = 0;
	}
}

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

/* Copy @in to @out and into the saved capture until EOF; EPIPE on @out stops the copy to it. */
static void tee_loop(int in, int out, struct saver *sv, pid_t rec)
{
	uint8_t buf[1 << 16];
	bool out_ok = true;

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR) {
			forward_term(rec);
			continue;
		}
		if (n <= 0)
			break;
		for (ssize_t off = 0; out_ok && off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				/* the analyzer is done (-N): stop the recording, keep saving */
				out_ok = false;
				kill(rec, SIGTERM);
				break;
			}
			off += w;
		}
		saver_add(sv, buf, (size_t)n);
	}
}

static pid_t spawn(const char *name, const char *const *argv, int in, int out)
{
	char path[PATH_MAX + 32];
	pid_t pid = fork();

	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (in >= 0 && dup2(in, 0) < 0)
			_exit(127);
		if (out >= 0 && dup2(out, 1) < 0)
			_exit(127);
		for (int fd = 3; fd < 256; fd++)
			close(fd);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
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
	/* Ctrl-C goes to the whole group; pp itself only waits. SIGTERM is forwarded. */
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* no SA_RESTART: waitpid() must return EINTR so the SIGTERM is forwarded */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	pid_t rec = spawn("pp-record", rv, -1, p1[1]);
	pid_t ana = spawn("pp-analyze", av, save ? p2[0] : p1[0], -1);
	close(p1[1]);
	if (save) {
		close(p2[0]);
		tee_loop(p1[0], p2[1], &sv, rec);
		close(p2[1]);
		saver_close(&sv);
		close(p1[0]);
		p1[0] = -1;
	}
	/*
	 * Without --save, pp keeps a read end of the pipe: when pp-analyze is done
	 * first (-N), pp-record gets a SIGTERM, not a broken pipe, and pp drains
	 * what it still writes.
	 */

	int rs = 0, as = 0, st, left = 2;
	while (left > 0) {
		forward_term(rec);
		pid_t w = waitpid(-1, &st, 0);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (w == rec) {
			rs = exit_code(st);
			left--;
		} else if (w == ana) {
			as = exit_code(st);
			left--;
			if (left)	/* the analyzer is gone: stop recording for it */
				kill(rec, SIGTERM);
			for (char sink[1 << 16]; left && p1[0] >= 0;) {
				ssize_t n = read(p1[0], sink, sizeof(sink));
				if (n == 0 || (n < 0 && errno != EINTR))
					break;
				forward_term(rec);
			}
		}
	}
	if (p1[0] >= 0)
		close(p1[0]);
	pp_buf_release(&forstr);
	free(rv);
	free(av);
	free(an);
	return rs ? rs : as;
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
	if (!strcmp(argv[1], "list"))
		return list_tracepoints(argc > 2 ? argv[2] : NULL);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			exec_prog("pp-analyze", 2, (const char *[]){ "help", argv[1] });
	return run_live(argc - 1, argv + 1);
}
