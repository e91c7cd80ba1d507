/* SPDX-License-Identifier: MIT */
/*
 * prod.c - size limits, rotation, the flight recorder and its trigger.
 *
 * Both rotation and the flight recorder put a sink (format/: ppf_writer_open_cb)
 * under the session's writer, so the rest of pp-record writes records as
 * usual:
 *
 *   rotation:  sink -> FILE.n; once FILE.n holds max_size bytes, the next
 *              record first closes it, opens FILE.n+1 and writes the
 *              metadata again (rotate_switch), then FILE.n+1-N is removed.
 *   flight:    sink -> memory: events segments (and the side-band digests
 *              after them; a dump first has the writer write the pending one,
 *              so that every segment it copies has its digest) into a ring trimmed to
 *              flight_size (not after a trigger: the post-trigger window
 *              adds up to flight_size), symbol segments aside, metadata dropped; a dump
 *              (flight_dump) writes fresh metadata, the symbols and the ring
 *              into FILE.n through ppf_writer_put_segment().
 *
 * The metadata of a file that starts mid-recording (write_meta) is stamped
 * with the time of the last record written before it, so the file stays in
 * time order; its task table and maps are the tracked ones (tasks.c,
 * symbols.c), which are exact at that point, not a fresh /proc read, which
 * would be ahead of the records still in the merge queues.
 * Not here: the writer itself (format/writer.c), the poll loop (session.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/err.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sys.h"
#include "common/units.h"
#include "format/format.h"
#include "record/err.h"
#include "record/perf/insn.h"
#include "record/ring/prod.h"
#include "record/session.h"
#include "record/symbols/snapshot.h"
#include "record/symbols/symbols.h"
#include "record/symbols/tasks.h"

volatile sig_atomic_t rec_dump;

/* Exited tasks stay in a new file's table this long: their last events follow the EXIT. */
#define REC_TASK_GRACE_NS 1000000000ull

/* --- kept segments ------------------------------------------------------ */

static struct rec_kseg *kseg_new(const struct ppf_chunk *c)
{
	struct rec_kseg *k = pp_xmalloc(sizeof(*k) + c->head_sz + c->body_sz);

	k->next = NULL;
	k->kind = c->seg_kind;
	k->first_ns = c->first_ns;
	k->last_ns = c->last_ns;
	k->nr_samples = c->nr_samples;
	k->len = c->head_sz + c->body_sz;
	memcpy(k->data, c->head, c->head_sz);
	memcpy(k->data + c->head_sz, c->body, c->body_sz);
	return k;
}

static void ksegq_push(struct rec_ksegq *q, struct rec_kseg *k)
{
	if (q->tail)
		q->tail->next = k;
	else
		q->head = k;
	q->tail = k;
	q->nr++;
	q->bytes += k->len;
}

static void ksegq_drop_head(struct rec_ksegq *q)
{
	struct rec_kseg *k = q->head;

	q->head = k->next;
	if (!q->head)
		q->tail = NULL;
	q->nr--;
	q->bytes -= k->len;
	free(k);
}

static void ksegq_release(struct rec_ksegq *q)
{
	while (q->head)
		ksegq_drop_head(q);
}

static int ksegq_copy(const struct rec_ksegq *q, struct ppf_writer *w)
{
	int rc = 0;

	for (const struct rec_kseg *k = q->head; k && !rc; k = k->next)
		rc = ppf_writer_put_segment(w, k->data, k->len);
	return rc;
}

/* --- files -------------------------------------------------------------- */

static char *part_path(const struct rec_prod *p, uint64_t n)
{
	return pp_xasprintf("%s.%llu", p->base, (unsigned long long)n);
}

/* Remove the series FILE.0, FILE.1 ... a previous run left, as -o truncates FILE. */
static void remove_old_series(const struct rec_prod *p)
{
	unsigned nr = 0;

	for (uint64_t n = 0;; n++) {
		char *path = part_path(p, n);
		int rc = unlink(path);

		free(path);
		if (rc)
			break;
		nr++;
	}
	if (nr)
		pp_info("removed %u files of an earlier series %s.0 ...", nr, p->base);
}

static void remove_beyond_rotation(const struct rec_prod *p, uint64_t newest)
{
	if (p->rotate && newest >= p->rotate) {
		char *path = part_path(p, newest - p->rotate);

		if (unlink(path) && errno != ENOENT)
			pp_warn("cannot remove '%s': %s", path, strerror(errno));
		free(path);
	}
}

static int write_chunk(int fd, const struct ppf_chunk *c)
{
	struct iovec iov[2] = { { (void *)c->head, c->head_sz }, { (void *)c->body, c->body_sz } };

	return pp_writev_full(fd, iov, 2, NULL);	/* an empty body is skipped */
}

/* Rotation: the chunk goes to the current file; a full file asks for a switch. */
static int rotate_sink(void *arg, const struct ppf_chunk *c)
{
	struct rec_prod *p = arg;
	int rc = write_chunk(p->fd, c);

	if (rc)
		return rc;
	p->file_bytes += c->head_sz + c->body_sz;
	p->total_bytes += c->head_sz + c->body_sz;
	if (c->what != PPF_CHUNK_SEGMENT)
		return 0;
	if (c->seg_kind == PPF_SEG_KSYMS && p->keep_ksyms)
		ksegq_push(&p->ksyms, kseg_new(c));
	if (c->seg_kind != PPF_SEG_EVENTS)
		return 0;
	/* the metadata (kernel symbols: ~1 MB) counts, but half a file at least is events */
	p->file_events += c->head_sz + c->body_sz;
	if (p->file_bytes >= p->max_size && p->file_events >= p->max_size / 2)
		p->switch_pending = true;
	return 0;
}

/* Flight recorder: events into the ring, symbols aside, metadata is made anew per dump. */
static int flight_sink(void *arg, const struct ppf_chunk *c)
{
	struct rec_prod *p = arg;

	p->total_bytes += c->head_sz + c->body_sz;
	if (c->what != PPF_CHUNK_SEGMENT)
		return 0;
	switch (c->seg_kind) {
	case PPF_SEG_EVENTS:
		/*
		 * After the trigger nothing is pushed out: the dump must hold the
		 * trigger event and what led to it (at most SIZE), then up to SIZE
		 * more of post-trigger window; past that, segments are not kept,
		 * and rec_prod_poll() ends the recording.
		 */
		if (p->triggered) {
			if (p->post_bytes >= p->flight_size) {
				p->nr_post_cut++;
				break;
			}
			ksegq_push(&p->ring, kseg_new(c));
			p->nr_undigested++;
			p->post_bytes += c->head_sz + c->body_sz;
			if (p->ring.bytes > p->ring_max_bytes)
				p->ring_max_bytes = p->ring.bytes;
			break;
		}
		ksegq_push(&p->ring, kseg_new(c));
		p->nr_undigested++;
		while (p->ring.bytes > p->flight_size && p->ring.nr > 1) {
			p->nr_dropped += p->ring.head->kind != PPF_SEG_DIGEST;
			ksegq_drop_head(&p->ring);
		}
		/* a digest whose segments went first goes with them */
		while (p->ring.head && p->ring.head->kind == PPF_SEG_DIGEST)
			ksegq_drop_head(&p->ring);
		if (p->ring.bytes > p->ring_max_bytes)
			p->ring_max_bytes = p->ring.bytes;
		break;
	case PPF_SEG_DIGEST:
		/*
		 * The side band of the segments before it: kept with them, so that a dump
		 * reads in parts without decompressing what is before each (-j).  Kept
		 * while the ring has segments it may cover (the newest is never pushed
		 * out): after a full post-trigger window too, once, for the segments
		 * kept before it filled (its entries for those cut are never looked at).
		 */
		if (p->nr_undigested) {
			ksegq_push(&p->ring, kseg_new(c));
			p->nr_undigested = 0;
		}
		break;
	case PPF_SEG_KSYMS:
		ksegq_push(&p->ksyms, kseg_new(c));
		break;
	case PPF_SEG_USYMS:
		ksegq_push(&p->usyms, kseg_new(c));
		break;
	case PPF_SEG_STATS:
		free(p->stats);
		p->stats = kseg_new(c);
		break;
	default:
		break;		/* META is written anew by each dump; INDEX is the writer's */
	}
	return 0;
}

static void writer_opts(const struct rec_session *s, struct ppf_writer_opts *o)
{
	uint64_t f = s->prod->flight_size;

	memset(o, 0, sizeof(*o));
	o->zstd_level = s->opts.zstd_level;
	o->seg_max_age_ns = 1000 * 1000 * 1000ull;
	/* a flight ring of several segments at least: raw/2 compresses to ~1/10 of SIZE */
	if (f)
		o->seg_max_raw = f / 2 < (64u << 10) ? (64u << 10) : f / 2 > (1u << 20) ? (1u << 20) :
			(uint32_t)(f / 2);
}

static int part_open(struct rec_session *s, uint64_t n, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	struct ppf_writer_opts o;
	char *path = part_path(p, n);
	int rc;

	p->fd = pp_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p->fd < 0) {
		rc = -errno;
		rec_errf(msg, msg_sz, rc, "cannot write capture '%s': %s", path, strerror(-rc));
		free(path);
		return rc;
	}
	free(path);
	p->file_no = n;
	p->file_bytes = 0;
	p->file_events = 0;
	p->nr_files++;
	writer_opts(s, &o);
	rc = ppf_writer_open_cb(rotate_sink, p, &o, &s->w);
	if (rc)
		return rec_errf(msg, msg_sz, rc, "cannot write capture '%s.%llu': %s", p->base,
					(unsigned long long)n, pp_strerror(rc));
	remove_beyond_rotation(p, n);
	return 0;
}

/*
 * The metadata of a file that starts at @t_ns: everything the first file got
 * at the start, with the task table and maps as of @t_ns.
 */
static int write_meta(struct rec_session *s, struct ppf_writer *w, uint64_t t_ns, uint64_t part)
{
	struct rec_prod *p = s->prod;
	struct ppf_writer *save = s->w;
	struct ppf_time_sync ts = { t_ns, s->start_real_ns + (t_ns - s->start_ns) };
	char num[32];
	int rc;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)part);
	s->w = w;		/* the snapshot helpers write to s->w */
	rc = ppf_writer_begin(w, PPF_SEG_META);
	if (!rc)
		rc = rec_snapshot_host(s);
	if (!rc)
		rc = ppf_write_kv(w, "record.part", num);
	if (!rc)
		rc = rec_evsels_write_descs(s->evsels, s->nr_evsels, s->w);
	if (!rc)
		rc = ppf_write_time_sync(w, &ts);
	if (!rc)
		rc = rec_tasks_write(p->tasks, w);
	if (!rc)
		rc = rec_symbols_write_maps(s->syms, w, t_ns);
	if (!rc && s->insn)
		rc = rec_insn_write_all(s->insn, w);	/* saved before: not written again */
	if (!rc)
		rc = rec_snapshot_syscalls(s);
	if (!rc)
		rc = ppf_writer_flush(w);
	if (!rc)
		rc = ksegq_copy(&p->ksyms, w);
	s->w = save;
	return rc;
}

static int write_error(struct rec_session *s, int rc, const char *what, uint64_t n, char *msg, size_t msg_sz)
{
	if (!s->werr)
		s->werr = rc;
	return rec_errf(msg, msg_sz, rc, "cannot write capture '%s.%llu'%s: %s", s->prod->base,
				(unsigned long long)n, what, pp_strerror(rc));
}

/* Close FILE.n, open FILE.n+1 with its own metadata. */
static int rotate_switch(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	uint64_t t = s->merge.last_ns > s->start_ns ? s->merge.last_ns : s->start_ns;
	struct ppf_writer_totals tot;
	int rc;

	ppf_writer_totals(s->w, &tot);
	p->raw_before += tot.raw_bytes;
	rc = ppf_writer_close(s->w);
	s->w = NULL;
	if (!rc && close(p->fd))
		rc = -errno;
	p->fd = -1;
	if (rc)
		return write_error(s, rc, "", p->file_no, msg, msg_sz);
	p->keep_ksyms = false;
	rec_tasks_prune(p->tasks, t > REC_TASK_GRACE_NS ? t - REC_TASK_GRACE_NS : 0);
	rec_symbols_forget_written(s->syms);
	/*
	 * Only now: closing FILE.n wrote its last segment through rotate_sink(),
	 * which asks for a switch again - the next record would then open an
	 * empty FILE.n+2.
	 */
	p->switch_pending = false;
	rc = part_open(s, p->file_no + 1, msg, msg_sz);
	if (rc)
		return rc;
	rc = write_meta(s, s->w, t, p->file_no);
	if (rc)
		return write_error(s, rc, " (metadata)", p->file_no, msg, msg_sz);
	pp_debug(1, "switched to '%s.%llu'", p->base, (unsigned long long)p->file_no);
	return 0;
}

/* Write the flight recorder's memory into FILE.n. */
static int flight_dump(struct rec_session *s, bool final, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	struct ppf_writer_opts o;
	struct ppf_writer *w;
	uint64_t t0, t1, n = p->file_no, events = 0;
	char *path = part_path(p, n);
	char sz[32];
	int rc;

	if (!final && s->w) {
		/*
		 * The open segment joins the ring, and so does the digest of the segments
		 * since the last one: else a part of -j skims those (at the end, closing the
		 * writer wrote it)
		 */
		rc = ppf_writer_flush_digest(s->w);
		if (rc) {
			free(path);
			return write_error(s, rc, "", n, msg, msg_sz);
		}
	}
	t0 = p->ring.head ? p->ring.head->first_ns : s->merge.last_ns;
	if (t0 < s->start_ns)
		t0 = s->start_ns;
	t1 = p->ring.tail ? p->ring.tail->last_ns : t0;
	for (const struct rec_kseg *k = p->ring.head; k; k = k->next)
		events += k->nr_samples;
	rec_tasks_prune(p->tasks, t0 > REC_TASK_GRACE_NS ? t0 - REC_TASK_GRACE_NS : 0);
	writer_opts(s, &o);
	rc = ppf_writer_open(path, &o, &w);
	if (rc) {
		rec_errf(msg, msg_sz, rc, "cannot write capture '%s': %s", path, pp_strerror(rc));
		free(path);
		return rc;
	}
	rc = write_meta(s, w, t0, n);
	if (!rc)
		rc = ksegq_copy(&p->usyms, w);
	if (!rc)
		rc = ksegq_copy(&p->ring, w);
	if (!rc && final && p->stats)
		rc = ppf_writer_put_segment(w, p->stats->data, p->stats->len);
	if (rc) {
		int rc2;

		rec_errf(msg, msg_sz, rc, "cannot write capture '%s': %s", path, ppf_writer_errmsg(w));
		rc2 = ppf_writer_close(w);
		(void)rc2;
		free(path);
		return rc;
	}
	rc = ppf_writer_close(w);
	if (rc) {
		rec_errf(msg, msg_sz, rc, "cannot write capture '%s': %s", path, pp_strerror(rc));
		free(path);
		return rc;
	}
	pp_format_bytes(p->ring.bytes, sz, sizeof(sz));
	pp_info("flight recorder: wrote '%s': %llu events, %.3f s, %s of events segments",
		path, (unsigned long long)events, (double)(t1 - t0) / 1e9, sz);
	free(path);
	p->nr_files++;
	remove_beyond_rotation(p, n);
	p->file_no = n + 1;
	return 0;
}

/* --- the session's hooks ------------------------------------------------ */

int rec_prod_setup(struct rec_session *s, char *msg, size_t msg_sz)
{
	const struct rec_opts *o = &s->opts;
	const char *out = o->output ? o->output : REC_DEFAULT_OUTPUT;
	bool stream = !strcmp(out, "-");
	struct rec_prod *p;
	char sz[32];
	int rc;

	if (!o->max_size && !o->rotate && !o->flight_size && !o->trigger && !o->post_trigger_ns)
		return 0;
	if (o->rotate < 0)
		return rec_errf(msg, msg_sz, PP_ERANGE, "--rotate %d: expected a number of files >= 1",
					o->rotate);
	if (o->rotate && !o->max_size && !o->flight_size)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
			"--rotate needs --max-size (the size of each file) or --flight-recorder (the dumps to keep)");
	if (o->rotate && stream)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
			"--rotate writes a series of files; -o - is one stream: use --max-size alone to end the stream at a size");
	if (o->flight_size && stream)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
			"--flight-recorder keeps the capture in memory and writes it to files on demand; it cannot write into -o -");
	if (o->flight_size && o->max_size)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
			"--flight-recorder SIZE already bounds what is kept: --max-size does not apply");
	if (o->post_trigger_ns && !o->trigger)
		return rec_errf(msg, msg_sz, PP_EUSAGE, "--post-trigger needs --trigger");
	if (o->max_size && o->max_size < (64u << 10))
		return rec_errf(msg, msg_sz, PP_ERANGE, "--max-size %s: at least 64K",
					pp_format_bytes(o->max_size, sz, sizeof(sz)));
	if (o->flight_size && o->flight_size < (64u << 10))
		return rec_errf(msg, msg_sz, PP_ERANGE, "--flight-recorder %s: at least 64K",
					pp_format_bytes(o->flight_size, sz, sizeof(sz)));

	p = pp_xcalloc(1, sizeof(*p));
	s->prod = p;
	p->max_size = o->max_size;
	p->rotate = (unsigned)o->rotate;
	p->flight_size = o->flight_size;
	p->post_trigger_ns = o->post_trigger_ns;
	p->base = out;
	p->fd = -1;
	p->trig_lo = p->trig_hi = -1;
	if (p->rotate || p->flight_size)
		p->tasks = rec_tasks_new();
	if (o->trigger) {
		size_t before = s->nr_evsels;

		rc = rec_evsels_add(s, o->trigger, msg, msg_sz);
		if (rc) {
			char *m = pp_xstrdup(msg);

			rec_errf(msg, msg_sz, rc, "--trigger: %s", m);
			free(m);
			return rc;
		}
		p->trig_lo = (int)before;
		p->trig_hi = (int)s->nr_evsels;
	}
	return 0;
}

int rec_prod_open(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	struct ppf_writer_opts o;
	int rc;

	if (!p->rotate && !p->flight_size)
		return 1;	/* a plain capture or stream: the session opens it */
	remove_old_series(p);
	if (p->flight_size) {
		writer_opts(s, &o);
		s->out_name = pp_xasprintf("'%s.N' (flight recorder)", p->base);
		rc = ppf_writer_open_cb(flight_sink, p, &o, &s->w);
		if (rc)
			return rec_errf(msg, msg_sz, rc, "cannot start the flight recorder: %s",
						pp_strerror(rc));
		return 0;
	}
	s->out_name = pp_xasprintf("'%s.N'", p->base);
	p->keep_ksyms = true;
	return part_open(s, 0, msg, msg_sz);
}

int rec_prod_emit_slow(struct rec_session *s, const struct rec_mev *e, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	int rc;

	if (p->switch_pending) {
		rc = rotate_switch(s, msg, msg_sz);
		if (rc)
			return rc;
	}
	if (e->evsel >= p->trig_lo && e->evsel < p->trig_hi && !p->triggered) {
		char post[32];

		p->triggered = true;
		p->trig_ns = e->time_ns;
		snprintf(post, sizeof(post), "%.3f s", (double)p->post_trigger_ns / 1e9);
		pp_info("trigger: %s at %.6f; %s %s later", s->evsels[e->evsel].name,
			(double)e->time_ns / 1e9, p->flight_size ? "dumping" : "stopping", post);
	}
	return 0;
}

static int check_trigger(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;

	p->checked = true;
	for (int i = p->trig_lo; i >= 0 && i < p->trig_hi; i++) {
		const struct rec_evsel *e = &s->evsels[i];

		if (e->flags & PPF_EVF_USER_FILTER)
			return rec_errf(msg, msg_sz, PP_ENOTSUP,
				"--trigger %s: the kernel refused the filter '%s', and a trigger fires on the kernel's filter only",
				e->name, e->filter);
	}
	return 0;
}

uint64_t rec_prod_bytes(const struct rec_session *s)
{
	const struct rec_prod *p = s->prod;

	if (p && (p->rotate || p->flight_size))
		return p->total_bytes;
	return s->w ? ppf_writer_bytes(s->w) : 0;
}

int rec_prod_poll(struct rec_session *s, uint64_t now_ns, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	char sz[32];
	int rc;

	if (!p->checked && (rc = check_trigger(s, msg, msg_sz)))
		return rc;
	if (rec_dump) {
		rec_dump = 0;
		if (p->flight_size) {
			rc = flight_dump(s, false, msg, msg_sz);
			if (rc)
				return rc;
		} else if (p->rotate) {
			rc = ppf_writer_flush(s->w);
			if (rc)
				return write_error(s, rc, "", p->file_no, msg, msg_sz);
			p->switch_pending = true;	/* before the next record */
		}
	}
	if (p->max_size && !p->rotate && rec_prod_bytes(s) >= p->max_size) {
		pp_info("the capture reached --max-size %s: stopping",
			pp_format_bytes(p->max_size, sz, sizeof(sz)));
		return 1;
	}
	if (p->triggered && now_ns >= p->trig_ns + p->post_trigger_ns)
		return 1;
	if (p->triggered && p->flight_size && p->post_bytes >= p->flight_size) {
		pp_info("trigger: the post-trigger window filled --flight-recorder %s after %.3f s: dumping now",
			pp_format_bytes(p->flight_size, sz, sizeof(sz)),
			(double)(now_ns - p->trig_ns) / 1e9);
		return 1;
	}
	return 0;
}

int rec_prod_finish(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_prod *p = s->prod;
	int rc = 0;

	if (p->flight_size) {
		rc = flight_dump(s, true, msg, msg_sz);
	} else if (p->rotate && p->fd >= 0) {
		if (close(p->fd) && !rc)
			rc = write_error(s, -errno, "", p->file_no, msg, msg_sz);
		p->fd = -1;
	}
	if (p->rotate || p->flight_size) {
		s->file_bytes = p->total_bytes;
		s->totals.raw_bytes += p->raw_before;
		free(s->out_name);
		if (p->nr_files > 1)
			s->out_name = pp_xasprintf("'%s.%llu' ... '%s.%llu'", p->base,
				(unsigned long long)(p->rotate && p->nr_files > p->rotate ?
						     p->file_no + 1 - p->rotate : 0),
				p->base, (unsigned long long)(p->file_no - !!p->flight_size));
		else
			s->out_name = pp_xasprintf("'%s.0'", p->base);
	}
	return rc;
}

void rec_prod_summary(const struct rec_session *s, FILE *fp)
{
	const struct rec_prod *p = s->prod;
	char a[32], b[32];

	if (!p)
		return;
	if (p->rotate && !p->flight_size)
		fprintf(fp, "  rotation: %llu files of ~%s, the newest %u kept\n",
			(unsigned long long)p->nr_files, pp_format_bytes(p->max_size, a, sizeof(a)),
			p->rotate);
	if (p->flight_size)
		fprintf(fp, "  flight recorder: %llu dumps; ring %s (at most %s held), %llu segments pushed out\n",
			(unsigned long long)p->nr_files, pp_format_bytes(p->flight_size, a, sizeof(a)),
			pp_format_bytes(p->ring_max_bytes, b, sizeof(b)),
			(unsigned long long)p->nr_dropped);
	if (p->nr_post_cut)
		fprintf(fp, "  flight recorder: the post-trigger window filled the ring's size: %llu segments after it not kept\n",
			(unsigned long long)p->nr_post_cut);
	if (p->trig_lo >= 0)
		fprintf(fp, "  trigger: %s\n", p->triggered ? "fired" : "did not fire");
}

void rec_prod_free(struct rec_session *s)
{
	struct rec_prod *p = s->prod;

	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	ksegq_release(&p->ksyms);
	ksegq_release(&p->usyms);
	ksegq_release(&p->ring);
	free(p->stats);
	rec_tasks_free(p->tasks);
	free(p);
	s->prod = NULL;
}
