/* SPDX-License-Identifier: MIT */
/*
 * task-state-internal.h - what task-state.c (the state machine and the report) and
 * task-state-merge.c (its mergeable state) share: the analyzer's types and the
 * state machine's steps, which replay a range's heads.  Not for the plan part
 * (task-state.h is).
 */
#ifndef PP_AZ_TASK_STATE_INTERNAL_H
#define PP_AZ_TASK_STATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hist.h"
#include "common/stackmap.h"
#include "common/u64map.h"

struct pp_az;
struct pp_event;
struct pp_flame;
struct pp_flame_node;
struct pp_wire;
struct ts_saved;
struct ts_sel;

/* Report keys, in the order rows are printed. */
enum ts_key { TS_R, TS_S, TS_D, TS_T, TS_TT, TS_I, TS_RD, TS__NR };

#define ST_RUNNING 0x00
#define ST_S 0x01
#define ST_D 0x02
#define ST_T 0x04
#define ST_TT 0x08
#define ST_I 0x80		/* TASK_REPORT_IDLE, kernels >= 4.14 */

struct ts_task {
	bool known;			/* a state and time are set */
	bool oncpu;			/* switched in, not yet out */
	uint64_t state;			/* prev_state bits, ST_RUNNING for R */
	uint64_t time_ns;		/* when the state began */
	struct pp_flame_node *leaf;	/* where it went off the CPU (--flame-graph) */
	struct ts_saved *saved;
};

struct ts_stat {
	uint32_t tid;
	enum ts_key key;
	struct pp_hist h;
};

/* --- State edges (see the top): what a range leaves open at its ends. --- */

enum ts_hkind { TSH_OUT, TSH_IN, TSH_WAKEUP, TSH_WAKEUP_NEW, TSH_DROP, TSH__NR };

struct ts_hev {
	uint8_t kind;			/* enum ts_hkind */
	uint64_t time_ns;
	uint64_t prev_state;		/* TSH_OUT: prev_state as the event gave it */
};

/* A task's first events in a range, while their stays depend on its state before. */
struct ts_head {
	bool closed;			/* an event made the task's state the range's own */
	struct ts_hev *ev;
	size_t nr, cap;
};

/* A task's state at the end of a range (a task not known then has none). */
struct ts_tail {
	bool oncpu;
	uint64_t state, time_ns;
};

struct ts_edge {
	bool lost;			/* a loss in the range forgot every state before it */
	struct pp_u64map heads;		/* tid -> struct ts_head */
	struct pp_u64map tails;		/* tid -> struct ts_tail (a replay's are its tasks) */
};

struct ts_priv {
	bool rec;			/* --state-out: heads are noted, their stays wait */
	bool mute;			/* the event is a head's: no stay recorded now */
	struct pp_u64map edges;		/* source id -> struct ts_edge */
	struct pp_u64map tasks;		/* tid -> struct ts_task */
	struct pp_u64map stat_map;	/* (tid << 8 | key) -> struct ts_stat */
	struct ts_stat **stats;
	size_t nr_stats, cap_stats;
	struct ts_sel *sels;
	uint64_t report_max;		/* prev_state of a preempted task */
	uint64_t dead;			/* prev_state bits of an exiting task */
	uint64_t report;		/* sleep states measured */
	uint64_t sd_mask;		/* -S/-D: the switch-outs followed */
	bool sd, filtering;
	char **comms;			/* --filter comm globs */
	size_t nr_comms;
	struct pp_flame *flame;
	struct pp_stackmap stacks;	/* (task, stack) -> flame node */
	struct pp_buf line;
	uint64_t nr_stays;
};

/* task-state.c: tasks, stays and the state machine */
/** az_task_state_task_get() - @tid's task, made unknown when @create. Return: borrowed, or NULL. */
struct ts_task *az_task_state_task_get(struct ts_priv *p, uint32_t tid, bool create);
/** az_task_state_task_drop() - forget @tid's task. */
void az_task_state_task_drop(struct ts_priv *p, uint32_t tid);
/** az_task_state_stat_get() - the row of (@ins, @key), made empty. Return: borrowed. */
struct ts_stat *az_task_state_stat_get(struct ts_priv *p, uint32_t ins, enum ts_key key);
/** az_task_state_cmp_stat() - qsort() order of struct ts_stat pointers, as rows print. */
int az_task_state_cmp_stat(const void *a, const void *b);
/* The state machine's steps (a switch-out with its prev_state, a wakeup, a switch-in). */
void az_task_state_switch_out(struct pp_az *az, const struct pp_event *ev, uint32_t tid,
			      uint64_t prev_state);
void az_task_state_wakeup(struct pp_az *az, const struct pp_event *ev, uint32_t tid, bool is_new);
void az_task_state_switch_in(struct pp_az *az, const struct pp_event *ev, uint32_t tid);

/* task-state-merge.c: a range's edges */
/** az_task_state_edge_get() - the edge of source @id (0: the replay's), made empty. */
struct ts_edge *az_task_state_edge_get(struct ts_priv *p, unsigned id);
/** az_task_state_edge_free() - free @e (NULL: nothing). */
void az_task_state_edge_free(struct ts_edge *e);
/**
 * az_task_state_head_note() - with --state-out, note @tid's event of @kind in its head
 * Return: the event is the head's (its stays wait for the head's replay).
 */
bool az_task_state_head_note(struct pp_az *az, uint32_t tid, enum ts_hkind kind, uint64_t t,
			     uint64_t prev_state);
/** az_task_state_resolve_heads() - before a report of states: every head from nothing. */
void az_task_state_resolve_heads(struct pp_az *az);
/* ... and the state hooks (struct pp_analyzer_ops) */
int az_task_state_state_write(struct pp_az *az, struct pp_buf *out);
int az_task_state_state_read(struct pp_az *az, struct pp_wire *in);
void az_task_state_state_join(struct pp_az *az, unsigned a_id, unsigned b_id);

#endif
