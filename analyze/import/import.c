/* SPDX-License-Identifier: MIT */
/*
 * import.c - the table of foreign formats, and their conversion into a capture a
 * session opens.
 *
 * A file is converted once per process into an unlinked temporary capture in
 * $TMPDIR (the size of a capture of the same events: a few times smaller than
 * a perf.data); every session on it (the parts of -j N too) opens its own file
 * description through /proc/self/fd, so their reads do not share an offset.
 * Standard input is converted as it arrives: a thread writes a streaming
 * capture (no index) into a pipe the session reads, as live mode's pp-record
 * does.  Not here: the formats themselves (perfdata*.c, tracedat.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/import/impchild.h"
#include "analyze/import/import.h"
#include "analyze/import/tdprobe.h"
#include "analyze/import/tracedat.h"
#include "common/err.h"
#include "common/log.h"
#include "format/format.h"
#include "format/segq.h"

static bool magic_perfdata(const uint8_t *h, size_t n)
{
	/* "PERFILE2" in the file's byte order: either order is recognised, the reader
	 * refuses the big-endian one by name */
	return n >= 8 && (!memcmp(h, "PERFILE2", 8) || !memcmp(h, "2ELIFREP", 8));
}

static bool magic_tracedat(const uint8_t *h, size_t n)
{
	return n >= 10 && !memcmp(h, "\x17\x08\x44tracing", 10);
}

static const struct ana_importer importers[] = {
	{ "perf.data", magic_perfdata, ana_import_perfdata, NULL },
	{ "trace.dat", magic_tracedat, ana_import_tracedat, NULL, true, ana_td_died },
};

const struct ana_importer *ana_importer_find(const uint8_t *head, size_t n)
{
	for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]); i++)
		if (importers[i].magic(head, n))
			return &importers[i];
	return NULL;
}

void ana_import_lack(struct ana_import_info *info, const char *fmt, ...)
{
	char line[ANA_IMPORT_LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < info->nr_lacks; i++)
		if (!strcmp(info->lacks[i], line))
			return;
	if (info->nr_lacks < ANA_IMPORT_MAX_LINES)
		memcpy(info->lacks[info->nr_lacks++], line, sizeof(line));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ana_import_progress(struct ana_import_info *info, uint64_t done)
{
	uint64_t now = mono_ns();

	if (info->quiet || !isatty(2))
		return;
	if (!info->start_ns) {
		info->start_ns = now;
		return;
	}
	if (now - info->start_ns < 1000000000ull || now - info->shown_ns < 200000000ull)
		return;
	info->shown_ns = now;
	if (info->total_bytes)
		fprintf(stderr, "\rimporting: %llu of %llu MiB (%u%%)   ",
			(unsigned long long)(done >> 20), (unsigned long long)(info->total_bytes >> 20),
			(unsigned)(done * 100 / info->total_bytes));
	else
		fprintf(stderr, "\rimporting: %llu MiB   ", (unsigned long long)(done >> 20));
}

/* The first bytes of standard input without consuming them: tee(2) of a pipe, pread of a file. */
static size_t peek_stdin(uint8_t *head, size_t want)
{
	struct stat st;
	int p[2];
	ssize_t n = 0;

	if (fstat(0, &st))
		return 0;
	if (S_ISREG(st.st_mode)) {
		n = pread(0, head, want, lseek(0, 0, SEEK_CUR));
		return n > 0 ? (size_t)n : 0;
	}
	if (!S_ISFIFO(st.st_mode) || pipe2(p, O_CLOEXEC))
		return 0;
	/* a writer puts its header in one write (pp-record 64 bytes, perf 16): a short
	 * peek is waited for a little, then taken as it is */
	for (int tries = 0; tries < 2000; tries++) {
		n = tee(0, p[1], want, 0);
		if (n <= 0 || (size_t)n >= want)
			break;
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
	if (n > 0)
		n = read(p[0], head, (size_t)n);
	close(p[0]);
	close(p[1]);
	return n > 0 ? (size_t)n : 0;
}

int ana_import_sniff(const char *path, const struct ana_importer **imp, char *err, size_t errsz)
{
	uint8_t head[16];
	size_t n = 0;

	*imp = NULL;
	if (!strcmp(path, "-")) {
		n = peek_stdin(head, 10);
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t r;

		if (fd < 0)
			return 0;	/* the capture reader says why */
		r = read(fd, head, sizeof(head));
		close(fd);
		n = r > 0 ? (size_t)r : 0;
	}
	*imp = ana_importer_find(head, n);
	if (*imp && !(*imp)->convert) {
		snprintf(err, errsz, "'%s' is a %s file: %s", path, (*imp)->name, (*imp)->missing);
		*imp = NULL;
		return PP_EBAD_MAGIC;
	}
	return 0;
}

/* The capture's own record of the import: what `info` shows. */
static int write_info_kv(struct ppf_writer *w, const struct ana_import_info *in)
{
	char v[64], key[32];
	int rc;

	rc = ppf_write_kv(w, "import.tool", in->tool);
	if (!rc)
		rc = ppf_write_kv(w, "import.version", in->version);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->records);
	if (!rc)
		rc = ppf_write_kv(w, "import.records", v);
	for (unsigned i = 0; i < in->nr_lacks && !rc; i++) {
		snprintf(key, sizeof(key), "import.lacks.%u", i + 1);
		rc = ppf_write_kv(w, key, in->lacks[i]);
	}
	if (!rc && in->stopped[0])
		rc = ppf_write_kv(w, "import.stopped", in->stopped);
	return rc;
}

int ana_import_to(const char *path, const struct ana_importer *imp, struct ppf_writer *w,
		  struct ana_import_info *info, char *err, size_t errsz)
{
	int rc = imp->convert(path, w, info);

	if (info->start_ns && info->shown_ns)
		fprintf(stderr, "\r%40s\r", "");
	if (rc) {
		snprintf(err, errsz, "cannot import '%s' (%s): %s", path, imp->name,
			 info->stopped[0] ? info->stopped : ppf_writer_errmsg(w)[0] ?
			 ppf_writer_errmsg(w) : pp_strerror(rc));
		return rc;
	}
	rc = write_info_kv(w, info);
	if (rc)
		snprintf(err, errsz, "cannot import '%s': %s", path, ppf_writer_errmsg(w));
	return rc;
}

void ana_import_print(FILE *fp, const char *path, const struct ana_import_info *in)
{
	fprintf(fp, "%s: written by %s%s%s, converted to a capture\n", path, in->tool,
		in->version[0] ? " " : "", in->version);
	for (unsigned i = 0; i < in->nr_lacks; i++)
		fprintf(fp, "%s: %s\n", path, in->lacks[i]);
	if (in->stopped[0])
		fprintf(fp, "%s: %s\n", path, in->stopped);
}

/* --- sessions: one conversion per file and process ------------------------- */

struct converted {
	char *path;
	int fd;			/* the unlinked temporary capture */
};

static pthread_mutex_t conv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct converted conv[8];
static size_t nr_conv;

static int temp_capture(char *err, size_t errsz)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd;

	snprintf(tmpl, sizeof(tmpl), "%s/pp-import-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		snprintf(err, errsz, "cannot create a temporary capture in '%s': %s",
			 dir && *dir ? dir : "/tmp", strerror(errno));
		return e;
	}
	unlink(tmpl);
	return fd;
}

static int convert_file(const char *path, const struct ana_importer *imp, char *err, size_t errsz)
{
	struct ppf_writer_opts o = { .zstd_level = -20, .own_fd = false };
	struct ana_import_info *info = calloc(1, sizeof(*info));
	struct ppf_writer *w = NULL;
	int fd, rc;

	if (!info)
		return -ENOMEM;
	fd = temp_capture(err, errsz);
	if (fd < 0) {
		free(info);
		return fd;
	}
	rc = ppf_writer_open_fd(fd, &o, &w);
	if (!rc)
		rc = ana_import_to(path, imp, w, info, err, errsz);
	else
		snprintf(err, errsz, "cannot write a temporary capture: %s", ppf_writer_errmsg(w));
	if (w) {
		int rc2 = ppf_writer_close(w);
		if (!rc && rc2) {
			rc = rc2;
			snprintf(err, errsz, "cannot write a temporary capture: %s", pp_strerror(rc2));
		}
	}
	if (!rc)
		ana_import_print(stderr, path, info);
	free(info);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* A writer closed on a path that has said its error already. */
static void writer_drop(struct ppf_writer *w)
{
	if (ppf_writer_close(w))
		return;
}

/* standard input: a thread converts it into a pipe the session reads */
struct stream_job {
	const struct ana_importer *imp;
	struct ppf_writer *w;
};

static void *stream_main(void *arg)
{
	struct stream_job *j = arg;
	struct ana_import_info *info = calloc(1, sizeof(*info));
	char err[512];
	int rc;

	if (!info) {
		pp_err("out of memory");
		writer_drop(j->w);
		free(j);
		return NULL;
	}
	info->quiet = true;
	rc = ana_import_to("-", j->imp, j->w, info, err, sizeof(err));
	if (rc)
		pp_err("%s", err);
	else
		ana_import_print(stderr, "-", info);
	writer_drop(j->w);	/* closes the pipe: the reader sees the end */
	free(info);
	free(j);
	return NULL;
}

static int convert_stream(const struct ana_importer *imp, char *err, size_t errsz)
{
	struct ppf_writer_opts o = { .zstd_level = 1, .own_fd = true, .no_index = true,
				     .seg_max_age_ns = 100000000ull, .seg_max_raw = 256 << 10 };
	struct stream_job *j = calloc(1, sizeof(*j));
	pthread_t th;
	int p[2], rc;

	if (!j || pipe2(p, O_CLOEXEC)) {
		free(j);
		snprintf(err, errsz, "cannot make a pipe: %s", strerror(errno));
		return -errno;
	}
	j->imp = imp;
	rc = ppf_writer_open_fd(p[1], &o, &j->w);
	if (rc) {
		snprintf(err, errsz, "cannot stream a capture: %s", pp_strerror(rc));
		writer_drop(j->w);
		close(p[0]);
		free(j);
		return rc;
	}
	if (pthread_create(&th, NULL, stream_main, j)) {
		snprintf(err, errsz, "cannot start the import thread");
		writer_drop(j->w);
		close(p[0]);
		free(j);
		return -EAGAIN;
	}
	pthread_detach(th);
	return p[0];
}

int ana_import_open(const char *path, const struct ana_importer *imp, char *out, size_t outsz,
		    char *err, size_t errsz)
{
	int fd = -1;

	if (!strcmp(path, "-")) {
		fd = convert_stream(imp, err, errsz);
		if (fd < 0)
			return fd;
		snprintf(out, outsz, "/proc/self/fd/%d", fd);
		return 0;
	}
	pthread_mutex_lock(&conv_lock);
	for (size_t i = 0; i < nr_conv; i++)
		if (!strcmp(conv[i].path, path))
			fd = conv[i].fd;
	if (fd < 0) {
		fd = convert_file(path, imp, err, errsz);
		if (fd >= 0 && nr_conv < sizeof(conv) / sizeof(conv[0]))
			conv[nr_conv++] = (struct converted){ strdup(path), fd };
	}
	pthread_mutex_unlock(&conv_lock);
	if (fd < 0)
		return fd;
	snprintf(out, outsz, "/proc/self/fd/%d", fd);
	return 0;
}

/* --- a session's capture in memory (ana_import_stream()) ------------------- */

#define STREAM_DEPTH 4	/* segments in the queue: the writer's, the reader's and two between */

struct ana_import_job {
	const struct ana_importer *imp;
	char *path;
	struct ppf_segq *q;
	struct ppf_writer *w;
	struct ana_import_child *child;	/* @imp->died: the conversion's process */
	pthread_t th;
	char err[512];
};

static void *job_main(void *arg)
{
	struct ana_import_job *j = arg;
	struct ana_import_info *info = calloc(1, sizeof(*info));
	int rc = -ENOMEM, rc2;

	snprintf(j->err, sizeof(j->err), "cannot import '%s': out of memory", j->path);
	if (info) {
		info->quiet = true;	/* the session shows its own progress */
		rc = ana_import_to(j->path, j->imp, j->w, info, j->err, sizeof(j->err));
	}
	rc2 = ppf_writer_close(j->w);
	j->w = NULL;
	if (!rc && rc2) {
		rc = rc2;
		snprintf(j->err, sizeof(j->err), "cannot import '%s': %s", j->path, pp_strerror(rc2));
	}
	/* before the close: the reader meets the end after these lines, as after a file's */
	if (!rc)
		ana_import_print(stderr, j->path, info);
	free(info);
	ppf_segq_close(j->q, rc, rc ? j->err : NULL);
	ppf_segq_unref(j->q);	/* the writer's side */
	return NULL;
}

/* The thread of a conversion in a child: its pieces into the queue. */
static void *relay_main(void *arg)
{
	struct ana_import_job *j = arg;

	ana_import_child_relay(j->child, j->err, sizeof(j->err));
	return NULL;
}

static void job_free(struct ana_import_job *j)
{
	ana_import_child_free(j->child);
	free(j->path);
	free(j);
}

int ana_import_stream(const char *path, const struct ana_importer *imp, struct ppf_segq **q,
		      struct ana_import_job **job, char *err, size_t errsz)
{
	/* the reader decodes what it is handed: no zstd, checksum, index or digest */
	struct ppf_writer_opts o = { .in_memory = true, .no_index = true, .no_digest = true };
	struct ana_import_job *j = calloc(1, sizeof(*j));
	int rc;

	*q = NULL;
	*job = NULL;
	if (!j || !(j->path = strdup(path)) || ppf_segq_new(STREAM_DEPTH, &j->q)) {
		if (j)
			job_free(j);
		snprintf(err, errsz, "cannot import '%s': out of memory", path);
		return -ENOMEM;
	}
	j->imp = imp;
	if (imp->died) {
		rc = ana_import_child_start(path, imp, j->q, &j->child, err, errsz);
		if (rc) {
			ppf_segq_unref(j->q);
			ppf_segq_unref(j->q);
			job_free(j);
			return rc;
		}
		if (pthread_create(&j->th, NULL, relay_main, j))
			rc = -EAGAIN;	/* the child ends when the pipes close with j */
	} else {
		rc = ppf_writer_open_cb(ppf_segq_sink, j->q, &o, &j->w);
		if (!rc && pthread_create(&j->th, NULL, job_main, j))
			rc = -EAGAIN;
	}
	if (rc) {
		snprintf(err, errsz, "cannot import '%s': %s", path, pp_strerror(rc));
		if (j->w)
			writer_drop(j->w);
		ppf_segq_unref(j->q);
		ppf_segq_unref(j->q);
		job_free(j);
		return rc;
	}
	rc = ppf_segq_wait_segment(j->q);
	if (rc) {	/* it failed before any segment, saying why in j->err: as convert_file() */
		snprintf(err, errsz, "%s", j->err);
		pthread_join(j->th, NULL);
		ppf_segq_unref(j->q);
		job_free(j);
		return rc;
	}
	*q = j->q;	/* the reader's reference */
	*job = j;
	return 0;
}

void ana_import_job_end(struct ana_import_job *job)
{
	if (!job)
		return;
	pthread_join(job->th, NULL);
	job_free(job);
}
