/* SPDX-License-Identifier: MIT */
/*
 * drain.c - the ring-draining thread.
 *
 * A round: note the time, copy each ring's records (whole records, in runs:
 * walk the headers to see how much fits, then at most four memcpys as the
 * run may wrap in the ring and in the FIFO), free the ring space, and
 * publish the round time - unless a FIFO was too full to take everything,
 * since then records older than that time are still in a ring.
 *
 * The thread must never stall.  It runs SCHED_FIFO (see ask_priority()),
 * and it never allocates or page-faults: a fault can wait for the mmap lock
 * held by a preempted main thread, long enough for a ring to overflow.  So
 * the FIFOs are mapped populated before it starts.  When a FIFO is full (the
 * main thread is far behind), records stay in the kernel ring; if that
 * fills too, the kernel counts what it drops (PERF_RECORD_LOST).
 *
 * The poll timeout adapts so that no ring passes ~20% between rounds: under
 * load the rounds run on this thread's own timer rather than on ring
 * wakeups.  Not here: record decoding.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sys.h"
#include "record/ftrace/ftrace-page.h"
#include "record/ring/drain.h"
#include "record/ring/sideband.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Fault in the FIFO's pages ahead of the drain thread, from the main
 * thread: the drain thread must never fault.  Pages are populated a few
 * rings' worth ahead of the write offset, and the FIFO goes back to its
 * start whenever it is empty (drain_ring()), so only a backlog makes it
 * grow.  Without MADV_POPULATE_WRITE (Linux < 5.14) the whole FIFO is
 * populated at once.
 */
static void fifo_populate(struct rec_fifo *f, uint64_t wpos, bool may_touch)
{
	size_t want = ((size_t)wpos & (f->size - 1)) + f->ahead;

	want = (want + 4095) & ~(size_t)4095;	/* madvise works on whole pages */
	if (want > f->size)
		want = f->size;
	if (f->populated >= want)
		return;
	if (madvise(f->buf + f->populated, want - f->populated, MADV_POPULATE_WRITE)) {
		/*
		 * Touching the pages would race with the drain thread writing
		 * them: only before it starts.  Later, a failure just leaves the
		 * faults to the drain thread.
		 */
		if (may_touch) {
			want = f->size;
			for (size_t off = f->populated; off < want; off += 4096)
				f->buf[off] = 0;
		}
		if (!f->nr_populate_errors++)
			pp_debug(1, "MADV_POPULATE_WRITE: %s", strerror(errno));
	}
	f->populated = want;
}

int rec_drain_init(struct rec_drain *d, struct rec_ring *rings, size_t nr, size_t fifo_sz,
		   size_t ahead, int base_ms)
{
	pthread_condattr_t ca;
	pthread_mutexattr_t ma;
	size_t sz = 4096;

	while (sz < fifo_sz)
		sz *= 2;
	d->rings = rings;
	d->nr_rings = nr;
	d->base_ms = base_ms;
	d->fifos = pp_xcalloc(nr ? nr : 1, sizeof(*d->fifos));
	d->pfds = pp_xcalloc(2 * nr + 1, sizeof(*d->pfds));
	d->spill.fd = d->spill.pipe[0] = d->spill.pipe[1] = -1;
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->wake_fd < 0)
		return -errno;
	for (size_t i = 0; i < nr; i++) {
		struct rec_fifo *f = &d->fifos[i];

		d->pfds[i].fd = rings[i].base ? rings[i].fd : -1;
		d->pfds[i].events = POLLIN;
		if (!rings[i].base)
			continue;
		f->buf = pp_sys_mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (f->buf == MAP_FAILED) {
			f->buf = NULL;
			return -ENOMEM;
		}
		f->size = sz;
		f->ahead = ahead ? ahead : 2 * rings[i].data_sz;
		f->reset_at = f->ahead < rings[i].data_sz ? f->ahead : rings[i].data_sz;
		f->bounce = pp_xmalloc(65536);	/* a record is at most 64 KiB */
		fifo_populate(f, 0, true);
	}
	d->pfds[nr].fd = d->wake_fd;
	d->pfds[nr].events = POLLIN;
	for (size_t i = 0; i < nr; i++)
		d->pfds[nr + 1 + i].fd = -1;
	/* priority inheritance: a preempted main thread holding it runs at once */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->ready, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

/*
 * Bytes of records in @f between @rpos and @wpos: an unread skip record is
 * free space the consumer has not stepped over yet (at most one is unread:
 * resets need an empty FIFO).
 */
static size_t fifo_records(const struct rec_fifo *f, uint64_t rpos, uint64_t wpos)
{
	size_t used = (size_t)(wpos - rpos);

	if (f->skip_sz && rpos <= f->skip_at && used >= f->skip_sz)
		used -= f->skip_sz;
	return used;
}

/* Copy @n bytes from circular area @src (@ssz bytes, from @from) to @dst (@dsz, at @to). */
static void circ_copy(uint8_t *dst, size_t dsz, uint64_t to, const uint8_t *src, size_t ssz,
		      uint64_t from, size_t n)
{
	while (n) {
		size_t so = (size_t)from & (ssz - 1), doff = (size_t)to & (dsz - 1);
		size_t k = n;

		if (k > ssz - so)
			k = ssz - so;
		if (k > dsz - doff)
			k = dsz - doff;
		memcpy(dst + doff, src + so, k);
		from += k;
		to += k;
		n -= k;
	}
}

/* Copy one ring's records into its FIFO.  Return: false when some had to stay. */
static bool drain_ring(struct rec_drain *d, size_t ri)
{
	struct rec_ring *r = &d->rings[ri];
	struct rec_fifo *f = &d->fifos[ri];
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + (r->map_sz - r->data_sz);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t rpos = __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE);
	/*
	 * Bytes in use, a skip record included until the consumer has read it:
	 * records written past it would wrap onto its header, and the consumer
	 * would then read a record boundary that is not one.
	 */
	size_t used = (size_t)(f->wpos - rpos);
	size_t space = f->size - used, run = 0, mask = r->data_sz - 1;
	uint64_t tail = r->tail;

	/*
	 * An empty FIFO far from its start goes back to the start (a skip
	 * record to the end of the lap): light traffic keeps reusing the same
	 * few pages, so pp-record's memory follows the backlog, not the volume.
	 */
	if (rpos == f->wpos && (head != tail || (d->tp_fds && d->tp_fds[ri] >= 0)) &&
	    ((size_t)f->wpos & (f->size - 1)) > f->reset_at) {
		size_t off = (size_t)f->wpos & (f->size - 1), skip = f->size - off;
		struct perf_event_header *ph = (void *)(f->buf + off);

		ph->type = REC_FIFO_SKIP;
		ph->misc = 0;
		ph->size = skip >= 16 ? 16 : 8;
		if (skip >= 16)
			memcpy(ph + 1, &(uint64_t){ skip }, sizeof(uint64_t));
		f->skip_at = f->wpos;
		f->skip_sz = skip;
		__atomic_store_n(&f->wpos, f->wpos + skip, __ATOMIC_RELEASE);
		space = f->size - skip;
		f->nr_resets++;
	}

	/* records are 8-aligned and the ring size a multiple of 8: headers never wrap */
	while (tail + run < head) {
		const struct perf_event_header *h =
			(const void *)(data + ((size_t)(tail + run) & mask));

		if (h->size < sizeof(*h) || tail + run + h->size > head) {
			head = tail + run;	/* cannot happen with a sane kernel */
			break;
		}
		if (run + h->size > space)
			break;
		run += h->size;
	}
	if (run) {
		circ_copy(f->buf, f->size, f->wpos, data, r->data_sz, tail, run);
		__atomic_store_n(&f->wpos, f->wpos + run, __ATOMIC_RELEASE);
		size_t inuse = fifo_records(f, rpos, f->wpos);	/* high-water of records */
		if (inuse > f->max_used)
			f->max_used = inuse;
		r->tail = tail + run;
		__atomic_store_n(&pg->data_tail, r->tail, __ATOMIC_RELEASE);
	}
	r->last_drained = run;
	if (run > r->max_pending)
		r->max_pending = run;
	return tail + run == head;
}

void rec_drain_set_tp(struct rec_drain *d, const int *fds, size_t page, size_t buf_sz)
{
	if (!fds || !page)
		return;
	d->tp_fds = fds;
	d->tp_page = page;
	d->tp_buf_sz = buf_sz ? buf_sz : page;
	d->tp_stage = pp_xcalloc(d->nr_rings ? d->nr_rings : 1, page);	/* touched: no faults later */
	d->tp_last = pp_xcalloc(d->nr_rings ? d->nr_rings : 1, sizeof(*d->tp_last));
	d->tp_more = pp_xcalloc(d->nr_rings ? d->nr_rings : 1, sizeof(*d->tp_more));
	for (size_t i = 0; i < d->nr_rings; i++) {
		d->pfds[d->nr_rings + 1 + i].fd = d->fifos[i].buf ? fds[i] : -1;
		d->pfds[d->nr_rings + 1 + i].events = POLLIN;
	}
}

int rec_drain_set_spill(struct rec_drain *d, const char *dir, uint64_t max_backlog)
{
	int rc;

	if (!d->tp_fds)
		return 0;
	rc = rec_spill_open(&d->spill, dir, d->tp_page, max_backlog);
	if (rc) {
		rec_spill_close(&d->spill);
		return rc;
	}
	d->idle_consumer = true;
	return 0;
}

/* Copy @n bytes to FIFO @f at position @to (it may wrap). */
static void fifo_put(struct rec_fifo *f, uint64_t to, const void *src, size_t n)
{
	size_t off = (size_t)to & (f->size - 1), k = n;

	if (k > f->size - off)
		k = f->size - off;
	memcpy(f->buf + off, src, k);
	memcpy(f->buf, (const uint8_t *)src + k, n - k);
}

/* Append a record of @h (its size included) and @body to FIFO @f; the caller checked the room. */
static void fifo_append(struct rec_fifo *f, const struct perf_event_header *h, const void *body,
			uint64_t rpos)
{
	size_t inuse;

	fifo_put(f, f->wpos, h, sizeof(*h));
	fifo_put(f, f->wpos + sizeof(*h), body, h->size - sizeof(*h));
	__atomic_store_n(&f->wpos, f->wpos + h->size, __ATOMIC_RELEASE);
	inuse = fifo_records(f, rpos, f->wpos);
	if (inuse > f->max_used)
		f->max_used = inuse;
}

/*
 * The REC_SYNTH_FTRACE_PAGE header of tracefs page @page (@n bytes as read):
 * the record holds the bytes the page uses (its commit), padded with zeros
 * to 8 (within the page: pages are 8-byte multiples).  @ts receives the
 * page's timestamp.  Return: false when it is not a page.
 */
static bool page_record(uint8_t *page, size_t n, struct perf_event_header *ph, uint64_t *ts)
{
	struct rec_ftpage it;
	size_t used = rec_ftpage_open(&it, page, n), body;

	if (!used)
		return false;
	body = (used + 7) & ~(size_t)7;
	memset(page + used, 0, body - used);
	ph->type = REC_SYNTH_FTRACE_PAGE;
	ph->misc = 0;
	ph->size = (uint16_t)(sizeof(*ph) + body);
	*ts = it.ts;
	return true;
}

/*
 * Queue page @stage of @n bytes read from ring @ri's tracefs file.
 * Return: the page's timestamp (at least 1), or 0 when it was not a page.
 */
static uint64_t put_page(struct rec_drain *d, size_t ri, uint8_t *stage, size_t n, uint64_t rpos)
{
	struct perf_event_header ph;
	uint64_t ts;

	if (!page_record(stage, n, &ph, &ts)) {
		d->nr_tp_errors++;
		return 0;
	}
	fifo_append(&d->fifos[ri], &ph, stage, rpos);
	d->nr_tp_pages++;
	return ts ? ts : 1;
}

/*
 * Splice ring @ri's full tracefs pages into the spill file and queue their
 * marker.  Return: 1 when only a partial page can be left (for read(2)),
 * 0 when pages had to stay in the kernel (FIFO, bound, a buffer's worth).
 */
static int spill_tp(struct rec_drain *d, size_t ri, size_t *got)
{
	struct rec_fifo *f = &d->fifos[ri];
	uint64_t rpos = __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE);
	struct perf_event_header ph = { REC_FIFO_SPILL, 0, 0 };
	struct rec_spill_mark m;
	uint8_t *stage = d->tp_stage + ri * d->tp_page;
	size_t n, room = f->size - (size_t)(f->wpos - rpos), limit;
	int rc;

	/* room for the marker and for the pages a failed write may leave to queue */
	if (room < sizeof(ph) + sizeof(m) + d->tp_page + 16)
		return 0;
	limit = (room - sizeof(ph) - sizeof(m)) / (d->tp_page + 16) * d->tp_page;
	if (limit > d->tp_buf_sz)
		limit = d->tp_buf_sz;
	rc = rec_spill_pages(&d->spill, d->tp_fds[ri], limit, &m);
	if (m.len) {
		ph.size = sizeof(ph) + sizeof(m);
		fifo_append(f, &ph, &m, rpos);
		*got += (size_t)m.len;
		d->nr_tp_pages += m.len / d->tp_page;
	}
	if (rc >= 0)
		return rc;
	while ((n = rec_spill_leftover(&d->spill, stage)) > 0) {
		put_page(d, ri, stage, n, rpos);
		*got += n;
	}
	return 1;
}

/*
 * Read ring @ri's tracefs pages into its FIFO until the file has none
 * (EAGAIN) - or, with a spill, splice its full pages to the file first and
 * read only what is left.  Return: false when pages had to stay behind.
 */
static bool drain_tp(struct rec_drain *d, size_t ri, uint64_t now_ns)
{
	struct rec_fifo *f = &d->fifos[ri];
	uint8_t *stage = d->tp_stage + ri * d->tp_page;
	int fd = d->tp_fds[ri];
	size_t got = 0;
	bool done = true;

	if (fd < 0 || !f->buf)
		return true;
	if (rec_spill_on(&d->spill) && !spill_tp(d, ri, &got))
		done = false;
	for (; done;) {
		uint64_t rpos = __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE), ts;
		ssize_t n;

		if (f->size - (size_t)(f->wpos - rpos) < d->tp_page + 16 || got >= d->tp_buf_sz) {
			done = false;	/* FIFO full, or a buffer's worth: the other rings' turn */
			break;
		}
		n = read(fd, stage, d->tp_page);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				d->nr_tp_errors++;
			break;
		}
		ts = put_page(d, ri, stage, (size_t)n, rpos);
		if (!ts)
			continue;
		got += (size_t)n;
		/*
		 * A page that starts after this round did holds events of the
		 * present: we have caught up with the writer.  Reading on would
		 * chase it a few events a read (a syscall per handful of events);
		 * the next round takes the rest.  (A short page alone says
		 * nothing: the rest of a page read partly in the last round is
		 * short too.)  The page's clock is mapped to ours by tp_off.
		 */
		if (d->tp_off)
			ts += (uint64_t)__atomic_load_n(d->tp_off, __ATOMIC_RELAXED);
		if (ts >= now_ns)
			break;
	}
	d->tp_last[ri] = got;
	d->tp_more[ri] = !done;
	return done;
}

void rec_drain_round(struct rec_drain *d, uint64_t now_ns)
{
	bool all = true;

	for (size_t i = 0; i < d->nr_rings; i++) {
		struct rec_fifo *f = &d->fifos[i];
		uint64_t w0 = f->wpos;
		bool emptied = true;

		if (d->rings[i].base && !drain_ring(d, i)) {
			emptied = false;
			d->nr_full++;
		}
		if (d->tp_fds && !drain_tp(d, i, now_ns)) {
			emptied = false;
			d->nr_full++;
		}
		all = all && emptied;
		/* a round mark after what this round copied, if it emptied the ring */
		if (emptied && f->buf && f->wpos != w0 &&
		    f->size - (size_t)(f->wpos - __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE)) >= 16) {
			struct perf_event_header ph = { REC_FIFO_ROUND, 0, 16 };

			fifo_append(f, &ph, &now_ns, __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE));
		}
	}
	pthread_mutex_lock(&d->lock);
	if (all)
		d->round_ns = now_ns;
	d->seq++;
	pthread_cond_signal(&d->ready);
	pthread_mutex_unlock(&d->lock);
	d->nr_rounds++;
}

/* See the file comment: rounds paced to keep every ring under ~20%. */
static int next_timeout(const struct rec_drain *d, uint64_t elapsed_ns)
{
	double most = 0, rate, ms;	/* the largest share of a buffer filled since the last round */

	for (size_t i = 0; i < d->nr_rings; i++) {
		const struct rec_ring *r = &d->rings[i];

		if (r->base && r->data_sz && (double)r->last_drained / (double)r->data_sz > most)
			most = (double)r->last_drained / (double)r->data_sz;
		if (d->tp_fds && (double)d->tp_last[i] / (double)d->tp_buf_sz > most)
			most = (double)d->tp_last[i] / (double)d->tp_buf_sz;
	}
	if (most <= 0 || !elapsed_ns)
		return d->base_ms;
	rate = most / (double)elapsed_ns * 1e6;		/* share of a buffer per ms */
	ms = 0.2 / rate;
	if (ms < 1)
		return 1;
	return ms > d->base_ms ? d->base_ms : (int)ms;
}

/*
 * The drain thread runs SCHED_FIFO at the lowest real-time priority: its
 * rounds are a memcpy per ring, so it can never hog a CPU (and the kernel's
 * RT throttling bounds it anyway), but it then preempts the recorded
 * workload at once instead of waiting behind it on a busy CPU.  Without the
 * privilege it falls back to a short EEVDF slice (Linux 6.12+), which helps
 * less.
 */
static void ask_priority(struct rec_drain *d)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct {			/* struct sched_attr, ABI of sched_setattr(2) */
		uint32_t size, sched_policy;
		uint64_t sched_flags;
		int32_t sched_nice;
		uint32_t sched_priority;
		uint64_t sched_runtime, sched_deadline, sched_period;
		uint32_t sched_util_min, sched_util_max;
	} a;

	if (d->realtime && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		return;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = 0;		/* SCHED_OTHER */
	a.sched_runtime = 200 * 1000;	/* 200 us */
	if (syscall(__NR_sched_setattr, 0, &a, 0))
		pp_debug(1, "no custom scheduler slice for the drain thread: %s", strerror(errno));
}

/*
 * The consumer (the main thread) decodes and compresses at normal priority,
 * so on a busy machine it can fall behind.  When a FIFO passes a quarter
 * full, losing records is getting near: it then runs at nice -10 until the
 * backlog is gone (under 5%), and never longer.  With a spill file it runs
 * at SCHED_IDLE instead (spill.h: its work waits for a free CPU) and is
 * raised the same way when the spill passes a quarter of its bound.  This
 * thread decides it, after each round: a starved consumer could not.
 */
static int consumer_policy(struct rec_drain *d, bool raised)
{
	struct sched_param sp = { 0 };
	bool idle = !raised && d->idle_consumer &&
		    __atomic_load_n(&d->idle_armed, __ATOMIC_ACQUIRE);

	/* the policy is only touched to go to SCHED_IDLE and back: a user's chrt stays */
	if (idle != d->consumer_idle && sched_setscheduler(d->boost_tid, idle ? SCHED_IDLE :
							   SCHED_OTHER, &sp))
		return -1;
	d->consumer_idle = idle;
	return idle ? 0 : setpriority(PRIO_PROCESS, (id_t)d->boost_tid, raised ? -10 : 0);
}

static void boost_consumer(struct rec_drain *d)
{
	uint64_t stop_at;
	unsigned fill;

	if (!d->boost_tid)
		return;
	if (d->idle_consumer && !rec_spill_on(&d->spill)) {
		/* the spill failed: pages go to memory again, the consumer must keep up */
		d->idle_consumer = false;
		if (!d->boosted)
			consumer_policy(d, false);
	}
	fill = rec_drain_fill_pct(d);
	if (rec_spill_on(&d->spill) || d->spill.in) {
		unsigned sp = (unsigned)(rec_spill_backlog(&d->spill) * 100 / d->spill.max_backlog);

		if (sp > fill)
			fill = sp;
	}
	if (d->urgent && *d->urgent)
		fill = 100;	/* stopping: the rest is the consumer's, as fast as it can */
	stop_at = __atomic_load_n(&d->stop_at_ns, __ATOMIC_RELAXED);
	if (stop_at && mono_ns() >= stop_at)
		fill = 100;	/* --duration is up: the same */
	if (d->idle_consumer && !d->consumer_idle && !d->boosted && fill < 25 &&
	    consumer_policy(d, false)) {
		pp_debug(1, "the consumer stays at normal priority: %s", strerror(errno));
		d->idle_consumer = false;
	}
	if (!d->boosted && fill >= 25) {
		if (consumer_policy(d, true) == 0) {
			d->boosted = true;
			d->nr_boosts++;
		}
	} else if (d->boosted && fill < 5) {
		if (consumer_policy(d, false) == 0)
			d->boosted = false;
	}
}

/*
 * A tracefs file polls readable for as long as its buffer is over the
 * watermark: while the FIFO it goes to is full, it leaves the poll set (or
 * this thread would spin at real-time priority, starving the consumer that
 * would make room), and rounds come every 2 ms instead.
 */
static void tp_poll_set(struct rec_drain *d, int *timeout)
{
	for (size_t i = 0; d->tp_fds && i < d->nr_rings; i++) {
		d->pfds[d->nr_rings + 1 + i].fd = d->tp_more[i] || !d->fifos[i].buf ? -1 : d->tp_fds[i];
		if (d->tp_more[i] && *timeout > 2)
			*timeout = 2;
	}
}

static void *drain_main(void *arg)
{
	struct rec_drain *d = arg;
	uint64_t last = mono_ns();
	int timeout = d->base_ms;
	struct timespec cpu;

	ask_priority(d);
	for (;;) {
		uint64_t now, t1;
		bool stop;

		if (poll(d->pfds, d->nr_rings + 1 + (d->tp_fds ? d->nr_rings : 0), timeout) < 0 &&
		    errno != EINTR)
			break;
		for (size_t i = 0; i < d->nr_rings; i++) {
			/* the ring owner's task is gone: poll would say HUP forever */
			if (d->pfds[i].revents & (POLLHUP | POLLERR))
				d->pfds[i].fd = -1;
		}
		pthread_mutex_lock(&d->lock);
		stop = d->stop;
		pthread_mutex_unlock(&d->lock);
		if (stop)
			break;
		now = mono_ns();
		if (now - last > d->max_gap_ns)
			d->max_gap_ns = now - last;
		rec_drain_round(d, now);
		boost_consumer(d);
		t1 = mono_ns();
		if (t1 - now > d->max_round_ns)
			d->max_round_ns = t1 - now;
		timeout = next_timeout(d, now - last);
		tp_poll_set(d, &timeout);
		last = now;
	}
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu))
		d->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
	return NULL;
}

int rec_drain_start(struct rec_drain *d)
{
	sigset_t all, old;
	int rc;

	pthread_attr_t attr;
	struct sched_param sp = { 0 };

	/* the thread must not inherit the consumer's SCHED_IDLE (rec_drain_idle_from()) */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* signals go to the main thread */
	rc = pthread_create(&d->thread, &attr, drain_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc)
		return -rc;
	d->started = true;
	return 0;
}

void rec_drain_idle_from(struct rec_drain *d, uint64_t stop_at_ns)
{
	__atomic_store_n(&d->stop_at_ns, stop_at_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&d->idle_armed, true, __ATOMIC_RELEASE);
}

void rec_drain_stop(struct rec_drain *d)
{
	uint64_t one = 1;

	if (!d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_mutex_unlock(&d->lock);
	if (write(d->wake_fd, &one, sizeof(one)) < 0)
		pp_debug(1, "drain wake-up: %s", strerror(errno));
	pthread_join(d->thread, NULL);
	d->started = false;
	/* what is left is the consumer's alone now: at normal priority */
	if (d->boost_tid && (d->consumer_idle || d->boosted)) {
		d->idle_consumer = false;
		d->boosted = false;
		consumer_policy(d, false);
	}
}

unsigned rec_drain_fill_pct(const struct rec_drain *d)
{
	unsigned most = 0;

	for (size_t i = 0; i < d->nr_rings; i++) {
		const struct rec_fifo *f = &d->fifos[i];
		size_t used;

		if (!f->buf)
			continue;
		uint64_t rpos = __atomic_load_n(&f->rpos, __ATOMIC_ACQUIRE);

		used = fifo_records(f, rpos, __atomic_load_n(&f->wpos, __ATOMIC_ACQUIRE));
		if (used > f->size)
			used = f->size;
		if (used * 100 / f->size > most)
			most = (unsigned)(used * 100 / f->size);
	}
	return most;
}

bool rec_drain_pending(const struct rec_drain *d)
{
	for (size_t i = 0; i < d->nr_rings; i++)
		if ((d->rings[i].base && rec_ring_pending(&d->rings[i])) ||
		    (d->tp_more && d->tp_more[i]))
			return true;
	return false;
}

struct spill_ctx {
	struct rec_drain *d;
	size_t ring;
	rec_drain_rec_fn fn;
	void *arg;
};

/* A page read back from the spill file: handed over as the record read(2) would have made. */
static void spill_page(uint8_t *page, size_t len, void *arg)
{
	struct spill_ctx *c = arg;
	struct perf_event_header ph;
	uint64_t ts;

	if (!page_record(page, len, &ph, &ts)) {
		c->d->nr_spill_bad++;
		return;
	}
	memcpy(page - sizeof(ph), &ph, sizeof(ph));	/* the 8 bytes spill.h leaves before it */
	c->fn(c->ring, (const struct perf_event_header *)(page - sizeof(ph)), c->arg);
}

/* Hand over the pages of spill marker @h at ring @ri's read position.  Return: finished. */
static bool spill_marker(struct rec_drain *d, size_t ri, const struct perf_event_header *h,
			 size_t budget, rec_drain_rec_fn fn, void *arg)
{
	struct spill_ctx c = { d, ri, fn, arg };
	struct rec_spill_mark m;
	uint64_t lost = 0;
	bool fin;

	if (h->size < sizeof(*h) + sizeof(m) || d->spill.fd < 0)
		return true;	/* cannot happen: the drain thread wrote it */
	memcpy(&m, h + 1, sizeof(m));
	fin = rec_spill_read(&d->spill, &m, &d->fifos[ri].sp_done, budget, spill_page, &c, &lost);
	if (lost) {
		pp_err("internal error: %llu bytes of tracefs pages could not be read back from"
		       " the spill file", (unsigned long long)lost);
		d->spill_lost += lost;
	}
	return fin;
}

bool rec_drain_left(const struct rec_drain *d, size_t i)
{
	const struct rec_fifo *f = &d->fifos[i];

	return f->buf && f->rpos < __atomic_load_n(&f->wpos, __ATOMIC_ACQUIRE);
}

size_t rec_drain_consume(struct rec_drain *d, int timeout_ms, size_t budget, const bool *hold,
			 rec_drain_rec_fn fn, void *arg, uint64_t *round_ns, bool *more)
{
	size_t total = 0;
	bool any_partial = false;
	uint64_t rn;

	pthread_mutex_lock(&d->lock);
	if (d->seq == d->seq_seen && timeout_ms > 0 && d->started) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		ts.tv_sec += timeout_ms / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&d->ready, &d->lock, &ts);
	}
	d->seq_seen = d->seq;
	rn = d->round_ns;	/* read before the positions: what it covers is below them */
	pthread_mutex_unlock(&d->lock);

	for (size_t i = 0; i < d->nr_rings; i++) {
		struct rec_fifo *f = &d->fifos[i];
		uint64_t w, r, from_spill = 0;
		bool partial = false;

		if (!f->buf)
			continue;
		w = __atomic_load_n(&f->wpos, __ATOMIC_ACQUIRE);
		r = f->rpos;
		if (hold && hold[i]) {
			any_partial = any_partial || r < w;
			continue;
		}
		while (r < w) {
			if (budget && r - f->rpos + from_spill >= budget) {
				partial = true;
				break;
			}
			size_t off = (size_t)r & (f->size - 1);
			const struct perf_event_header *h = (const void *)(f->buf + off);
			uint64_t sz = h->size;

			if (h->type == REC_FIFO_SKIP && sz >= 16)
				memcpy(&sz, h + 1, sizeof(sz));
			if (sz < sizeof(*h) || (sz & 7) || sz > w - r) {
				/* cannot happen: never loop on it, drop the rest */
				pp_err("internal error: FIFO %zu has a bad record (size %llu) at %llu;"
					 " %llu bytes dropped", i, (unsigned long long)sz,
					 (unsigned long long)r, (unsigned long long)(w - r));
				d->nr_bad += w - r;
				r = w;
				break;
			}
			if (h->type == REC_FIFO_SKIP) {
				r += sz;
				continue;
			}
			if (h->type == REC_FIFO_ROUND) {
				if (sz >= 16)
					memcpy(&f->round_seen, f->buf + ((off + 8) & (f->size - 1)), 8);
				r += sz;
				continue;
			}
			if (off + sz > f->size) {
				circ_copy(f->bounce, 65536, 0, f->buf, f->size, r, sz);
				h = (const void *)f->bounce;
			}
			if (h->type == REC_FIFO_SPILL) {
				uint64_t before = f->sp_done;

				if (!spill_marker(d, i, h, budget ? budget - (r - f->rpos) - from_spill :
						  0, fn, arg)) {
					from_spill += f->sp_done - before;
					partial = true;
					break;
				}
				from_spill += f->sp_done - before;
				f->sp_done = 0;
				r += sz;
				continue;
			}
			fn(i, h, arg);
			r += sz;
		}
		total += (size_t)(r - f->rpos + from_spill);
		__atomic_store_n(&f->rpos, r, __ATOMIC_RELEASE);
		fifo_populate(f, w, false);
		any_partial = any_partial || partial;
	}
	*round_ns = rn;
	*more = any_partial;
	return total;
}

void rec_drain_release(struct rec_drain *d)
{
	if (!d->pfds)
		return;
	for (size_t i = 0; i < d->nr_rings; i++) {
		if (d->fifos[i].buf)
			munmap(d->fifos[i].buf, d->fifos[i].size);
		free(d->fifos[i].bounce);
	}
	free(d->fifos);
	free(d->pfds);
	rec_spill_close(&d->spill);
	free(d->tp_stage);
	free(d->tp_last);
	free(d->tp_more);
	d->tp_stage = NULL;
	d->tp_last = NULL;
	d->tp_more = NULL;
	d->tp_fds = NULL;
	d->fifos = NULL;
	d->pfds = NULL;
	if (d->wake_fd >= 0)
		close(d->wake_fd);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->ready);
}
