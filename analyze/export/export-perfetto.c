/* SPDX-License-Identifier: MIT */
/*
 * export-perfetto.c - a Perfetto protobuf trace (perfetto.protos.Trace), for ui.perfetto.dev
 * and trace_processor.
 *
 * The file is a sequence of Trace.packet (field 1) TracePacket messages, written with the
 * hand-written encoder of common/protobuf.h; docs/exports.md lists every field number used
 * and the .proto it comes from.  Scheduler events go the way Perfetto's own ftrace data
 * goes, so the UI builds its CPU tracks and thread states itself:
 *   - sched_switch, sched_wakeup, sched_wakeup_new and sched_waking become FtraceEvents
 *     in per-CPU FtraceEventBundles (up to 512 events a bundle);
 *   - threads and processes are announced in ProcessTree packets (names, tgid);
 *   - every other event is a TrackEvent of TYPE_INSTANT on its thread's track (declared
 *     by a TrackDescriptor), its fields as debug annotations and its call stack as an
 *     inline TrackEvent.callstack;
 *   - one ClockSnapshot ties the timestamps to CLOCK_REALTIME.
 * Timestamps are the capture's (CLOCK_MONOTONIC) and are declared as the trace's default
 * clock, BOOTTIME, which only differs by time spent in suspend.  State: one bundle per
 * CPU and one entry per live thread.
 */
#include <errno.h>
#include <string.h>

#include "analyze/export/internal.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/protobuf.h"
#include "common/u64map.h"

/* perfetto.protos field numbers: see docs/exports.md for the source of each. */
enum {
	TRACE_PACKET = 1,

	TP_FTRACE_EVENTS = 1, TP_PROCESS_TREE = 2, TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8,
	TP_SEQ_ID = 10, TP_TRACK_EVENT = 11, TP_SEQUENCE_FLAGS = 13, TP_TRACK_DESCRIPTOR = 60,
	TP_FIRST_ON_SEQUENCE = 87,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,

	BUNDLE_CPU = 1, BUNDLE_EVENT = 2,
	FE_TIMESTAMP = 1, FE_PID = 2, FE_SCHED_SWITCH = 4, FE_SCHED_WAKEUP = 17,
	FE_SCHED_WAKING = 20, FE_SCHED_WAKEUP_NEW = 114,
	SW_PREV_COMM = 1, SW_PREV_PID = 2, SW_PREV_PRIO = 3, SW_PREV_STATE = 4,
	SW_NEXT_COMM = 5, SW_NEXT_PID = 6, SW_NEXT_PRIO = 7,
	WK_COMM = 1, WK_PID = 2, WK_PRIO = 3, WK_SUCCESS = 4, WK_TARGET_CPU = 5,

	PT_PROCESSES = 1, PT_THREADS = 2,
	PROC_PID = 1, PROC_CMDLINE = 3,
	THR_TID = 1, THR_NAME = 2, THR_TGID = 3,

	CS_CLOCKS = 1, CS_PRIMARY_TRACE_CLOCK = 2, CLK_ID = 1, CLK_TIMESTAMP = 2,
	CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3, CLOCK_BOOTTIME_ID = 6,

	TD_UUID = 1, TD_THREAD = 4,
	THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5,

	TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_TRACK_UUID = 11, TE_CATEGORIES = 22,
	TE_NAME = 23, TE_CALLSTACK = 55, TYPE_INSTANT = 3,
	CALLSTACK_FRAMES = 1, FRAME_FUNCTION_NAME = 1, FRAME_SOURCE_FILE = 2,
	DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10,
};

#define SEQ_ID 1
#define BUNDLE_MAX 512
#define MAX_CPUS 4096

enum sel_kind { SK_OTHER, SK_SWITCH, SK_WAKEUP, SK_WAKEUP_NEW, SK_WAKING };

struct sel_info {
	enum sel_kind kind;
	/* switch: prev_comm .. next_prio; wakeups: comm, pid, prio, success, target_cpu */
	const struct pp_field *f[7];
};

struct bundle {
	struct pp_pb pb;	/* FtraceEventBundle.event entries, encoded */
	uint32_t nr;
};

struct thread {
	uint32_t pid;
	uint64_t track_uuid;	/* 0 until a TrackDescriptor was written */
};

struct perfetto_priv {
	struct pp_pb out;		/* Trace.packet entries ready for the file */
	struct pp_pb tree;		/* pending ProcessTree entries */
	uint32_t tree_nr;
	uint64_t tree_ts;
	struct bundle *cpus[MAX_CPUS];
	struct sel_info *sels;
	struct pp_u64map threads;	/* tid -> struct thread * */
	struct pp_u64map procs;		/* pid -> (void *)1: announced */
	uint64_t next_uuid;
	bool seq_started, clock_done;
	struct ana_frame stack[ANA_EXPORT_MAX_FRAMES];
	struct pp_buf tmp;		/* arrays as JSON text */
	uint64_t nr_ftrace, nr_track;
};

static void out_flush(struct ana_export *x, struct perfetto_priv *p, size_t at)
{
	if (p->out.buf.len >= at)
		ana_export_write(x, &p->out.buf);
}

/* ---- processes and threads ----------------------------------------------- */

static void tree_flush(struct perfetto_priv *p)
{
	if (!p->tree_nr)
		return;
	pp_pb_begin(&p->out, TRACE_PACKET);
	pp_pb_varint(&p->out, TP_TIMESTAMP, p->tree_ts);
	pp_pb_begin(&p->out, TP_PROCESS_TREE);
	pp_pb_raw(&p->out, p->tree.buf.data, p->tree.buf.len);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
	pp_pb_reset(&p->tree);
	p->tree_nr = 0;
}

/* Announce @tid (and its process) in the pending ProcessTree the first time it is seen. */
static struct thread *thread_see(struct ana_export *x, struct perfetto_priv *p, uint32_t tid,
				 const char *comm, uint64_t t_ns)
{
	void **slot = pp_u64map_slot(&p->threads, tid);
	struct thread *t = *slot;
	uint32_t pid;

	if (t)
		return t;
	t = *slot = pp_xcalloc(1, sizeof(*t));
	pid = t->pid = tid ? ana_task_pid(x->s, tid) : 0;
	if (!p->tree_nr)
		p->tree_ts = t_ns;
	if (!pp_u64map_get(&p->procs, pid)) {
		pp_u64map_put(&p->procs, pid, (void *)1);
		pp_pb_begin(&p->tree, PT_PROCESSES);
		pp_pb_int(&p->tree, PROC_PID, pid);
		pp_pb_str(&p->tree, PROC_CMDLINE, pid ? ana_comm(x->s, pid) : "swapper");
		pp_pb_end(&p->tree);
		p->tree_nr++;
	}
	pp_pb_begin(&p->tree, PT_THREADS);
	pp_pb_int(&p->tree, THR_TID, tid);
	pp_pb_str(&p->tree, THR_NAME, comm);
	pp_pb_int(&p->tree, THR_TGID, pid);
	pp_pb_end(&p->tree);
	if (++p->tree_nr >= 256)
		tree_flush(p);
	return t;
}

/* ---- ftrace bundles ------------------------------------------------------ */

static void bundle_flush(struct perfetto_priv *p, uint32_t cpu)
{
	struct bundle *b = p->cpus[cpu];

	if (!b || !b->nr)
		return;
	tree_flush(p);	/* names before the events that use them */
	pp_pb_begin(&p->out, TRACE_PACKET);
	pp_pb_begin(&p->out, TP_FTRACE_EVENTS);
	pp_pb_varint(&p->out, BUNDLE_CPU, cpu);
	pp_pb_raw(&p->out, b->pb.buf.data, b->pb.buf.len);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
	pp_pb_reset(&b->pb);
	b->nr = 0;
}

static void str_field(struct pp_pb *pb, uint32_t num, const struct pp_event *ev,
		      const struct pp_field *f)
{
	char buf[64];

	if (f && !f->is_data_loc)
		pp_pb_str(pb, num, ana_export_chars(ev, f, buf, sizeof(buf)));
}

static void int_field(struct pp_pb *pb, uint32_t num, const struct pp_event *ev,
		      const struct pp_field *f)
{
	if (f)
		pp_pb_int(pb, num, (int64_t)ana_field_read(ev, f));
}

static void on_sched(struct ana_export *x, struct perfetto_priv *p, const struct sel_info *si,
		     const struct pp_event *ev)
{
	static const uint32_t oneof[] = {
		[SK_SWITCH] = FE_SCHED_SWITCH, [SK_WAKEUP] = FE_SCHED_WAKEUP,
		[SK_WAKEUP_NEW] = FE_SCHED_WAKEUP_NEW, [SK_WAKING] = FE_SCHED_WAKING,
	};
	struct bundle *b;
	char comm[17];

	if (ev->cpu >= MAX_CPUS)
		return;
	b = p->cpus[ev->cpu];
	if (!b)
		b = p->cpus[ev->cpu] = pp_xcalloc(1, sizeof(*b));
	/* announce the tasks the event names */
	if (si->kind == SK_SWITCH) {
		uint32_t prev = (uint32_t)ana_field_read(ev, si->f[1]);
		uint32_t next = (uint32_t)ana_field_read(ev, si->f[5]);
		if (prev)
			thread_see(x, p, prev, ana_comm(x->s, prev), ev->time_ns);
		if (next)
			thread_see(x, p, next, ana_comm(x->s, next), ev->time_ns);
	} else {
		uint32_t tid = (uint32_t)ana_field_read(ev, si->f[1]);
		if (tid)
			thread_see(x, p, tid, si->f[0] ? ana_export_chars(ev, si->f[0], comm,
				   sizeof(comm)) : ana_comm(x->s, tid), ev->time_ns);
	}
	pp_pb_begin(&b->pb, BUNDLE_EVENT);
	pp_pb_varint(&b->pb, FE_TIMESTAMP, ev->time_ns);
	pp_pb_varint(&b->pb, FE_PID, ev->tid);
	pp_pb_begin(&b->pb, oneof[si->kind]);
	if (si->kind == SK_SWITCH) {
		str_field(&b->pb, SW_PREV_COMM, ev, si->f[0]);
		int_field(&b->pb, SW_PREV_PID, ev, si->f[1]);
		int_field(&b->pb, SW_PREV_PRIO, ev, si->f[2]);
		int_field(&b->pb, SW_PREV_STATE, ev, si->f[3]);
		str_field(&b->pb, SW_NEXT_COMM, ev, si->f[4]);
		int_field(&b->pb, SW_NEXT_PID, ev, si->f[5]);
		int_field(&b->pb, SW_NEXT_PRIO, ev, si->f[6]);
	} else {
		str_field(&b->pb, WK_COMM, ev, si->f[0]);
		int_field(&b->pb, WK_PID, ev, si->f[1]);
		int_field(&b->pb, WK_PRIO, ev, si->f[2]);
		int_field(&b->pb, WK_SUCCESS, ev, si->f[3]);
		int_field(&b->pb, WK_TARGET_CPU, ev, si->f[4]);
	}
	pp_pb_end(&b->pb);
	pp_pb_end(&b->pb);
	p->nr_ftrace++;
	if (++b->nr >= BUNDLE_MAX)
		bundle_flush(p, ev->cpu);
}

/* ---- track events --------------------------------------------------------- */

static void packet_begin(struct perfetto_priv *p)
{
	pp_pb_begin(&p->out, TRACE_PACKET);
	pp_pb_varint(&p->out, TP_SEQ_ID, SEQ_ID);
	if (!p->seq_started) {
		pp_pb_varint(&p->out, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		pp_pb_varint(&p->out, TP_FIRST_ON_SEQUENCE, 1);
		p->seq_started = true;
	}
}

static uint64_t thread_track(struct ana_export *x, struct perfetto_priv *p,
			     const struct pp_event *ev)
{
	const char *comm = ev->tid ? ana_comm(x->s, ev->tid) : "swapper";
	struct thread *t = thread_see(x, p, ev->tid, comm, ev->time_ns);

	if (t->track_uuid)
		return t->track_uuid;
	t->track_uuid = ++p->next_uuid;
	tree_flush(p);
	packet_begin(p);
	pp_pb_begin(&p->out, TP_TRACK_DESCRIPTOR);
	pp_pb_varint(&p->out, TD_UUID, t->track_uuid);
	pp_pb_begin(&p->out, TD_THREAD);
	pp_pb_int(&p->out, THD_PID, t->pid);
	pp_pb_int(&p->out, THD_TID, ev->tid);
	pp_pb_str(&p->out, THD_THREAD_NAME, comm);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
	return t->track_uuid;
}

struct annotation_ctx {
	struct pp_pb *pb;
	struct pp_buf *tmp;
};

static void annotation_cb(void *arg, const struct ana_xfield *f)
{
	struct annotation_ctx *c = arg;
	struct pp_pb *pb = c->pb;

	pp_pb_begin(pb, TE_DEBUG_ANNOTATIONS);
	pp_pb_str(pb, DA_NAME, f->name);
	switch (f->kind) {
	case ANA_XF_INT:
		pp_pb_int(pb, DA_INT, f->i);
		break;
	case ANA_XF_UINT:
		pp_pb_varint(pb, DA_UINT, f->u);
		break;
	case ANA_XF_PTR:
		pp_pb_varint(pb, DA_POINTER, f->u);
		break;
	case ANA_XF_STR:
		pp_pb_str(pb, DA_STRING, f->str);
		break;
	case ANA_XF_ARRAY:
		pp_buf_reset(c->tmp);
		ana_xfield_json(c->tmp, f);
		pp_pb_bytes(pb, DA_STRING, c->tmp->data, c->tmp->len);
		break;
	}
	pp_pb_end(pb);
}

static void add_callstack(struct ana_export *x, struct perfetto_priv *p, const struct pp_event *ev)
{
	size_t n = ana_stack_frames(ev, p->stack, ANA_EXPORT_MAX_FRAMES);
	char addr[256];

	if (!n)
		return;
	pp_pb_begin(&p->out, TE_CALLSTACK);
	for (size_t i = n; i-- > 0;) {	/* outermost first */
		struct ana_frame_info fi;

		ana_frame_resolve(x->s, ev, p->stack[i].addr, p->stack[i].kernel, &fi);
		pp_pb_begin(&p->out, CALLSTACK_FRAMES);
		if (fi.name) {
			pp_pb_str(&p->out, FRAME_FUNCTION_NAME, fi.name);
		} else if (!p->stack[i].kernel && fi.dso) {
			pp_pb_str(&p->out, FRAME_FUNCTION_NAME,
				  ana_frame_unnamed(fi.dso, fi.dso_off, false, addr, sizeof(addr)));
		} else {
			snprintf(addr, sizeof(addr), "0x%llx",
				 (unsigned long long)p->stack[i].addr);
			pp_pb_str(&p->out, FRAME_FUNCTION_NAME, addr);
		}
		if (fi.dso)
			pp_pb_str(&p->out, FRAME_SOURCE_FILE, fi.dso);
		pp_pb_end(&p->out);
	}
	pp_pb_end(&p->out);
}

static void on_other(struct ana_export *x, struct perfetto_priv *p, const struct pp_event *ev)
{
	uint64_t uuid = thread_track(x, p, ev);
	const char *name = ev->sel && ev->sel->sel->alias ? ev->sel->sel->alias : ev->type->name;

	packet_begin(p);
	pp_pb_varint(&p->out, TP_TIMESTAMP, ev->time_ns);
	pp_pb_begin(&p->out, TP_TRACK_EVENT);
	pp_pb_varint(&p->out, TE_TYPE, TYPE_INSTANT);
	pp_pb_varint(&p->out, TE_TRACK_UUID, uuid);
	pp_pb_str(&p->out, TE_CATEGORIES, ev->type->sys ? ev->type->sys : "perf");
	pp_pb_str(&p->out, TE_NAME, name);
	pp_pb_begin(&p->out, TE_DEBUG_ANNOTATIONS);
	pp_pb_str(&p->out, DA_NAME, "cpu");
	pp_pb_varint(&p->out, DA_UINT, ev->cpu);
	pp_pb_end(&p->out);
	ana_export_fields(ev, annotation_cb, &(struct annotation_ctx){ &p->out, &p->tmp });
	add_callstack(x, p, ev);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
	p->nr_track++;
}

/* ---- the writer ----------------------------------------------------------- */

static void clock_snapshot(struct ana_export *x, struct perfetto_priv *p, uint64_t t_ns)
{
	uint64_t real;

	p->clock_done = true;
	if (!ana_realtime_ns(x->s, t_ns, &real))
		return;
	pp_pb_begin(&p->out, TRACE_PACKET);
	pp_pb_varint(&p->out, TP_TIMESTAMP, t_ns);
	pp_pb_begin(&p->out, TP_CLOCK_SNAPSHOT);
	pp_pb_begin(&p->out, CS_CLOCKS);
	pp_pb_varint(&p->out, CLK_ID, CLOCK_BOOTTIME_ID);
	pp_pb_varint(&p->out, CLK_TIMESTAMP, t_ns);
	pp_pb_end(&p->out);
	pp_pb_begin(&p->out, CS_CLOCKS);
	pp_pb_varint(&p->out, CLK_ID, CLOCK_MONOTONIC_ID);
	pp_pb_varint(&p->out, CLK_TIMESTAMP, t_ns);
	pp_pb_end(&p->out);
	pp_pb_begin(&p->out, CS_CLOCKS);
	pp_pb_varint(&p->out, CLK_ID, CLOCK_REALTIME_ID);
	pp_pb_varint(&p->out, CLK_TIMESTAMP, real);
	pp_pb_end(&p->out);
	pp_pb_varint(&p->out, CS_PRIMARY_TRACE_CLOCK, CLOCK_BOOTTIME_ID);
	pp_pb_end(&p->out);
	pp_pb_end(&p->out);
}

static int perfetto_begin(struct ana_export *x)
{
	static const char *const switch_f[] = {
		"prev_comm", "prev_pid", "prev_prio", "prev_state",
		"next_comm", "next_pid", "next_prio",
	};
	static const char *const wake_f[] = { "comm", "pid", "prio", "success", "target_cpu" };
	struct perfetto_priv *p = x->priv;
	struct pp_az *az = x->az;

	p->sels = pp_xcalloc(az->nr_sels ? az->nr_sels : 1, sizeof(*p->sels));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_evtype *t = az->sels[i].type;
		struct sel_info *si = &p->sels[i];

		if (!strcmp(t->name, "sched:sched_switch")) {
			for (size_t k = 0; k < PP_ARRAY_SIZE(switch_f); k++)
				si->f[k] = ana_field_find(t, switch_f[k]);
			if (si->f[1] && si->f[5])
				si->kind = SK_SWITCH;
			continue;
		}
		if (!strcmp(t->name, "sched:sched_wakeup"))
			si->kind = SK_WAKEUP;
		else if (!strcmp(t->name, "sched:sched_wakeup_new"))
			si->kind = SK_WAKEUP_NEW;
		else if (!strcmp(t->name, "sched:sched_waking"))
			si->kind = SK_WAKING;
		for (size_t k = 0; si->kind && k < PP_ARRAY_SIZE(wake_f); k++)
			si->f[k] = ana_field_find(t, wake_f[k]);
		if (si->kind && !si->f[1])
			si->kind = SK_OTHER;
	}
	return 0;
}

static void perfetto_event(struct ana_export *x, const struct pp_event *ev)
{
	struct perfetto_priv *p = x->priv;
	const struct sel_info *si = ev->sel ? &p->sels[ev->sel->index] : NULL;

	if (!p->clock_done)
		clock_snapshot(x, p, ev->time_ns);
	if (si && si->kind != SK_OTHER)
		on_sched(x, p, si, ev);
	else
		on_other(x, p, ev);
	out_flush(x, p, 256u << 10);
}

static void perfetto_task_exit(struct ana_export *x, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct perfetto_priv *p = x->priv;

	free(pp_u64map_del(&p->threads, tid));
	if (pid == tid)
		pp_u64map_del(&p->procs, pid);
}

static int perfetto_end(struct ana_export *x)
{
	struct perfetto_priv *p = x->priv;

	tree_flush(p);
	for (uint32_t c = 0; c < MAX_CPUS; c++) {
		bundle_flush(p, c);
		out_flush(x, p, 256u << 10);
	}
	out_flush(x, p, 0);
	if (x->az->opt.verbose)
		pp_info("export: %llu ftrace events, %llu track events",
			(unsigned long long)p->nr_ftrace, (unsigned long long)p->nr_track);
	return x->errmsg[0] ? -EIO : 0;
}

static void perfetto_release(struct ana_export *x)
{
	struct perfetto_priv *p = x->priv;
	size_t it = 0;
	uint64_t k;
	void *v;

	while (pp_u64map_next(&p->threads, &it, &k, &v))
		free(v);
	pp_u64map_release(&p->threads);
	pp_u64map_release(&p->procs);
	for (uint32_t c = 0; c < MAX_CPUS; c++) {
		if (p->cpus[c])
			pp_pb_release(&p->cpus[c]->pb);
		free(p->cpus[c]);
	}
	pp_pb_release(&p->out);
	pp_pb_release(&p->tree);
	pp_buf_release(&p->tmp);
	free(p->sels);
}

const struct ana_export_ops ana_export_perfetto = {
	.name = "perfetto",
	.summary = "Perfetto protobuf trace: ftrace sched events, track events for the rest",
	.binary = true,
	.priv_size = sizeof(struct perfetto_priv),
	.begin = perfetto_begin,
	.event = perfetto_event,
	.task_exit = perfetto_task_exit,
	.end = perfetto_end,
	.release = perfetto_release,
};
