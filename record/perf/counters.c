/* SPDX-License-Identifier: MIT */
/*
 * counters.c - counting-mode events: their fds, the timer reads, the COUNTER records.
 *
 * Timer reads: one fd per (CPU, every thread) for CPU-wide targets, per
 * (thread, every CPU, inherited) for -p/-t and a command; read() gives
 * value, time_enabled, time_running; each reading is queued in the merge as
 * a REC_SYNTH_COUNTER record at the instant it was read, so it lands in time
 * order with the events.  Sampling leader: a cpu-clock fd per CPU, redirected
 * into that CPU's ring, leads a group of the counting fds; its samples carry
 * the group read, which sideband.c hands to rec_counters_group_read().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/sys.h"
#include "record/clock.h"
#include "record/err.h"
#include "record/perf/counters.h"
#include "record/ring/merge.h"
#include "record/ring/sideband.h"
#include "record/session.h"

/* One counting fd. */
struct rec_cfd {
	int fd;
	uint32_t evsel;			/* index */
	uint32_t cpu, tid;		/* what it counts: UINT32_MAX = every */
	uint32_t qi;			/* merge queue (ring index, or the session's own) */
	bool member;			/* read through its group's leader, not on its own */
};

struct rec_counters {
	struct rec_cfd *fds;
	size_t nr, cap;
	int *leader_fd;			/* per target CPU, -1 when none */
	uint64_t next_ns;		/* the next timer read */
	bool timer;			/* some fds are read by the timer */
};

/* REC_SYNTH_COUNTER body after the perf_event_header: a reading of nr counters. */
struct rec_synth_counter {
	uint32_t cpu, tid, nr, pad;
	uint64_t enabled, running;
	struct { uint32_t id, pad; uint64_t value; } v[];
};

/*
 * Timer reads of CPU-wide counters read groups: the counters of one CPU are
 * one group under the first counting event, read at once, so multiplexing
 * moves them together (IPC is cycles and instructions of the same time).
 * Per-thread counters are inherited, which a group read cannot be: one each.
 */
static bool timer_groups(const struct rec_session *s)
{
	return !s->opts.count_leader &&
	       (s->tgt.kind == REC_TGT_SYSTEM || s->tgt.kind == REC_TGT_CGROUP);
}

static bool first_counting(const struct rec_session *s, const struct rec_evsel *e)
{
	for (size_t i = 0; i < s->nr_evsels; i++)
		if (s->evsels[i].counting)
			return &s->evsels[i] == e;
	return false;
}

static struct rec_counters *ctr(struct rec_session *s)
{
	if (!s->ctr)
		s->ctr = pp_xcalloc(1, sizeof(*s->ctr));
	return s->ctr;
}

int rec_counters_add(struct rec_session *s, const char *text, char *msg, size_t msg_sz)
{
	bool optional = *text == REC_COUNTER_OPTIONAL;
	size_t first = s->nr_evsels;
	int rc;

	if (optional)
		text++;
	rc = rec_evsels_add(s, text, msg, msg_sz);
	if (rc && optional && (rc == PP_EUNKNOWN_EVENT || rc == PP_ENOT_FOUND)) {
		pp_note("counter '%s' left out: not on this kernel", text);
		for (size_t i = first; i < s->nr_evsels; i++)
			rec_evsel_release(&s->evsels[i]);
		s->nr_evsels = first;
		msg[0] = '\0';
		return 0;
	}
	for (size_t i = first; i < s->nr_evsels; i++)
		s->evsels[i].counting = true;
	if (!rc && s->nr_evsels - first > PPF_COUNTER_MAX - 1)
		rc = rec_errf(msg, msg_sz, PP_EUSAGE, "'%s': %zu counters, at most %d are read together",
				      text, s->nr_evsels - first, PPF_COUNTER_MAX - 1);
	return rc;
}

static size_t nr_counting(const struct rec_session *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr_evsels; i++)
		n += s->evsels[i].counting;
	return n;
}

int rec_counters_prepare(struct rec_session *s, char *msg, size_t msg_sz)
{
	size_t n = nr_counting(s), first = s->nr_evsels;
	int rc;

	if (!n) {
		if (s->opts.count_leader)
			return rec_errf(msg, msg_sz, PP_EUSAGE, "--count-leader without --count events");
		return 0;
	}
	if (n > PPF_COUNTER_MAX - 1)
		return rec_errf(msg, msg_sz, PP_EUSAGE, "%zu counters: at most %d are read together", n,
					PPF_COUNTER_MAX - 1);
	if (!s->opts.count_period)
		s->opts.count_period = 1000000000ull;	/* perf-prof's -i default */
	if (s->opts.count_period < 100000ull)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
					"--count-period %lluns: 100us at least (a read per CPU per period)",
					(unsigned long long)s->opts.count_period);
	if (!s->opts.count_leader)
		return 0;
	if (s->tgt.kind != REC_TGT_SYSTEM && s->tgt.kind != REC_TGT_CGROUP)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
					"counting with a sampling leader is per CPU: use -C (or no target), not -p/-t or a command");
	rc = rec_evsels_add(s, "cpu-clock", msg, msg_sz);
	if (rc)
		return rc;
	s->evsels[first].count_leader = true;
	return 0;
}

void rec_counters_attr(const struct rec_session *s, struct rec_evsel *e)
{
	struct perf_event_attr *a = &e->attr;

	if (e->counting) {
		a->freq = 0;
		a->sample_period = 0;
		a->sample_type = 0;
		a->watermark = 0;
		a->wakeup_watermark = 0;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				 PERF_FORMAT_ID;
		e->flags = (e->flags & ~(uint32_t)PPF_EVF_STACK) | PPF_EVF_COUNTING;
		if (s->opts.count_leader) {
			a->inherit = 0;
			a->disabled = 0;	/* members follow their leader */
		} else if (timer_groups(s)) {
			a->inherit = 0;
			a->read_format |= PERF_FORMAT_GROUP;
			a->disabled = first_counting(s, e);	/* members follow the first */
		}
	} else if (e->count_leader) {
		a->freq = 0;
		a->sample_period = s->opts.count_period;
		/* no IP: the period, not the place, is what it samples (-g adds a stack) */
		a->sample_type = (a->sample_type & ~(uint64_t)PERF_SAMPLE_IP) | PERF_SAMPLE_READ;
		a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a->inherit = 0;
		e->flags |= PPF_EVF_COUNT_LEADER;
	}
}

bool rec_counters_skip(const struct rec_evsel *e)
{
	return e->counting || e->count_leader;
}

static void cfd_add(struct rec_counters *c, int fd, uint32_t evsel, uint32_t cpu, uint32_t tid,
		    uint32_t qi)
{
	if (c->nr == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		c->fds = pp_xrealloc(c->fds, c->cap * sizeof(*c->fds));
	}
	c->fds[c->nr++] = (struct rec_cfd){ fd, evsel, cpu, tid, qi };
}

static int open_fail(struct rec_session *s, int err, const struct rec_evsel *e, int cpu, int tid, char *msg, size_t msg_sz)
{
	if (err == -ESRCH && tid >= 0)
		return 1;	/* the thread exited meanwhile */
	if (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP)
		return rec_errf(msg, msg_sz, err, "cannot count %s: not supported on this machine (%s)",
					e->name, strerror(-err));
	if (err == -EACCES || err == -EPERM)
		return rec_errf(msg, msg_sz, err,
					"cannot count %s: permission denied (run as root, or lower /proc/sys/kernel/perf_event_paranoid)",
					e->name);
	if (err == -EMFILE || err == -ENFILE)
		return rec_errf(msg, msg_sz, err, "cannot count %s: too many open files (raise 'ulimit -n')",
					e->name);
	return rec_errf(msg, msg_sz, err, "cannot count %s on %s %d: %s", e->name,
				tid >= 0 ? "thread" : "CPU", tid >= 0 ? tid : cpu, strerror(-err));
}

/*
 * A counted event's filter must be the kernel's: there are no events to filter
 * afterwards, only counts.
 */
static int counter_filter(struct rec_session *s, struct rec_evsel *e, int fd, char *msg, size_t msg_sz)
{
	if (!e->filter)
		return 0;
	if (e->kind == PPF_EV_TRACEPOINT || e->kind == PPF_EV_UPROBE || e->kind == PPF_EV_KPROBE) {
		if (pp_sys_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter) == 0) {
			e->flags |= PPF_EVF_KERNEL_FILTER;
			return 0;
		}
		return rec_errf(msg, msg_sz, PP_ENOTSUP,
					"%s: the kernel refuses filter '%s' (%s), and counted events cannot be filtered afterwards",
					e->name, e->filter, strerror(errno));
	}
	return rec_errf(msg, msg_sz, PP_ENOTSUP, "%s: a filter on a counted %s event is not possible",
				e->name, "non-tracepoint");
}

/* Return: the fd, or -errno. */
static int perf_open(struct perf_event_attr *a, int pid, int cpu, int group, unsigned long flags)
{
	int fd = pp_sys_perf_event_open(a, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The sampling leader of CPU @ci (into its ring) and its group of counting fds. */
static int open_leader_group(struct rec_session *s, size_t ci, int pid, unsigned long flags, char *msg, size_t msg_sz)
{
	struct rec_counters *c = s->ctr;
	int cpu = s->tgt.cpus[ci], lfd = -1;
	uint64_t kid;

	for (size_t i = 0; i < s->nr_evsels && lfd < 0; i++) {
		struct rec_evsel *e = &s->evsels[i];

		if (!e->count_leader)
			continue;
		lfd = perf_open(&e->attr, pid, cpu, -1, flags);
		if (lfd < 0)
			return open_fail(s, lfd, e, cpu, -1, msg, msg_sz);
		if (pp_sys_ioctl(lfd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[ci].fd) ||
		    pp_sys_ioctl(lfd, PERF_EVENT_IOC_ID, &kid)) {
			int err = -errno;

			close(lfd);
			return rec_errf(msg, msg_sz, err, "cannot attach the counting leader to the ring of CPU %d: %s",
						cpu, strerror(-err));
		}
		rec_idmap_put(&s->ids, kid, (int)i);
		c->leader_fd[ci] = lfd;
		cfd_add(c, lfd, (uint32_t)i, (uint32_t)cpu, UINT32_MAX, (uint32_t)ci);
	}
	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];
		int fd, rc;

		if (!e->counting)
			continue;
		fd = perf_open(&e->attr, pid, cpu, lfd, flags);
		if (fd < 0)
			return open_fail(s, fd, e, cpu, -1, msg, msg_sz);
		if ((rc = counter_filter(s, e, fd, msg, msg_sz))) {
			close(fd);
			return rc;
		}
		if (pp_sys_ioctl(fd, PERF_EVENT_IOC_ID, &kid)) {
			int err = -errno;

			close(fd);
			return rec_errf(msg, msg_sz, err, "cannot read the id of %s: %s", e->name,
						strerror(-err));
		}
		rec_idmap_put(&s->ids, kid, (int)i);
		cfd_add(c, fd, (uint32_t)i, (uint32_t)cpu, UINT32_MAX, (uint32_t)ci);
	}
	return 0;
}

/* Timer-read fds of one unit: a CPU (@tid < 0, one group) or a thread on every CPU. */
static int open_timer_unit(struct rec_session *s, int pid, int cpu, int tid, unsigned long flags, char *msg, size_t msg_sz)
{
	struct rec_counters *c = s->ctr;
	bool group = tid < 0 && timer_groups(s);
	int lfd = -1;

	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];
		uint64_t kid;
		int fd, rc;

		if (!e->counting)
			continue;
		fd = perf_open(&e->attr, pid, cpu, group ? lfd : -1, flags);
		if (fd < 0) {
			rc = open_fail(s, fd, e, cpu, tid, msg, msg_sz);
			return rc;
		}
		if ((rc = counter_filter(s, e, fd, msg, msg_sz))) {
			close(fd);
			return rc;
		}
		if (group) {
			if (pp_sys_ioctl(fd, PERF_EVENT_IOC_ID, &kid)) {
				int err = -errno;

				close(fd);
				return rec_errf(msg, msg_sz, err, "cannot read the id of %s: %s",
							e->name, strerror(-err));
			}
			rec_idmap_put(&s->ids, kid, (int)i);
		}
		cfd_add(c, fd, (uint32_t)i, cpu < 0 ? UINT32_MAX : (uint32_t)cpu,
			tid < 0 ? UINT32_MAX : (uint32_t)tid, (uint32_t)s->tgt.nr_cpus);
		c->fds[c->nr - 1].member = group && lfd >= 0;
		if (group && lfd < 0)
			lfd = fd;
	}
	c->timer = true;
	return 0;
}

int rec_counters_open(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_target *t = &s->tgt;
	struct rec_counters *c;
	unsigned long flags = t->kind == REC_TGT_CGROUP ? PERF_FLAG_PID_CGROUP : 0;
	size_t nr_units = t->kind == REC_TGT_CGROUP ? t->nr_cgroups : 1;
	int rc = 0;

	if (!nr_counting(s))
		return 0;
	c = ctr(s);
	c->leader_fd = pp_xcalloc(t->nr_cpus, sizeof(*c->leader_fd));
	for (size_t ci = 0; ci < t->nr_cpus; ci++)
		c->leader_fd[ci] = -1;
	if (t->kind == REC_TGT_THREADS || t->kind == REC_TGT_WORKLOAD) {
		size_t alive = 0;

		for (size_t u = 0; u < t->nr_tids && rc <= 0; u++) {
			rc = open_timer_unit(s, t->tids[u], -1, t->tids[u], 0, msg, msg_sz);
			if (rc == 1)
				rc = 0;		/* exited meanwhile */
			else if (!rc)
				alive++;
		}
		if (!rc && !alive)
			rc = rec_errf(msg, msg_sz, PP_ENOT_FOUND, "every thread to count has exited");
		return rc;
	}
	for (size_t ci = 0; ci < t->nr_cpus && !rc; ci++) {
		if (t->sideband_only && t->sideband_only[ci])
			continue;
		for (size_t u = 0; u < nr_units && !rc; u++) {
			int pid = t->kind == REC_TGT_CGROUP ? t->cgroup_fds[u] : -1;

			if (s->opts.count_leader)
				rc = open_leader_group(s, ci, pid, flags, msg, msg_sz);
			else
				rc = open_timer_unit(s, pid, t->cpus[ci], -1, flags, msg, msg_sz);
		}
	}
	return rc;
}

void rec_counters_enable(struct rec_session *s, bool on)
{
	struct rec_counters *c = s->ctr;

	if (!c)
		return;
	if (on)
		c->next_ns = rec_now_ns() + s->opts.count_period;
	for (size_t i = 0; i < c->nr; i++) {
		const struct rec_evsel *e = &s->evsels[c->fds[i].evsel];

		/* group members follow their leader; an inherited count waits for exec */
		if ((s->opts.count_leader && e->counting) || c->fds[i].member)
			continue;
		if (on && e->attr.enable_on_exec)
			continue;
		ioctl(c->fds[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	}
}

/* Queue one reading (a group's, or one counter's) for the merge at @now. */
static void push_reading(struct rec_session *s, const struct rec_cfd *f, uint64_t now,
			 const uint64_t *buf, ssize_t n)
{
	union {
		struct perf_event_header h;
		uint8_t bytes[sizeof(struct perf_event_header) + sizeof(struct rec_synth_counter) +
			      PPF_COUNTER_MAX * 16];
	} r;
	struct rec_synth_counter *b = (void *)(r.bytes + sizeof(struct perf_event_header));
	uint64_t nr;

	if (f->member || n < 32)
		return;
	if (s->evsels[f->evsel].attr.read_format & PERF_FORMAT_GROUP) {
		/* nr, enabled, running, then (value, id) each */
		nr = buf[0];
		if (!nr || nr > PPF_COUNTER_MAX || (uint64_t)n < (3 + 2 * nr) * 8)
			return;
		*b = (struct rec_synth_counter){ f->cpu, f->tid, 0, 0, buf[1], buf[2] };
		for (uint64_t i = 0; i < nr; i++) {
			int ix = rec_idmap_get(&s->ids, buf[4 + 2 * i]);

			if (ix < 0)
				continue;
			b->v[b->nr].id = s->evsels[ix].id;
			b->v[b->nr++].value = buf[3 + 2 * i];
		}
		if (!b->nr)
			return;
	} else {	/* value, enabled, running, id */
		*b = (struct rec_synth_counter){ f->cpu, f->tid, 1, 0, buf[1], buf[2] };
		b->v[0].id = s->evsels[f->evsel].id;
		b->v[0].value = buf[0];
	}
	r.h = (struct perf_event_header){ REC_SYNTH_COUNTER, 0,
					  (uint16_t)(sizeof(r.h) + sizeof(*b) + b->nr * sizeof(b->v[0])) };
	rec_merge_push(&s->merge, f->qi, now, -1, -1, &r.h);
}

static void read_all(struct rec_session *s, uint64_t now)
{
	struct rec_counters *c = s->ctr;
	uint64_t buf[3 + 2 * PPF_COUNTER_MAX];

	for (size_t i = 0; i < c->nr; i++) {
		const struct rec_cfd *f = &c->fds[i];

		if (f->member || s->evsels[f->evsel].count_leader || s->opts.count_leader)
			continue;	/* read with its group; the kernel reads a leader's */
		push_reading(s, f, now, buf, read(f->fd, buf, sizeof(buf)));
	}
}

int rec_counters_tick(struct rec_session *s, uint64_t now)
{
	struct rec_counters *c = s->ctr;

	if (!c || !c->timer)
		return -1;
	if (now >= c->next_ns) {
		read_all(s, now);
		/* a late loop skips the periods it missed instead of reading in a burst */
		c->next_ns += s->opts.count_period;
		if (c->next_ns <= now)
			c->next_ns = now + s->opts.count_period -
				     (now - c->next_ns) % s->opts.count_period;
	}
	return (int)((c->next_ns - now + 999999) / 1000000);
}

void rec_counters_final(struct rec_session *s, uint64_t now)
{
	if (s->ctr && s->ctr->timer)
		read_all(s, now);
}

int rec_counters_emit(struct rec_session *s, const struct rec_mev *e)
{
	const struct rec_synth_counter *b = (const void *)(rec_mev_rec(e) + 1);
	struct ppf_counter_val v[PPF_COUNTER_MAX];
	struct ppf_counter k = { e->time_ns, b->cpu, b->tid, b->enabled, b->running, b->nr, v };

	for (uint32_t i = 0; i < b->nr && i < PPF_COUNTER_MAX; i++)
		v[i] = (struct ppf_counter_val){ b->v[i].id, b->v[i].value };
	return ppf_write_counter(s->w, &k);
}

int rec_counters_group_read(struct rec_session *s, uint64_t time_ns, uint32_t cpu,
			    const uint64_t *read, uint64_t n)
{
	struct ppf_counter_val v[PPF_COUNTER_MAX];
	struct ppf_counter k = { time_ns, cpu, UINT32_MAX, 0, 0, 0, v };
	uint64_t nr;

	if (n < 3 * 8 || (nr = read[0]) == 0 || nr > PPF_COUNTER_MAX || n < (3 + 2 * nr) * 8) {
		s->nr_bad_records++;
		return 0;
	}
	k.enabled = read[1];
	k.running = read[2];
	for (uint64_t i = 0; i < nr; i++) {
		int ix = rec_idmap_get(&s->ids, read[4 + 2 * i]);

		if (ix < 0)
			continue;	/* not ours: cannot happen, but a read is not trusted */
		v[k.nr].id = s->evsels[ix].id;
		v[k.nr++].value = read[3 + 2 * i];
	}
	return k.nr ? ppf_write_counter(s->w, &k) : 0;
}

void rec_counters_release(struct rec_session *s)
{
	struct rec_counters *c = s->ctr;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		close(c->fds[i].fd);
	free(c->fds);
	free(c->leader_fd);
	free(c);
	s->ctr = NULL;
}
