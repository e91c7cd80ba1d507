/* SPDX-License-Identifier: MIT */
/*
 * drain.c - the ring-draining thread.
 *
 * A round: note the time, copy the bytes between each ring's tail and head
 * into a chunk (two memcpys when they wrap), free the ring space, queue the
 * chunks and publish the round time.  The poll timeout adapts so that no
 * ring passes ~20% between rounds: under load the rounds run on this
 * thread's own timer rather than on ring wakeups (which come from the busy
 * CPU and tend to pull the reader onto it), and at real-time priority (see
 * ask_priority()).
 * When the consumer falls behind by max_queued_sz, rings are left alone:
 * the kernel then drops and reports it with PERF_RECORD_LOST.
 * Not here: record decoding.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "drain.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rec_drain_init(struct rec_drain *d, struct rec_ring *rings, size_t nr, int base_ms)
{
	d->rings = rings;
	d->nr_rings = nr;
	d->base_ms = base_ms;
	d->max_queued_sz = 256u << 20;
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->wake_fd < 0)
		return -errno;
	d->pfds = pp_xcalloc(nr + 1, sizeof(*d->pfds));
	for (size_t i = 0; i < nr; i++) {
		d->pfds[i].fd = rings[i].base ? rings[i].fd : -1;
		d->pfds[i].events = POLLIN;
	}
	d->pfds[nr].fd = d->wake_fd;
	d->pfds[nr].events = POLLIN;
	for (size_t i = 0; i < nr; i++)
		if (rings[i].data_sz > d->chunk_sz)
			d->chunk_sz = rings[i].data_sz;
	if (!d->chunk_sz)
		d->chunk_sz = 4096;

	pthread_condattr_t ca;
	pthread_mutexattr_t ma;

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
 * Chunk memory is mapped populated and never given back while recording: a
 * page fault in the drain thread can wait for the mmap lock held by a
 * preempted main thread, long enough for a ring to overflow.
 */
static struct rec_chunk *chunk_new(size_t cap)
{
	struct rec_chunk *c = pp_xcalloc(1, sizeof(*c));
	void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		       -1, 0);

	if (p == MAP_FAILED)
		pp_die("cannot allocate %zu bytes for the ring reader: %s", cap, strerror(errno));
	c->data = p;
	c->cap = cap;
	return c;
}

static void chunk_free(struct rec_chunk *c)
{
	munmap(c->data, c->cap);
	free(c);
}

static struct rec_chunk *chunk_get(struct rec_drain *d)
{
	struct rec_chunk *c;

	pthread_mutex_lock(&d->lock);
	c = d->pool;
	if (c) {
		d->pool = c->next;
		d->nr_pool--;
	}
	pthread_mutex_unlock(&d->lock);
	if (!c)
		c = chunk_new(d->chunk_sz);	/* the main thread's refill fell behind */
	c->next = NULL;
	c->len = 0;
	return c;
}

void rec_drain_refill(struct rec_drain *d)
{
	size_t want = d->nr_rings + 4, have;

	pthread_mutex_lock(&d->lock);
	have = d->nr_pool;
	pthread_mutex_unlock(&d->lock);
	for (; have < want; have++) {
		struct rec_chunk *c = chunk_new(d->chunk_sz);

		pthread_mutex_lock(&d->lock);
		c->next = d->pool;
		d->pool = c;
		d->nr_pool++;
		pthread_mutex_unlock(&d->lock);
	}
}

/* Copy one ring's pending bytes; whole records only.  Return: bytes taken. */
static size_t drain_ring(struct rec_drain *d, size_t ri, struct rec_chunk **list,
			 struct rec_chunk **last)
{
	struct rec_ring *r = &d->rings[ri];
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + (r->map_sz - r->data_sz);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	size_t len = (size_t)(head - r->tail), off, first;
	struct rec_chunk *c;

	if (!len)
		return 0;
	c = chunk_get(d);
	off = (size_t)r->tail & (r->data_sz - 1);
	first = r->data_sz - off < len ? r->data_sz - off : len;
	memcpy(c->data, data + off, first);
	if (len > first)
		memcpy(c->data + first, data, len - first);
	c->len = len;
	c->ring = (uint32_t)ri;
	r->tail = head;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	if (*last)
		(*last)->next = c;
	else
		*list = c;
	*last = c;
	return len;
}

void rec_drain_round(struct rec_drain *d, uint64_t now_ns)
{
	struct rec_chunk *list = NULL, *last = NULL;
	size_t bytes = 0;
	bool defer;

	pthread_mutex_lock(&d->lock);
	defer = d->queued_sz > d->max_queued_sz;
	pthread_mutex_unlock(&d->lock);
	if (defer) {
		d->nr_deferred++;
		return;
	}
	for (size_t i = 0; i < d->nr_rings; i++) {
		size_t n;

		if (!d->rings[i].base)
			continue;
		n = drain_ring(d, i, &list, &last);
		d->rings[i].last_drained = n;
		if (n > d->rings[i].max_pending)
			d->rings[i].max_pending = n;
		bytes += n;
	}
	pthread_mutex_lock(&d->lock);
	if (list) {
		if (d->tail)
			d->tail->next = list;
		else
			d->head = list;
		d->tail = last;
		d->queued_sz += bytes;
		if (d->queued_sz > d->max_queued)
			d->max_queued = d->queued_sz;
	}
	d->round_ns = now_ns;
	pthread_cond_signal(&d->ready);
	pthread_mutex_unlock(&d->lock);
	d->nr_rounds++;
}

/* See drain.h: rounds paced to keep every ring under ~20%. */
static int next_timeout(const struct rec_drain *d, uint64_t elapsed_ns)
{
	size_t most = 0, ring = 0;
	double rate, ms;

	for (size_t i = 0; i < d->nr_rings; i++) {
		const struct rec_ring *r = &d->rings[i];

		if (r->base && r->last_drained > most)
			most = r->last_drained;
		if (r->base)
			ring = r->data_sz;
	}
	if (!most || !elapsed_ns || !ring)
		return d->base_ms;
	rate = (double)most / (double)elapsed_ns * 1e6;		/* bytes per ms */
	ms = 0.2 * (double)ring / rate;
	if (ms < 1)
		return 1;
	return ms > d->base_ms ? d->base_ms : (int)ms;
}

/*
 * The drain thread runs SCHED_FIFO at the lowest real-time priority: its
 * rounds are a memcpy per ring, so it can never hog a CPU (and the kernel's
 * RT throttling bounds it anyway), but it then preempts the recorded
 * workload at once instead of waiting behind it.  Without the privilege it
 * falls back to a short EEVDF slice (Linux 6.12+), which helps less.
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

static void *drain_main(void *arg)
{
	struct rec_drain *d = arg;
	uint64_t last = mono_ns();
	int timeout = d->base_ms;

	ask_priority(d);
	for (;;) {
		uint64_t now, t1;
		bool stop;

		if (poll(d->pfds, d->nr_rings + 1, timeout) < 0 && errno != EINTR)
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
		rec_drain_round(d, now);
		t1 = mono_ns();
		if (t1 - now > d->max_round_ns)
			d->max_round_ns = t1 - now;
		timeout = next_timeout(d, now - last);
		last = now;
	}
	return NULL;
}

int rec_drain_start(struct rec_drain *d)
{
	sigset_t all, old;
	int rc;


	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* signals go to the main thread */
	rec_drain_refill(d);
	rc = pthread_create(&d->thread, NULL, drain_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	d->started = true;
	return 0;
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
}

struct rec_chunk *rec_drain_take(struct rec_drain *d, int timeout_ms, uint64_t *round_ns)
{
	struct rec_chunk *list;

	pthread_mutex_lock(&d->lock);
	if (!d->head && timeout_ms > 0) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		ts.tv_sec += timeout_ms / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&d->ready, &d->lock, &ts);
	}
	list = d->head;
	d->head = d->tail = NULL;
	d->queued_sz = 0;
	*round_ns = d->round_ns;
	pthread_mutex_unlock(&d->lock);
	return list;
}

void rec_drain_put(struct rec_drain *d, struct rec_chunk *list)
{
	struct rec_chunk *last = list;

	if (!list)
		return;
	while (last->next)
		last = last->next;

	size_t n = 1;

	for (struct rec_chunk *c = list; c != last; c = c->next)
		n++;
	pthread_mutex_lock(&d->lock);
	last->next = d->pool;
	d->pool = list;
	d->nr_pool += n;
	pthread_mutex_unlock(&d->lock);
}

static void free_list(struct rec_chunk *c)
{
	while (c) {
		struct rec_chunk *n = c->next;

		chunk_free(c);
		c = n;
	}
}

void rec_drain_release(struct rec_drain *d)
{
	if (!d->pfds)
		return;
	free_list(d->head);
	free_list(d->pool);
	d->head = d->tail = d->pool = NULL;
	free(d->pfds);
	d->pfds = NULL;
	close(d->wake_fd);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->ready);
}
