/* SPDX-License-Identifier: MIT */
/*
 * impchild.c - a conversion in a forked child, its pieces relayed through shared memory
 * (impchild.h).
 *
 * The mapping holds NR_SLOTS slots of the largest payload a segment can have (virtual:
 * only the pages written are memory).  The child fills them in turn, one per piece, and
 * may fill one only with a credit: it starts with NR_SLOTS, and the parent gives one back
 * each time the reader releases a piece, the oldest first, which is the slot the child
 * fills next.  Once the reader has left, every piece is given back at once: the child
 * still converts to its end, so that what it says is counted over the whole file (as
 * ana_import_job_end() wants).  Notes are under PIPE_BUF bytes: written and read whole.
 * Credits go through a socket, so that giving one to a child that has ended is no SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/import/impchild.h"
#include "analyze/import/import.h"
#include "common/err.h"
#include "common/log.h"
#include "format/format.h"
#include "format/segq.h"

enum { NR_SLOTS = 4, NOTE_END = 100 };
#define SLOT_SZ ((size_t)PPF_SEG_MAX_RAW)

/* A piece in slot (n % NR_SLOTS) for the n-th note; NOTE_END: struct end follows. */
struct note {
	uint32_t what;			/* enum ppf_chunk_kind, or NOTE_END */
	uint32_t head_sz;
	uint64_t body_sz;
	uint8_t head[PPF_SEG_HDR_SZ];
};

struct end {
	int32_t rc;
	char err[512];
	struct ana_import_info info;
};

struct ana_import_child {
	const struct ana_importer *imp;
	char *path;
	struct ppf_segq *q;
	uint8_t *slots;			/* NR_SLOTS * SLOT_SZ, shared */
	pid_t pid;
	int note_fd, credit_fd;		/* the parent's ends (the child's in the child) */
	uint64_t n;			/* pieces so far */
	uint64_t nr_segments;		/* segments among them (the parent's count) */
	unsigned credits;		/* the child's */
};

static const int fatal_signals[] = { SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGALRM };

/*
 * A sanitizer's: where its reports go.  Weak: NULL in a build without one.  A sanitizer that
 * was given a report fd (libFuzzer's -close_fd_mask) reopens it by path in a forked child,
 * and with no path set writes ".PID" files into the working directory.
 */
void __sanitizer_set_report_path(const char *path) __attribute__((weak));

void ana_import_child_setup(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	if (__sanitizer_set_report_path)
		__sanitizer_set_report_path("stderr");	/* now /dev/null */
	/* its death is expected: no core file, nor one handed to a core_pattern pipe */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (size_t i = 0; i < PP_ARRAY_SIZE(fatal_signals); i++)
		signal(fatal_signals[i], SIG_DFL);
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EPIPE;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* @n bytes, or fewer at the end of the pipe.  Return: the bytes read, or -errno. */
static ssize_t read_all(int fd, void *p, size_t n)
{
	size_t got = 0;
	ssize_t r = 1;

	while (got < n && r) {
		r = read(fd, (uint8_t *)p + got, n - got);
		if (r > 0)
			got += (size_t)r;
		else if (r < 0 && errno != EINTR)
			return -errno;
		else if (r < 0)
			r = 1;	/* interrupted: again */
	}
	return (ssize_t)got;
}

/* --- the child ---------------------------------------------------------------- */

/* The child's writer sink: the piece into the next slot, once the parent gave it back. */
static int child_sink(void *arg, const struct ppf_chunk *ch)
{
	struct ana_import_child *c = arg;
	struct note nt = { .what = ch->what, .head_sz = (uint32_t)ch->head_sz,
			   .body_sz = ch->body_sz };
	uint8_t got[64];

	if (ch->head_sz > sizeof(nt.head) || ch->body_sz > SLOT_SZ)
		return -E2BIG;
	while (!c->credits) {
		ssize_t r = read(c->credit_fd, got, sizeof(got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EPIPE;	/* the parent is gone */
		c->credits += (unsigned)r;
	}
	if (ch->body_sz)
		memcpy(c->slots + (c->n % NR_SLOTS) * SLOT_SZ, ch->body, ch->body_sz);
	memcpy(nt.head, ch->head, ch->head_sz);
	c->n++;
	c->credits--;
	return write_all(c->note_fd, &nt, sizeof(nt));
}

/* The child: convert, say how it ended, exit.  Does not return. */
static void __attribute__((noreturn)) child_main(struct ana_import_child *c)
{
	struct ppf_writer_opts o = { .in_memory = true, .no_index = true, .no_digest = true };
	static struct end e;
	struct ppf_writer *w = NULL;
	struct note nt = { .what = NOTE_END };
	int rc, rc2;

	ana_import_child_setup();
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	c->credits = NR_SLOTS;
	e.info.quiet = true;
	e.info.in_child = true;
	rc = ppf_writer_open_cb(child_sink, c, &o, &w);
	if (rc)
		snprintf(e.err, sizeof(e.err), "cannot import '%s': %s", c->path, pp_strerror(rc));
	else
		rc = ana_import_to(c->path, c->imp, w, &e.info, e.err, sizeof(e.err));
	rc2 = w ? ppf_writer_close(w) : 0;
	if (!rc && rc2) {
		rc = rc2;
		snprintf(e.err, sizeof(e.err), "cannot import '%s': %s", c->path, pp_strerror(rc2));
	}
	e.rc = rc;
	if (!write_all(c->note_fd, &nt, sizeof(nt)))
		write_all(c->note_fd, &e, sizeof(e));
	_exit(0);	/* no atexit handlers, no stdio flush of the parent's buffers */
}

/* --- the parent --------------------------------------------------------------- */

/* ppf_segq_on_release()'s hook: a slot back to the child; all of them once the reader left. */
static void give_back(void *arg, bool left)
{
	struct ana_import_child *c = arg;
	uint8_t credits[NR_SLOTS] = { 0 };
	size_t n = left ? sizeof(credits) : 1;
	ssize_t w;

	/* a socket, not a pipe: no SIGPIPE when the child is gone (the relay finds out) */
	do
		w = send(c->credit_fd, credits, n, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
}

int ana_import_child_start(const char *path, const struct ana_importer *imp,
			   struct ppf_segq *q, struct ana_import_child **out, char *err,
			   size_t errsz)
{
	struct ana_import_child *c = calloc(1, sizeof(*c));
	int notes[2] = { -1, -1 }, credits[2] = { -1, -1 };

	*out = NULL;
	if (!c || !(c->path = strdup(path))) {
		free(c);
		snprintf(err, errsz, "cannot import '%s': out of memory", path);
		return -ENOMEM;
	}
	c->imp = imp;
	c->q = q;
	c->slots = mmap(NULL, NR_SLOTS * SLOT_SZ, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	fflush(NULL);	/* the child inherits no half-written stdio buffer to flush twice */
	if (c->slots == MAP_FAILED || pipe2(notes, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, credits) ||
	    (c->pid = fork()) < 0) {
		int e = -errno;

		snprintf(err, errsz, "cannot import '%s': cannot start its converter: %s", path,
			 strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (notes[i] >= 0)
				close(notes[i]);
			if (credits[i] >= 0)
				close(credits[i]);
		}
		c->slots = c->slots == MAP_FAILED ? NULL : c->slots;
		c->note_fd = c->credit_fd = -1;
		ana_import_child_free(c);
		return e;
	}
	if (!c->pid) {
		close(notes[0]);
		close(credits[1]);
		c->note_fd = notes[1];
		c->credit_fd = credits[0];
		child_main(c);
	}
	close(notes[1]);
	close(credits[0]);
	c->note_fd = notes[0];
	c->credit_fd = credits[1];
	ppf_segq_on_release(q, give_back, c);
	*out = c;
	return 0;
}

/* The child reaped.  Return: its wait status, or -errno. */
static int reap(struct ana_import_child *c)
{
	int status = 0;
	pid_t got;

	do
		got = waitpid(c->pid, &status, 0);
	while (got < 0 && errno == EINTR);
	c->pid = 0;
	return got < 0 ? -errno : status;
}

/* The child ended without its end: reaped, and what the importer calls that in @err. */
static int child_died(struct ana_import_child *c, char *err, size_t errsz)
{
	char why[256];
	int status = reap(c);

	if (status < 0)
		snprintf(why, sizeof(why), "its converter was lost: %s", strerror(errno));
	else
		c->imp->died(status, c->nr_segments > 0, why, sizeof(why));
	snprintf(err, errsz, "cannot import '%s' (%s): %s", c->path, c->imp->name, why);
	return PP_EBAD_RECORD;
}

/* The child's end as it sent it: its code, message and lines, bounded. */
static int end_said(struct ana_import_child *c, struct end *e, char *err, size_t errsz)
{
	struct ana_import_info *in = &e->info;

	e->err[sizeof(e->err) - 1] = 0;
	in->tool[sizeof(in->tool) - 1] = in->version[sizeof(in->version) - 1] = 0;
	in->stopped[sizeof(in->stopped) - 1] = 0;
	if (in->nr_lacks > ANA_IMPORT_MAX_LINES)
		in->nr_lacks = ANA_IMPORT_MAX_LINES;
	for (unsigned i = 0; i < in->nr_lacks; i++)
		in->lacks[i][ANA_IMPORT_LINE - 1] = 0;
	if (e->rc > 0 || (e->rc && !e->err[0]))
		e->rc = PP_EBAD_RECORD;
	if (e->rc) {
		snprintf(err, errsz, "%s", e->err[0] ? e->err : "the conversion failed");
		return e->rc;
	}
	/* before the close: the reader meets the end after these lines, as after a file's */
	ana_import_print(stderr, c->path, in);
	return 0;
}

/* The child's end after its NOTE_END. */
static int child_end(struct ana_import_child *c, char *err, size_t errsz)
{
	struct end *e = calloc(1, sizeof(*e));
	int rc;

	if (!e) {
		snprintf(err, errsz, "cannot import '%s': out of memory", c->path);
		return -ENOMEM;
	}
	rc = read_all(c->note_fd, e, sizeof(*e)) == (ssize_t)sizeof(*e) ?
	     end_said(c, e, err, errsz) : child_died(c, err, errsz);
	free(e);
	return rc;
}

int ana_import_child_relay(struct ana_import_child *c, char *err, size_t errsz)
{
	struct note nt;
	int rc = 0;

	for (;;) {
		if (read_all(c->note_fd, &nt, sizeof(nt)) != (ssize_t)sizeof(nt)) {
			rc = child_died(c, err, errsz);
			break;
		}
		if (nt.what == NOTE_END) {
			rc = child_end(c, err, errsz);
			break;
		}
		if (nt.what < PPF_CHUNK_FILE_HDR || nt.what > PPF_CHUNK_TRAILER ||
		    nt.head_sz > sizeof(nt.head) || nt.body_sz > SLOT_SZ ||
		    (nt.body_sz && nt.what != PPF_CHUNK_SEGMENT)) {
			kill(c->pid, SIGKILL);
			child_died(c, err, errsz);
			snprintf(err, errsz, "cannot import '%s' (%s): its converter sent a piece"
				 " out of bounds", c->path, c->imp->name);
			rc = PP_EBAD_RECORD;
			break;
		}
		if (ppf_segq_push_lent(c->q, (enum ppf_chunk_kind)nt.what, nt.head, nt.head_sz,
				       c->slots + (c->n % NR_SLOTS) * SLOT_SZ, nt.body_sz))
			give_back(c, false);	/* the reader left: straight back */
		c->n++;
		c->nr_segments += nt.what == PPF_CHUNK_SEGMENT;
	}
	if (c->pid > 0)
		reap(c);	/* it ended as it should */
	ppf_segq_close(c->q, rc, rc ? err : NULL);
	ppf_segq_unref(c->q);	/* the writer's side */
	c->q = NULL;
	return rc;
}

void ana_import_child_free(struct ana_import_child *c)
{
	if (!c)
		return;
	if (c->pid > 0) {	/* no relay ran: not reaped, so the pid is still its */
		kill(c->pid, SIGKILL);
		reap(c);
	}
	if (c->note_fd >= 0)
		close(c->note_fd);
	if (c->credit_fd >= 0)
		close(c->credit_fd);
	if (c->slots)
		munmap(c->slots, NR_SLOTS * SLOT_SZ);
	free(c->path);
	free(c);
}
