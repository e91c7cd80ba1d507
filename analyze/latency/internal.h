/* SPDX-License-Identifier: MIT */
/*
 * latency/internal.h - the parts of the two-event engine shared by its files.
 *
 * twoevent-setup.c   events, attributes, pairs, checks
 * twoevent.c         keys and roles per event, the backup, the timeline, losses
 * twoevent-detail.c  printing a pair with the events around it (--detail)
 * twoevent-delay.c   the delay, syscalls and pair implementations
 * twoevent-kmem.c    kmemprof
 * twoevent-call.c    nested-trace's call / call-delay
 * twoevent-state.c   the engine's mergeable state: its section (docs/state-format.md)
 * twoevent-edge.c    what a range leaves open at its edges, joined across ranges
 * Invariant: a node is in the backup (in_backup) or pending on the timeline
 * (pending) only while some later event may still need it; everything else
 * is reusable.  Not here: options of the analyzers (analyzers/).
 */
#ifndef PP_ANALYZE_LATENCY_INTERNAL_H
#define PP_ANALYZE_LATENCY_INTERNAL_H

#include <stdio.h>

#include "analyze/latency/latency.h"
#include "analyze/state/state.h"
#include "common/buf.h"
#include "common/detail.h"
#include "common/hist.h"
#include "common/u64map.h"

struct pp_expr;
struct pp_field;
struct pp_wire;

/* What --detail's same* tests know about an event type (perf-prof's tp_matchers). */
enum te_match {
	TE_M_DEFAULT,		/* fields "cpu" and "pid" if present */
	TE_M_WAKEUP,		/* sched_wakeup, sched_waking, sched_wakeup_new */
	TE_M_SWITCH,
	TE_M_MIGRATE,
	TE_M_PID,		/* sched_stat_runtime, sched_process_free/exit/exec: pid */
	TE_M_FORK,		/* parent_pid, child_pid */
};

/* One event of the engine: a selector match of an owned position. */
struct te_tp {
	const struct ana_sel *sel;
	unsigned idx, pos;
	const char *name;		/* alias or event name, for tables */
	bool untraced, trigger, stack;
	bool filtered;			/* has a filter (sched_wakeup logic) */
	char *key_text, *extra_filter_text;
	struct pp_expr *key, *role, *printkey, *size, *extra_filter;
	struct te_tp *entry;		/* nested: the entry event an exit event closes */
	const struct pp_field *f_target;	/* ana_te_tp_set_targets() */
	int *t_pids, *t_tids;
	size_t nr_t_pids, nr_t_tids;
	bool t_forks;			/* and the tasks they fork (--inherit) */
	char *target_field;
	/* matcher */
	enum te_match match;
	const struct pp_field *f_cpu, *f_pid, *f_pid2, *f_prev_state, *f_prev_comm;
	bool is_wakeup, is_switch;
};

/* A stored event: a copy of the delivered pp_event with its raw data and stack. */
struct te_node {
	struct pp_event ev;		/* raw and stack point into @buf */
	uint8_t *buf;
	uint32_t buf_cap;
	uint64_t key;
	uint64_t seq;			/* timeline position (--detail) */
	struct te_tp *tp;
	uint32_t ins;			/* CPU or thread of the event */
	unsigned unneeded : 1, need_find_prev : 1, need_backup : 1, need_remove : 1,
		 in_backup : 1, pending : 1, on_timeline : 1,
		 hkind : 2;		/* in a head: enum te_hkind */
	struct te_node *bnext;		/* older node of the same key (nested stacks) */
	struct te_node *nprev, *nnext;	/* backups in time order (--detail trimming) */
	struct te_node *free_next;
};

/* A two-event object: (tp1, tp2), or (tp1, NULL) for what is left unmatched. */
struct te_pair {
	unsigned id;
	struct te_tp *tp1, *tp2;
	FILE *heatmap;
	uint64_t paired, unpaired;	/* pair */
	void *impl;			/* kmemprof / call state */
};

/*
 * One row of a latency table: (instance, pair id or syscall nr).  The first
 * TE_LAT_EXACT values are kept as they are, so that small rows get exact
 * percentiles; past that they go into a bounded histogram (0.4 %).
 */
#define TE_LAT_EXACT 64
struct te_lat {
	uint64_t ins, id;
	uint64_t n, sum, min, max, than, err;
	bool has_hist, in_hist;
	uint64_t exact[TE_LAT_EXACT];
	struct pp_hist hist;
};

/* The events around a pair, for --detail: a window of the timeline. */
struct te_iter {
	uint64_t start, e1, e2;		/* timeline seqs; e2 == UINT64_MAX when none */
	int recent_cpu;
};

struct te_slab {
	struct te_slab *next;
	struct te_node nodes[];
};

struct ana_te;

struct te_impl_ops {
	const char *name;
	/*
	 * The implementation's aggregate as mergeable state (twoevent-state.c): both
	 * or neither; an implementation without them refuses --state-out.
	 */
	void (*state_write)(struct ana_te *te, struct pp_buf *out);
	int (*state_read)(struct ana_te *te, struct pp_wire *in);
	bool call_based;		/* find pairs by tp1 only */
	int (*init)(struct ana_te *te);
	void (*two)(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		    struct te_iter *it);
	/* An event1 left unmatched; false stops the walk over the backups. */
	bool (*remaining)(struct ana_te *te, struct te_pair *p, struct te_node *e1, int reason,
			  struct te_iter *it);
	void (*print)(struct ana_te *te, uint64_t now_ns);
	void (*release)(struct ana_te *te);
};

enum te_reason { TE_RR_EXIT, TE_RR_LOST, TE_RR_RECLAIM };

/*
 * A key's first events in a range while they depend on what the range before
 * left open under the key (its head): the events that looked for a backup and
 * found none in the range.  Closed (no later event looks past the range's own
 * backups) by a backup of a one-backup-per-key engine or such an event
 * (TE_HEAD_CLOSED), or by a loss or a reclaim that drops the key's backups.
 */
enum te_head_state { TE_HEAD_OPEN, TE_HEAD_CLOSED, TE_HEAD_LOST, TE_HEAD_RECLAIM };

struct te_head {
	uint8_t state;			/* enum te_head_state */
	uint64_t time_ns;		/* of the loss or reclaim */
	struct te_node **ev;		/* copies, in time order */
	size_t nr, cap;
};

/*
 * One capture range's edges (twoevent-edge.c): the heads of its keys, and the
 * backups left at its end (its tails: key -> newest node, older ones on bnext).
 * A replay with --state-out notes its heads in te->rec (its tails are te->backup);
 * a state read keeps one per source.
 */
struct te_edge {
	bool lost;			/* a loss dropped every backup at lost_ns */
	uint64_t lost_ns;
	struct pp_lost_ev *losses;	/* every loss, in time order: the lines a replay prints */
	size_t nr_losses, cap_losses;
	uint64_t recent_ns;		/* the engine's last time in the range */
	struct pp_u64map heads;		/* key -> struct te_head */
	struct pp_u64map tails;		/* key -> struct te_node */
	uint32_t *running;		/* per CPU at the range's end: its task, or TE_NO_PID */
	uint32_t nr_running;
};

/*
 * sched_wakeup "unnecessary" (level 2) asks which task runs on the target CPU: a
 * range that has seen no switch there yet does not know, the range before does.
 * Such a wakeup, while its key's head is open and the range has had no loss, is
 * noted in the head (TE_HK_COND) instead of backed up; a join decides it with the
 * earlier range's running task, and a report (no range before) backs it up, as a
 * replay that starts there does.  What the earlier range cannot decide either goes
 * on with the rest of the head into the joined one, after what the earlier range
 * left under the key (TE_HK_SET: its backup, TE_HK_CLEAR: none, a NULL entry).
 */
#define TE_NO_PID UINT32_MAX

/* A head's entries: events that looked back, undecided wakeups, what a range left. */
enum te_hkind { TE_HK_LOOK, TE_HK_COND, TE_HK_SET, TE_HK_CLEAR };

struct ana_te {
	struct pp_az *az;
	struct ana_session *s;
	struct ana_te_config cfg;
	const struct te_impl_ops *impl;
	enum ana_te_impl impl_id;
	FILE *fp;
	bool text;			/* --format text */

	/* options */
	struct pp_detail detail;
	uint64_t than_ns, lower_ns;
	bool only_than;
	bool perins;
	bool thread_mode;		/* instances are threads (-p/-t) */
	const char *keyname;		/* first key expression, "CPU" or "THREAD" */
	int keylen;
	bool keyed;			/* some event has a key expression */
	bool comm;			/* print a comm column after the key */
	struct pp_expr *printkey;	/* the first printkey= */

	/* events and pairs */
	struct te_tp *tps;
	unsigned nr_tps;
	int *tp_of_sel;			/* az->sels index -> tp index, -1 */
	unsigned nr_pos;
	struct te_pair **pairs;		/* in creation order = print order */
	unsigned nr_pairs;
	struct te_pair **pair_tab;	/* [tp1 * (nr_tps + 1) + tp2 + 1] */
	int max_len1, max_len2;

	/* sched_wakeup "unnecessary" detection (level 1: waker == wakee, 2: + running) */
	int sched_level;
	uint32_t *running;		/* per CPU: pid running (level 2) */
	uint32_t nr_running;
	uint64_t wakeup_unnecessary;
	uint64_t preempt_state;		/* prev_state when preempted: 0x100 since 4.14 (schedstate.c) */

	/* state */
	struct pp_u64map backup;	/* key -> newest struct te_node */
	uint64_t nr_backup;
	struct te_node *needed_head, *needed_tail;	/* backups in time order */
	struct te_node *pool;		/* free nodes, buffers kept */
	struct te_slab *slabs;		/* where every node lives */
	uint64_t nr_nodes;		/* allocated */
	struct te_node **tl;		/* timeline ring (--detail) */
	uint64_t tl_cap, tl_head, tl_nr;	/* ring index of seq tl_head_seq */
	uint64_t tl_head_seq, tl_next_seq;
	uint64_t pend_seq;		/* next timeline seq to process */
	uint64_t recent_ns;

	/* latency tables (delay, syscalls, call-delay): ins -> (id -> te_lat) */
	struct pp_u64map lat;
	uint64_t nr_lat;

	/* mergeable state (twoevent-state.c, twoevent-edge.c) */
	struct te_edge *rec;		/* --state-out: the range's heads */
	struct ana_edges edges;		/* a state read: per source id, a struct te_edge */

	struct pp_buf line;		/* JSON object being built */
	struct pp_buf scratch;		/* one trace line */
	bool json_open;			/* a {"slow":...} object is being built in @line */
	void *impl_priv;
};

/* twoevent.c */
/* The end of the events: what is left unmatched is handed to the implementation (finish). */
void ana_te_settle(struct ana_te *te);
struct te_pair *ana_te_pair_find(struct ana_te *te, struct te_tp *tp1, struct te_tp *tp2);
void ana_te_node_put(struct ana_te *te, struct te_node *n);
struct te_node *ana_te_node_get(struct ana_te *te);
void ana_te_node_copy(struct te_node *n, const struct pp_event *ev);
/* A pool node holding a copy of @cur's event, key, tp and instance (no flags). */
struct te_node *ana_te_node_dup(struct ana_te *te, const struct te_node *cur);
/* ->remaining() of the pair of unmatched @left. Return: false stops a walk. */
bool ana_te_remaining(struct ana_te *te, struct te_node *left, int reason);
struct te_node *ana_te_tl_at(struct ana_te *te, uint64_t seq);
bool ana_te_tl_valid(struct ana_te *te, uint64_t seq);
uint64_t ana_te_tl_first_at(struct ana_te *te, uint64_t time_ns);
const char *ana_te_unit(struct ana_te *te);
void ana_te_print_time_line(struct ana_te *te, uint64_t now_ns);
/* The line a loss prints (text): "TIME NAME: lost N events on CPU #C". */
void ana_te_print_lost(struct ana_te *te, const struct pp_lost_ev *l);

/* twoevent-detail.c */
void ana_te_print_event(struct ana_te *te, const struct te_node *n, const char *title);
void ana_te_print_pair(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		   uint64_t delta, struct te_iter *it);
void ana_te_print_unfinished(struct ana_te *te, struct te_pair *p, struct te_node *e1, uint64_t delta,
			 struct te_iter *it);

/* twoevent-edge.c: noting a --state-out replay's heads (no-ops without te->rec) */
void ana_te_edge_miss(struct ana_te *te, const struct te_node *cur);
void ana_te_edge_backup(struct ana_te *te, uint64_t key);
/* A wakeup whose target CPU's task the range does not know: true when noted in its head. */
bool ana_te_edge_defer(struct ana_te *te, const struct te_node *cur);
/* @e's running tasks: a copy of @nr of @running (TE_NO_PID: unknown). */
void ana_te_edge_set_running(struct te_edge *e, const uint32_t *running, uint32_t nr);
void ana_te_edge_close(struct ana_te *te, uint64_t key, enum te_head_state why, uint64_t time_ns);
void ana_te_edge_lost(struct ana_te *te, uint64_t time_ns);
void ana_te_edge_loss(struct ana_te *te, const struct pp_lost_ev *l);
/* ... and the edges as state */
struct te_edge *ana_te_edge_new(void);
void ana_te_edge_free(struct ana_te *te, struct te_edge *e);
void ana_te_edge_put(struct ana_te *te, struct pp_buf *out, const struct te_edge *e,
		     const struct pp_u64map *tails);
int ana_te_edge_read(struct ana_te *te, struct pp_wire *in, struct te_edge *e);
void ana_te_edge_join(struct ana_te *te, struct te_edge *a, struct te_edge *b);
/* Every event of @e's heads and of @tails, in no particular order. */
void ana_te_edge_nodes(struct ana_te *te, const struct te_edge *e, const struct pp_u64map *tails,
		       void (*fn)(struct ana_te *te, const struct te_node *n, void *arg), void *arg);
/* At a report of states: each source's tails left unmatched at its end, as a replay's finish. */
void ana_te_edge_settle(struct ana_te *te);

/* twoevent-state.c */
/* --state-out, or a state read: the engine keeps its ranges' edges. */
bool ana_te_stateful(const struct ana_te *te);
/* Free the edges of a state read (te->edges). */
void ana_te_edges_release(struct ana_te *te);
/* Every event the engine's state_write() writes in its edges (after the aggregate). */
void ana_te_state_nodes(struct ana_te *te,
			void (*fn)(struct ana_te *te, const struct te_node *n, void *arg), void *arg);
void ana_te_lat_state_write(struct ana_te *te, struct pp_buf *out);
int ana_te_lat_state_read(struct ana_te *te, struct pp_wire *in);
void ana_te_pair_state_write(struct ana_te *te, struct pp_buf *out);
int ana_te_pair_state_read(struct ana_te *te, struct pp_wire *in);

/* twoevent-delay.c */
/* The row (@ins, @id) of te->lat, made empty (min UINT64_MAX) when new. */
struct te_lat *ana_te_lat_get(struct ana_te *te, uint64_t ins, uint64_t id, bool hist);
struct te_lat *ana_te_lat_input(struct ana_te *te, uint64_t ins, uint64_t id, uint64_t v, bool hist);
struct te_lat **ana_te_lat_collect(struct ana_te *te, size_t *nr, bool sorted);
uint64_t ana_te_lat_pct(struct te_lat *l, double p);
void ana_te_lat_reset(struct ana_te *te);
extern const struct te_impl_ops ana_te_delay_ops, ana_te_syscalls_ops, ana_te_pair_ops;

/* twoevent-kmem.c, twoevent-call.c */
extern const struct te_impl_ops ana_te_kmemprof_ops, ana_te_call_ops, ana_te_call_delay_ops;

#endif
