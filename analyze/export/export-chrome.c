/* SPDX-License-Identifier: MIT */
/*
 * export-chrome.c - Chrome trace event JSON, for ui.perfetto.dev and chrome://tracing.
 *
 * Layout (docs/exports.md has the details):
 *   - a process "CPUs" with one thread track per CPU: the running thread as complete
 *     ("X") slices, one per pair of consecutive sched_switch events on that CPU;
 *   - one thread track per thread (under its process): its states as "X" slices,
 *     Running / Runnable / Runnable (Preempted) / Sleeping / Uninterruptible Sleep ...,
 *     from sched_switch and sched_wakeup(_new)/sched_waking;
 *   - every other event as an instant ("i") event on its thread, fields as args, its
 *     call stack as "sf" into the top-level "stackFrames";
 *   - process and thread names as metadata ("M") events, the capture's wall-clock
 *     base in the top-level "metadata".
 * A slice is written when it ends (Chrome's "X" events carry their duration), so the
 * file is not sorted by ts; both viewers sort on import.  Streaming: the state is one
 * entry per CPU and per live thread (removed at exit), plus the stack-frame tree.
 * Timestamps are capture time (the perf clock, CLOCK_MONOTONIC) in microseconds
 * with nanosecond decimals.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "analyze/export/internal.h"
#include "analyze/internal.h"
#include "common/intern.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/u64map.h"

/* The synthetic process that holds the CPU tracks: above any Linux pid (pid_max 2^22). */
#define CPU_PID 0x40000000u
#define CPU_TID(c) (CPU_PID + 1 + (c))
#define MAX_CPUS 4096

enum tstate {
	ST_NONE, ST_RUNNING, ST_RUNNABLE, ST_PREEMPTED, ST_S, ST_D, ST_T, ST_TRACED,
	ST_DEAD, ST_ZOMBIE, ST_PARKED, ST_IDLE, ST__NR
};

static const char *const state_names[ST__NR] = {
	"", "Running", "Runnable", "Runnable (Preempted)", "Sleeping", "Uninterruptible Sleep",
	"Stopped", "Traced", "Dead", "Zombie", "Parked", "Idle",
};

enum sel_kind { SK_OTHER, SK_SWITCH, SK_WAKEUP };

struct sel_info {
	enum sel_kind kind;
	const struct pp_field *prev_comm, *prev_pid, *prev_prio, *prev_state;
	const struct pp_field *next_comm, *next_pid, *next_prio;
	const struct pp_field *pid;	/* wakeups */
};

struct cpu_slot {
	bool valid;
	uint32_t tid;
	int32_t prio;
	uint64_t since_ns;
	char comm[16];
};

struct task {
	uint32_t tid, pid;
	uint8_t state;
	uint32_t cpu;
	uint64_t since_ns;
	uint64_t exit_ns;	/* its EXIT record; it still runs until a dead switch-out */
	char comm[16];		/* the name written in its thread_name metadata */
};

/* A thread that exited, to forget if its dead switch-out never comes (see sweep()). */
struct exited {
	uint32_t tid;
	uint64_t exit_ns;
};

/* How long after its EXIT record a thread may still be switched out for the last time. */
#define EXIT_GRACE_NS 1000000000ull

struct chrome_priv {
	struct pp_buf out;
	bool first;
	struct sel_info *sels;
	struct cpu_slot cpus[MAX_CPUS];
	uint32_t max_cpu;	/* highest CPU seen + 1 */
	struct pp_u64map tasks;	/* tid -> struct task * */
	struct pp_u64map procs;	/* pid -> (void *)1 once its process_name is written */
	struct exited *exits;	/* FIFO ring of exited threads, by exit time */
	size_t exits_head, nr_exits, alloc_exits;
	struct pp_intern *frames;	/* key: u32 parent + 1 (0: root), "name\0category" */
	struct ana_frame stack[ANA_EXPORT_MAX_FRAMES];
	struct pp_buf key;		/* stack_id()'s scratch */
	uint64_t nr_slices;
};

/* ---- output helpers ----------------------------------------------------- */

/* Start a trace event of phase @ph (a literal): {"ph":"X" */
#define ev_begin(p, ph)                                                            \
	do {                                                                       \
		if ((p)->first)                                                    \
			ANA_XB_LIT(&(p)->out, "\n{\"ph\":\"" ph "\"");             \
		else                                                               \
			ANA_XB_LIT(&(p)->out, ",\n{\"ph\":\"" ph "\"");            \
		(p)->first = false;                                                \
	} while (0)

/* ,"key": (a literal key) */
#define add_key(b, key) ANA_XB_LIT((b), ",\"" key "\":")

#define add_str(b, key, s, len) (add_key(b, key), ana_buf_add_json_str((b), (s), (len)))
#define add_u64(b, key, v) (add_key(b, key), ana_buf_add_u64((b), (v)))
/* microseconds, with the nanoseconds as decimals */
#define add_ts(b, key, ns) (add_key(b, key), ana_buf_add_frac((b), (ns), 3))

static void flush(struct ana_export *x, struct chrome_priv *p)
{
	if (p->out.len >= (256u << 10))
		ana_export_write(x, &p->out);
}

static size_t comm_len(const char *c)
{
	return strnlen(c, 16);
}

/* ---- names (metadata events) -------------------------------------------- */

static void meta_name(struct chrome_priv *p, const char *what, uint32_t pid, uint32_t tid,
		      const char *name, size_t len)
{
	ev_begin(p, "M");
	add_str(&p->out, "name", what, strlen(what));
	add_u64(&p->out, "pid", pid);
	add_u64(&p->out, "tid", tid);
	ANA_XB_LIT(&p->out, ",\"args\":{\"name\":");
	ana_buf_add_json_str(&p->out, name, len);
	ANA_XB_LIT(&p->out, "}}");
}

static void name_process(struct ana_export *x, struct chrome_priv *p, uint32_t pid)
{
	void **slot = pp_u64map_slot(&p->procs, pid);
	const char *comm;

	if (*slot)
		return;
	*slot = (void *)1;
	comm = pid ? ana_comm(x->s, pid) : "swapper";
	meta_name(p, "process_name", pid, pid, comm, strlen(comm));
}

/* The thread table entry of @tid, created (and named) when @create. */
static struct task *task_get(struct ana_export *x, struct chrome_priv *p, uint32_t tid, bool create)
{
	struct task *t = pp_u64map_get(&p->tasks, tid);

	if (t || !create)
		return t;
	t = pp_xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->pid = ana_task_pid(x->s, tid);
	pp_u64map_put(&p->tasks, tid, t);
	name_process(x, p, t->pid);
	return t;
}

/* Write thread_name when the thread's name changed (or was never written). */
static void task_name(struct chrome_priv *p, struct task *t, const char *comm)
{
	size_t len = comm_len(comm);

	if (len == comm_len(t->comm) && !memcmp(t->comm, comm, len))
		return;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, comm, len);
	meta_name(p, "thread_name", t->pid, t->tid, comm, len);
}

/* ---- stacks --------------------------------------------------------------- */

/* The id of @ev's innermost frame in the stackFrames tree, or -1 without a stack. */
static int64_t stack_id(struct ana_export *x, struct chrome_priv *p, const struct pp_event *ev)
{
	size_t n = ana_stack_frames(ev, p->stack, ANA_EXPORT_MAX_FRAMES);
	uint32_t parent = 0;	/* id + 1; 0 is the root */
	struct pp_buf *key = &p->key;

	if (!n)
		return -1;
	for (size_t i = n; i-- > 0;) {
		struct ana_frame_info fi;
		const char *slash;
		char addr[256];

		ana_frame_resolve(x->s, ev, p->stack[i].addr, p->stack[i].kernel, &fi);
		pp_buf_reset(key);
		pp_buf_add(key, &parent, sizeof(parent));
		if (fi.name) {
			pp_buf_adds(key, fi.name);
		} else if (!p->stack[i].kernel && fi.dso) {
			pp_buf_adds(key, ana_frame_unnamed(fi.dso, fi.dso_off, false, addr,
							   sizeof(addr)));
		} else {
			snprintf(addr, sizeof(addr), "0x%llx",
				 (unsigned long long)p->stack[i].addr);
			pp_buf_adds(key, addr);
		}
		ana_xb_ch(key, '\0');
		slash = fi.dso ? strrchr(fi.dso, '/') : NULL;
		pp_buf_adds(key, slash ? slash + 1 : fi.dso ? fi.dso : "[unknown]");
		parent = pp_intern_put(p->frames, key->data, key->len, NULL) + 1;
	}
	return (int64_t)parent - 1;
}

#define add_sf(b, key, id) add_sf_(b, ",\"" key "\":", id)

static void add_sf_(struct pp_buf *b, const char *key, int64_t id)
{
	if (id < 0)
		return;
	pp_buf_adds(b, key);
	ana_xb_ch(b, '"');
	ana_buf_add_u64(b, (uint64_t)id);
	ana_xb_ch(b, '"');
}

/* ---- thread states ------------------------------------------------------ */

static enum tstate state_of(uint64_t prev_state)
{
	static const enum tstate bits[8] = {
		ST_S, ST_D, ST_T, ST_TRACED, ST_DEAD, ST_ZOMBIE, ST_PARKED, ST_IDLE,
	};
	uint64_t s = prev_state & 0xff;

	if (!s)
		return ST_PREEMPTED;
	for (int i = 0; i < 8; i++)
		if (s & (1u << i))
			return bits[i];
	return ST_S;
}

static const char *state_letter(uint64_t prev_state)
{
	static const char *const letters[8] = { "S", "D", "T", "t", "X", "Z", "P", "I" };
	uint64_t s = prev_state & 0xff;

	for (int i = 0; i < 8; i++)
		if (s & (1u << i))
			return letters[i];
	return (prev_state & 0x100) ? "R+" : "R";
}

static void state_slice(struct chrome_priv *p, const struct task *t, uint64_t end_ns, bool open,
			int64_t esf)
{
	ev_begin(p, "X");
	add_str(&p->out, "name", state_names[t->state], strlen(state_names[t->state]));
	ANA_XB_LIT(&p->out, ",\"cat\":\"state\"");
	add_ts(&p->out, "ts", t->since_ns);
	add_ts(&p->out, "dur", end_ns - t->since_ns);
	add_u64(&p->out, "pid", t->pid);
	add_u64(&p->out, "tid", t->tid);
	add_sf(&p->out, "esf", esf);
	ANA_XB_LIT(&p->out, ",\"args\":{");
	if (t->state == ST_RUNNING) {
		ANA_XB_LIT(&p->out, "\"cpu\":");
		ana_buf_add_u64(&p->out, t->cpu);
	}
	if (open)
		pp_buf_adds(&p->out, t->state == ST_RUNNING ? ",\"open\":true" : "\"open\":true");
	ANA_XB_LIT(&p->out, "}}");
}

/* Move @t to @st at @t_ns, writing the slice of the state it leaves. */
static void set_state(struct chrome_priv *p, struct task *t, enum tstate st, uint64_t t_ns,
		      uint32_t cpu, int64_t esf)
{
	if (t->state == st && (st != ST_RUNNING || t->cpu == cpu))
		return;
	if (t->state != ST_NONE && t_ns >= t->since_ns)
		state_slice(p, t, t_ns, false, esf);
	t->state = (uint8_t)st;
	t->since_ns = t_ns;
	t->cpu = cpu;
}

static void task_drop(struct chrome_priv *p, uint32_t tid)
{
	free(pp_u64map_del(&p->tasks, tid));
}

/* ---- sched events ------------------------------------------------------- */

static void cpu_slice(struct chrome_priv *p, uint32_t cpu, const struct cpu_slot *c,
		      uint64_t end_ns, const char *end_state, struct ana_export *x)
{
	ev_begin(p, "X");
	add_str(&p->out, "name", c->comm, comm_len(c->comm));
	ANA_XB_LIT(&p->out, ",\"cat\":\"cpu\"");
	add_ts(&p->out, "ts", c->since_ns);
	add_ts(&p->out, "dur", end_ns - c->since_ns);
	add_u64(&p->out, "pid", CPU_PID);
	add_u64(&p->out, "tid", CPU_TID(cpu));
	ANA_XB_LIT(&p->out, ",\"args\":{\"tid\":");
	ana_buf_add_u64(&p->out, c->tid);
	ANA_XB_LIT(&p->out, ",\"pid\":");
	ana_buf_add_u64(&p->out, ana_task_pid(x->s, c->tid));
	ANA_XB_LIT(&p->out, ",\"prio\":");
	ana_buf_add_i64(&p->out, c->prio);
	if (end_state) {
		ANA_XB_LIT(&p->out, ",\"end_state\":\"");
		pp_buf_adds(&p->out, end_state);
		ana_xb_ch(&p->out, '"');
	} else {
		ANA_XB_LIT(&p->out, ",\"open\":true");
	}
	ANA_XB_LIT(&p->out, "}}");
	p->nr_slices++;
}

static void name_cpu(struct chrome_priv *p, uint32_t cpu)
{
	char name[32];

	if (cpu < p->max_cpu)
		return;
	if (!p->max_cpu) {
		meta_name(p, "process_name", CPU_PID, CPU_PID, "CPUs", 4);
		ev_begin(p, "M");
		ANA_XB_LIT(&p->out, ",\"name\":\"process_sort_index\"");
		add_u64(&p->out, "pid", CPU_PID);
		ANA_XB_LIT(&p->out, ",\"args\":{\"sort_index\":-1}}");
	}
	for (uint32_t c = p->max_cpu; c <= cpu; c++) {
		int n = snprintf(name, sizeof(name), "CPU %u", c);
		meta_name(p, "thread_name", CPU_PID, CPU_TID(c), name, (size_t)n);
		ev_begin(p, "M");
		ANA_XB_LIT(&p->out, ",\"name\":\"thread_sort_index\"");
		add_u64(&p->out, "pid", CPU_PID);
		add_u64(&p->out, "tid", CPU_TID(c));
		ANA_XB_LIT(&p->out, ",\"args\":{\"sort_index\":");
		ana_buf_add_u64(&p->out, c);
		ANA_XB_LIT(&p->out, "}}");
	}
	p->max_cpu = cpu + 1;
}

static void on_switch(struct ana_export *x, struct chrome_priv *p, const struct sel_info *si,
		      const struct pp_event *ev)
{
	uint32_t cpu = ev->cpu, prev = (uint32_t)ana_field_read(ev, si->prev_pid);
	uint32_t next = (uint32_t)ana_field_read(ev, si->next_pid);
	uint64_t prev_state = ana_field_read(ev, si->prev_state);
	enum tstate st = state_of(prev_state);
	char prev_comm[17], next_comm[17];
	struct cpu_slot *c;
	struct task *t;

	if (cpu >= MAX_CPUS)
		return;
	name_cpu(p, cpu);
	c = &p->cpus[cpu];
	if (c->valid && c->tid)
		cpu_slice(p, cpu, c, ev->time_ns,
			  c->tid == prev ? state_letter(prev_state) : "?", x);
	ana_export_chars(ev, si->prev_comm, prev_comm, sizeof(prev_comm));
	ana_export_chars(ev, si->next_comm, next_comm, sizeof(next_comm));
	*c = (struct cpu_slot){ .valid = true, .tid = next, .since_ns = ev->time_ns,
				.prio = (int32_t)ana_field_read(ev, si->next_prio) };
	memcpy(c->comm, next_comm, strnlen(next_comm, sizeof(c->comm)));

	if (prev) {
		bool dead = st == ST_DEAD || st == ST_ZOMBIE;
		t = task_get(x, p, prev, !dead);
		if (t) {
			task_name(p, t, prev_comm);
			set_state(p, t, st, ev->time_ns, cpu, stack_id(x, p, ev));
			if (dead)
				task_drop(p, prev);
		}
	}
	if (next) {
		t = task_get(x, p, next, true);
		task_name(p, t, next_comm);
		set_state(p, t, ST_RUNNING, ev->time_ns, cpu, -1);
	}
}

static void on_wakeup(struct ana_export *x, struct chrome_priv *p, const struct sel_info *si,
		      const struct pp_event *ev)
{
	uint32_t tid = (uint32_t)ana_field_read(ev, si->pid);
	char comm[17];
	const struct pp_field *cf = si->prev_comm;	/* wakeups: the "comm" field */
	struct task *t;

	if (!tid)
		return;
	t = task_get(x, p, tid, true);
	if (cf)
		task_name(p, t, ana_export_chars(ev, cf, comm, sizeof(comm)));
	if (t->state != ST_RUNNING && t->state != ST_RUNNABLE && t->state != ST_PREEMPTED)
		set_state(p, t, ST_RUNNABLE, ev->time_ns, ev->cpu, -1);
}

/* ---- other events ------------------------------------------------------- */

static void arg_cb(void *arg, const struct ana_xfield *f)
{
	struct pp_buf *b = arg;

	if (b->data[b->len - 1] != '{')
		ana_xb_ch(b, ',');
	ana_buf_add_json_str(b, f->name, strlen(f->name));
	ana_xb_ch(b, ':');
	if (f->kind == ANA_XF_PTR) {
		char hex[24];
		int n = snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)f->u);
		ana_buf_add_json_str(b, hex, (size_t)n);
	} else {
		ana_xfield_json(b, f);
	}
}

static void on_other(struct ana_export *x, struct chrome_priv *p, const struct pp_event *ev)
{
	const char *name = ev->sel && ev->sel->sel->alias ? ev->sel->sel->alias : ev->type->name;
	int64_t sf = stack_id(x, p, ev);

	if (ev->tid) {
		struct task *t = task_get(x, p, ev->tid, true);
		const char *comm = ana_comm(x->s, ev->tid);
		task_name(p, t, comm);
	} else {
		name_process(x, p, 0);
	}
	ev_begin(p, "i");
	ANA_XB_LIT(&p->out, ",\"s\":\"t\"");
	add_str(&p->out, "name", name, strlen(name));
	add_str(&p->out, "cat", ev->type->sys ? ev->type->sys : "perf",
		strlen(ev->type->sys ? ev->type->sys : "perf"));
	add_ts(&p->out, "ts", ev->time_ns);
	add_u64(&p->out, "pid", ev->pid);
	add_u64(&p->out, "tid", ev->tid);
	add_sf(&p->out, "sf", sf);
	ANA_XB_LIT(&p->out, ",\"args\":{");
	ANA_XB_LIT(&p->out, "\"cpu\":");
	ana_buf_add_u64(&p->out, ev->cpu);
	ana_export_fields(ev, arg_cb, &p->out);
	ANA_XB_LIT(&p->out, "}}");
}

/* ---- the writer --------------------------------------------------------- */

static int chrome_begin(struct ana_export *x)
{
	struct chrome_priv *p = x->priv;
	struct pp_az *az = x->az;

	p->first = true;
	p->frames = pp_intern_new();
	p->sels = pp_xcalloc(az->nr_sels ? az->nr_sels : 1, sizeof(*p->sels));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_evtype *t = az->sels[i].type;
		struct sel_info *si = &p->sels[i];

		if (!strcmp(t->name, "sched:sched_switch")) {
			si->prev_comm = ana_field_find(t, "prev_comm");
			si->prev_pid = ana_field_find(t, "prev_pid");
			si->prev_prio = ana_field_find(t, "prev_prio");
			si->prev_state = ana_field_find(t, "prev_state");
			si->next_comm = ana_field_find(t, "next_comm");
			si->next_pid = ana_field_find(t, "next_pid");
			si->next_prio = ana_field_find(t, "next_prio");
			if (si->prev_pid && si->prev_state && si->next_pid && si->next_prio)
				si->kind = SK_SWITCH;
		} else if (!strcmp(t->name, "sched:sched_wakeup") ||
			   !strcmp(t->name, "sched:sched_wakeup_new") ||
			   !strcmp(t->name, "sched:sched_waking")) {
			si->pid = ana_field_find(t, "pid");
			si->prev_comm = ana_field_find(t, "comm");
			if (si->pid)
				si->kind = SK_WAKEUP;
		}
	}
	ANA_XB_LIT(&p->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return 0;
}

/*
 * A thread's EXIT record comes from do_exit(), before it is switched out for the last time
 * (prev_state X), so the thread is only forgotten at that switch; sweep() forgets those
 * whose last switch was not seen within EXIT_GRACE_NS (filtered out with -C, say), so the
 * table stays bounded by the live threads.
 */
static void chrome_task_exit(struct ana_export *x, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct chrome_priv *p = x->priv;
	struct task *t = pp_u64map_get(&p->tasks, tid);

	if (pid == tid)
		pp_u64map_del(&p->procs, pid);
	if (!t)
		return;
	t->exit_ns = time_ns;
	if (p->nr_exits == p->alloc_exits) {
		size_t n = p->alloc_exits ? 2 * p->alloc_exits : 64;
		struct exited *v = pp_xmalloc(n * sizeof(*v));
		for (size_t i = 0; i < p->nr_exits; i++)
			v[i] = p->exits[(p->exits_head + i) % p->alloc_exits];
		free(p->exits);
		p->exits = v;
		p->exits_head = 0;
		p->alloc_exits = n;
	}
	p->exits[(p->exits_head + p->nr_exits++) % p->alloc_exits] =
		(struct exited){ tid, time_ns };
}

static void sweep(struct chrome_priv *p, uint64_t now_ns)
{
	while (p->nr_exits) {
		struct exited *e = &p->exits[p->exits_head];
		struct task *t;

		if (e->exit_ns + EXIT_GRACE_NS > now_ns)
			break;
		t = pp_u64map_get(&p->tasks, e->tid);
		if (t && t->exit_ns == e->exit_ns) {
			uint64_t end = t->since_ns > e->exit_ns ? t->since_ns : e->exit_ns;
			if (t->state != ST_NONE)
				state_slice(p, t, end, false, -1);
			task_drop(p, e->tid);
		}
		p->exits_head = (p->exits_head + 1) % p->alloc_exits;
		p->nr_exits--;
	}
}

static void chrome_event(struct ana_export *x, const struct pp_event *ev)
{
	struct chrome_priv *p = x->priv;
	const struct sel_info *si = ev->sel ? &p->sels[ev->sel->index] : NULL;

	if (si && si->kind == SK_SWITCH)
		on_switch(x, p, si, ev);
	else if (si && si->kind == SK_WAKEUP)
		on_wakeup(x, p, si, ev);
	else
		on_other(x, p, ev);
	if (p->nr_exits)
		sweep(p, ev->time_ns);
	flush(x, p);
}

#define add_meta(b, key, v) add_meta_(b, ",\"" key "\":", v)

static void add_meta_(struct pp_buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	pp_buf_adds(b, key);
	ana_buf_add_json_str(b, v, strlen(v));
}

static int chrome_end(struct ana_export *x)
{
	struct chrome_priv *p = x->priv;
	struct ana_session *s = x->s;
	uint64_t end = ana_capture_end_ns(s), start = ana_capture_start_ns(s), real;
	size_t it = 0;
	uint64_t k;
	void *v;
	char wall[48];

	for (uint32_t c = 0; c < p->max_cpu; c++)
		if (p->cpus[c].valid && p->cpus[c].tid && end >= p->cpus[c].since_ns)
			cpu_slice(p, c, &p->cpus[c], end, NULL, x);
	while (pp_u64map_next(&p->tasks, &it, &k, &v)) {
		struct task *t = v;
		if (t->state != ST_NONE && end >= t->since_ns)
			state_slice(p, t, end, true, -1);
		flush(x, p);
	}
	/* stackFrames may be large: write it in pieces */
	{
		size_t n = pp_intern_count(p->frames);
		ANA_XB_LIT(&p->out, "\n],\"stackFrames\":{");
		for (uint32_t i = 0; i < n; i++) {
			size_t sz;
			const char *key = pp_intern_key(p->frames, i, &sz);
			uint32_t parent;
			const char *name = key + sizeof(parent), *cat = name + strlen(name) + 1;

			memcpy(&parent, key, sizeof(parent));
			pp_buf_adds(&p->out, i ? ",\n\"" : "\n\"");
			ana_buf_add_u64(&p->out, i);
			ANA_XB_LIT(&p->out, "\":{\"name\":");
			ana_buf_add_json_str(&p->out, name, strlen(name));
			add_str(&p->out, "category", cat, strlen(cat));
			if (parent) {
				ANA_XB_LIT(&p->out, ",\"parent\":\"");
				ana_buf_add_u64(&p->out, parent - 1);
				ana_xb_ch(&p->out, '"');
			}
			ana_xb_ch(&p->out, '}');
			flush(x, p);
		}
	}
	ANA_XB_LIT(&p->out, "},\n\"metadata\":{\"source\":\"pp-analyze export\"");
	add_meta(&p->out, "capture", s->path);
	add_meta(&p->out, "hostname", ana_host(s, "hostname"));
	add_meta(&p->out, "kernel", ana_host(s, "release"));
	add_meta(&p->out, "machine", ana_host(s, "machine"));
	add_meta(&p->out, "command", ana_host(s, "cmdline"));
	add_meta(&p->out, "clock", ana_host(s, "clock") ? ana_host(s, "clock") : "monotonic");
	ANA_XB_LIT(&p->out, ",\"ts_unit\":\"us of the capture clock\"");
	add_ts(&p->out, "first_ts", start);
	add_ts(&p->out, "last_ts", end);
	if (ana_realtime_ns(s, start, &real)) {
		time_t sec = (time_t)(real / 1000000000ull);
		struct tm tm;

		/* wall clock = ts * 1000 + realtime_offset_ns */
		add_key(&p->out, "realtime_offset_ns");
		ana_buf_add_i64(&p->out, (int64_t)(real - start));
		gmtime_r(&sec, &tm);
		strftime(wall, sizeof(wall), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(wall + strlen(wall), sizeof(wall) - strlen(wall), ".%06lluZ",
			 (unsigned long long)(real % 1000000000ull / 1000));
		add_meta(&p->out, "wall_clock_start", wall);
	}
	add_u64(&p->out, "events", x->nr_events);
	add_u64(&p->out, "lost", ana_lost_total(s));
	ANA_XB_LIT(&p->out, "}}\n");
	return ana_export_write(x, &p->out) ? 0 : -EIO;
}

static void chrome_release(struct ana_export *x)
{
	struct chrome_priv *p = x->priv;
	size_t it = 0;
	uint64_t k;
	void *v;

	while (pp_u64map_next(&p->tasks, &it, &k, &v))
		free(v);
	pp_u64map_release(&p->tasks);
	pp_u64map_release(&p->procs);
	free(p->exits);
	pp_intern_free(p->frames);
	pp_buf_release(&p->key);
	pp_buf_release(&p->out);
	free(p->sels);
}

const struct ana_export_ops ana_export_chrome = {
	.name = "chrome",
	.summary = "Chrome trace event JSON: CPU and thread-state timelines, instant events",
	.priv_size = sizeof(struct chrome_priv),
	.begin = chrome_begin,
	.event = chrome_event,
	.task_exit = chrome_task_exit,
	.end = chrome_end,
	.release = chrome_release,
};
