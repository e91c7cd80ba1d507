/* SPDX-License-Identifier: MIT */
/*
 * analyzer.h - the interface between the replay core and the analyzers.
 *
 * The only header an analyzer includes besides common/.  An analyzer is one
 * const struct pp_analyzer_ops in analyzers/<name>.c, listed in
 * analyzers/analyzers.def.  The core parses the analyzer's options, matches
 * its -e selectors against the capture's events, evaluates filters, and
 * calls ->event() for every matching event in time order, ->interval() on
 * capture-time ticks, and ->finish() at the end.  Events are borrowed for
 * the duration of the callback only.
 */
#ifndef PP_ANALYZE_ANALYZER_H
#define PP_ANALYZE_ANALYZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/options.h"
#include "common/plan.h"
#include "common/selector.h"

struct ana_session;
struct pp_az;
struct pp_plan;
struct tep_event;
struct pp_expr;
struct pp_field;
struct ana_perfeval;
struct ana_az_state;
struct pp_wire;

enum ana_format { ANA_FMT_TEXT, ANA_FMT_JSON, ANA_FMT_CSV };

/*
 * Where an analyzer writes: -o FILE or stdout, in the --format chosen.  @fp is
 * a net over the real stream (common/quote.h): everything written to stdout,
 * and a text report to a file, shows the control bytes and the bytes that are
 * not UTF-8 a capture's strings may hold as \xHH, never raw.  A JSON or CSV
 * file (-o) is written as is, exact in its own escaping.
 */
struct ana_out {
	FILE *fp;
	enum ana_format format;
	FILE *raw;			/* the real stream under @fp: stdout or the -o file */
	bool tty;			/* @raw is a terminal */
};

/**
 * ana_out_raw() - the real stream under @o->fp, for bytes that must pass unchanged
 * (a binary export); text written there must be escaped by its writer.
 * Return: borrowed, stdout or the -o file.
 */
FILE *ana_out_raw(const struct ana_out *o);

/** ana_out_tty() - whether the report goes to a terminal (isatty() of the real stream). */
bool ana_out_tty(const struct ana_out *o);

/*
 * An analyzer's own highlight (perf-prof's red --than counts): text between
 * ANA_HL_ON and ANA_HL_OFF given to ana_out_puts() is bold red on a terminal.
 * The net escapes every ESC a capture holds, so the colour sequences go to the
 * real stream past it; elsewhere the two bytes are dropped.
 */
#define ANA_HL_ON "\001"
#define ANA_HL_OFF "\002"

/** ana_out_puts() - fputs(@s, @o->fp), ANA_HL_ON/ANA_HL_OFF made colours on a terminal. */
void ana_out_puts(struct ana_out *o, const char *s);

/* One event type of the capture. */
struct ana_evtype {
	uint32_t id;			/* the capture's event id */
	uint32_t kind;			/* enum ppf_event_kind */
	uint32_t desc_flags;		/* enum ppf_event_desc_flags */
	char *name;			/* "sched:sched_switch" or "cpu-clock" */
	char *sys, *event;		/* "sched", "sched_switch" (sys NULL for non-tracepoints) */
	char *selector;			/* as recorded */
	char *filter;			/* recorded filter text ("" if none) */
	struct tep_event *tep;		/* NULL for non-tracepoints */
	struct pp_field *fields;	/* for the expression engine */
	size_t nr_fields;
	uint64_t count;			/* events of this type seen so far */
	struct pp_expr *rec_filter;	/* the recorded filter the kernel refused, applied here */
	const void *attr;		/* struct perf_event_attr as opened (attr_sz bytes), or NULL */
	uint32_t attr_sz;
};

/*
 * One match of an analyzer's selector against an event type.  An event
 * type matched by several selectors of one analyzer (rundelay: sched_switch
 * in two positions) is delivered once per match.
 */
struct ana_sel {
	const struct ana_evtype *type;
	const struct pp_selector *sel;	/* the -e item that matched */
	unsigned pos;			/* which -e (0-based): multi-trace positions */
	unsigned index;			/* global index among this analyzer's matches */
	const char *alias;		/* alias= or the event name */
	struct pp_expr *filter;		/* user-space filter, or NULL */
	int *cpus;			/* cpus=LIST (counter readings are checked against it), or NULL */
	bool source;			/* an analyzer named as an event ('profile/-F 99/'): its events */
	size_t nr_cpus;
	void *priv;			/* the analyzer's per-match state */
};

/*
 * A counter reading (a COUNTER record of the capture), as a pp_event carries
 * it to analyzers with PP_AZ_COUNTERS.  The d_ fields are the differences from
 * the previous reading of the same (event, cpu, thread) in this replay: the
 * count of the period that ends at the event's time.  The first reading of a
 * key counts from the counters' enable (the recording's start).
 */
struct pp_count {
	uint64_t value, enabled, running;	/* cumulative */
	uint64_t d_value, d_enabled, d_running;	/* this period */
	bool first;			/* the first reading of its key */
};

/* A decoded event as analyzers see it.  Borrowed for the callback only. */
struct pp_event {
	uint64_t time_ns;
	uint32_t cpu, pid, tid;
	uint64_t period, ip, addr;
	uint32_t flags;			/* PPF_SF_* (LATE) */
	const struct ana_evtype *type;
	const struct ana_sel *sel;	/* the match this delivery is for */
	const uint8_t *raw;
	uint32_t raw_sz;
	const uint64_t *stack;		/* perf callchain with context markers */
	uint32_t nr_stack;
	const uint8_t *extra;
	uint32_t extra_sz;
	/*
	 * A counter reading, delivered only to analyzers with PP_AZ_COUNTERS
	 * (NULL for samples): cpu or tid is UINT32_MAX for "every", pid is the
	 * tid's process, and period is count->d_value, the count of the period.
	 */
	const struct pp_count *count;
};

/* A mapping of the capture (MMAP record or start-of-capture snapshot), delivered to ->mmap(). */
struct pp_mmap_ev {
	uint64_t time_ns;		/* 0 for the snapshot */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	const char *path;
	const uint8_t *build_id;
	uint32_t build_id_sz;
};

/* A loss in the capture, delivered to ->lost() in time order. */
struct pp_lost_ev {
	uint64_t time_ns;
	uint32_t cpu;
	uint64_t count;
};

/*
 * A side-band record the capture kept raw (PPF_REC_SIDEBAND): ksymbol,
 * bpf_event, cgroup, text_poke ...  Borrowed for the callback only.
 */
struct pp_sideband_ev {
	uint64_t time_ns;
	uint32_t cpu;
	uint32_t type;			/* PERF_RECORD_* */
	const uint8_t *data;		/* the perf record after its header, sample_id trailer removed */
	uint32_t size;
	uint32_t pid, tid;		/* the thread that caused it; UINT32_MAX: not recorded */
};

enum pp_az_flags {
	PP_AZ_NEED_EVENTS = 1 << 0,	/* -e is required */
	PP_AZ_ALL_EVENTS = 1 << 1,	/* no -e means every event of the capture */
	PP_AZ_NO_EVENTS = 1 << 2,	/* does not take -e (uses built-in events) */
	/*
	 * -p/-t are not applied to the events: the analyzer matches tasks itself
	 * (a sched_switch concerns two tasks, its pid field only the previous one).
	 */
	PP_AZ_OWN_TASK_FILTER = 1 << 3,
	/*
	 * set_events() is called even when -e is given: it puts the analyzer's
	 * own events in the list, the -e events being extra ones (kvmmmu -e).
	 */
	PP_AZ_EXTRA_EVENTS = 1 << 4,
	/*
	 * Counter readings of matched events reach ->event() too (ev->count set,
	 * ev->period = the count of the period): stat, hrcount, percpu-stat ...
	 */
	PP_AZ_COUNTERS = 1 << 5,
	/*
	 * The state of a range holds nothing open at the range's ends (every event
	 * counts alone: top, num-dist), so the states of adjacent ranges add up to one
	 * replay's without a state_join.  pp-analyze -j N cuts a capture into parts
	 * for analyzers that have this flag or a state_join (parallel.c).
	 */
	PP_AZ_STATE_CUT = 1 << 6,
	/*
	 * Its state_write() may refuse what a range met (kmemleak: a loss, which
	 * reports early; split-lock: samples): pp-analyze -j N, which learns that
	 * only after the parts' replays, runs it in one pass.
	 */
	PP_AZ_STATE_MAY_REFUSE = 1 << 7,
};

/*
 * What an analyzer does: analyzers/<name>.c defines one const az_<c_name>_ops.
 * Its name, its plan (options, what to record) and its capabilities are in its
 * line of analyzers/analyzers.def, not here.  init, event and finish are
 * required; every other hook may be NULL.
 */
struct pp_analyzer_ops {
	const char *summary;		/* one line for `pp-analyze help` */
	const char *usage;		/* "pp-analyze FILE top -e EVENT[/key=EXPR/...] [-i MS]" */
	const char *examples;		/* lines shown under EXAMPLES in --help */
	/*
	 * Attributes offered by `ANALYZER -e EVENT help` in its command template,
	 * "num=./alias=./" ('.' is a value to fill in); NULL: "[stack/]".
	 */
	const char *help_attrs;
	/*
	 * `ANALYZER -e EVENT help` printing something of its own instead of the
	 * formats and the command template (python prints a script template);
	 * called after the selectors matched, before init().  Optional.
	 */
	int (*help)(struct pp_az *az);
	/*
	 * The --debug-dir of the inline frames the instance will show, as its options
	 * stand ("" when none was given), or NULL when it shows none: asked as soon as the
	 * capture is open, so that a thread opens the binaries' DWARF while the metadata is
	 * read (analyze/inlprefetch.c).  Optional.
	 */
	const char *(*inline_dir)(const struct pp_az *az);
	size_t priv_size;
	unsigned flags;			/* enum pp_az_flags */
	/*
	 * Built-in events: with PP_AZ_NO_EVENTS the analyzer names here the
	 * selectors it needs (NULL-terminated), e.g. { "sched:sched_switch", NULL };
	 * set_events() may compute them from the options instead.
	 */
	const char *const *builtin_events;
	int (*set_events)(struct pp_az *az, struct pp_strlist *events);
	int (*init)(struct pp_az *az);			/* required: after selectors matched */
	void (*event)(struct pp_az *az, const struct pp_event *ev);	/* required */
	void (*lost)(struct pp_az *az, const struct pp_lost_ev *l);
	void (*task_exit)(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns);
	void (*sideband)(struct pp_az *az, const struct pp_sideband_ev *sb);	/* in time order */
	/* Every mapping; the start-of-capture snapshot arrives before init() (priv is zeroed). */
	void (*mmap)(struct pp_az *az, const struct pp_mmap_ev *m);
	void (*interval)(struct pp_az *az, uint64_t now_ns);
	int (*finish)(struct pp_az *az);		/* required */
	void (*release)(struct pp_az *az);
	/* Write out what the analyzer batched: the core prints into its stream (perfeval). */
	void (*flush)(struct pp_az *az);
	/* SIGUSR2: the analyzer's own statistics, each line indented by @indent (perf-prof's). */
	void (*print_stat)(struct pp_az *az, int indent);
	/*
	 * Mergeable state (docs/state-format.md): optional, for analyzers with
	 * PP_AZC_MERGE; state_write and state_read come together, with a
	 * state_version >= 1 that changes whenever their section's layout does.
	 * state_write: append the analyzer's section to @out: what ->finish() would
	 *   report, as data.  Called in place of ->finish() after the replay of a
	 *   range (--state-out; ana_state_recording() was true all along), and after
	 *   a merge.  Return: 0 or a negative code; PP_EUSAGE after printing why
	 *   (one line: what in the range a state cannot hold).
	 * state_read: add one state's section to the instance (after ->init() on a
	 *   session made from the states' context): what the replay of that state's
	 *   range would have added.  Adding is commutative and exact.  Return: 0, or
	 *   pp_wire_fail()'s code for a section that does not hold together.
	 * state_join: sources @before and @after (ids, ana_state_sources()) are
	 *   adjacent ranges of one capture: complete what crossed the boundary
	 *   (optional: analyzers with nothing open at a range's end have nothing to do).
	 * After the reads and joins, ->finish() prints the report, as after a replay.
	 */
	unsigned state_version;
	int (*state_write)(struct pp_az *az, struct pp_buf *out);
	int (*state_read)(struct pp_az *az, struct pp_wire *in);
	void (*state_join)(struct pp_az *az, unsigned before, unsigned after);
};

/*
 * One line of analyzers/analyzers.def: what the registry knows of an analyzer
 * (analyze/registry.c).  Static, checked by ana_analyzer_check().
 */
struct pp_analyzer {
	const char *name;		/* CLI name: "task-state" */
	const char *c_name;		/* "task_state": az_<c_name>_ops */
	unsigned caps;			/* enum pp_az_caps */
	const struct pp_plan_ops *plan;	/* its options and what to record (pp_plan_none: none) */
	const struct pp_analyzer_ops *ops;
};

/* An analyzer instance (one per occurrence on the command line). */
/* What names a frame of a stack: its symbol, its binary and symbol, or its binary. */
enum ana_frame_key { ANA_FRAME_SYM, ANA_FRAME_DSO_SYM, ANA_FRAME_DSO };

struct pp_az {
	const struct pp_analyzer *an;	/* its line of the registry */
	const char *name;		/* an->name */
	const struct pp_plan_ops *plan;	/* an->plan */
	/*
	 * an->ops with a no-op in each optional hook left NULL (lost, task_exit,
	 * sideband, mmap, interval, release, flush, print_stat, state_write,
	 * state_read, state_join), so that they are called unchecked; points
	 * at @hooks (ana_az_bind(), analyze/hooks.c).
	 */
	const struct pp_analyzer_ops *ops;
	struct pp_analyzer_ops hooks;
	/*
	 * The engine instance this analyzer runs on, set by the engine's
	 * constructor (ana_te_new(), ana_cnt_new(), ...): the engine's ready-made
	 * callbacks find it here, whatever the analyzer's private struct holds.
	 */
	void *engine;
	struct ana_session *s;
	struct pp_common_opts opt;		/* the common options as given to this instance */
	/*
	 * The analyzer's state: ops->priv_size bytes, zeroed before init(), freed
	 * after release().  priv_size is sizeof the analyzer's struct and one
	 * typed accessor reads it, e.g.
	 *	static struct sl_priv *sl(struct pp_az *az) { return az->priv; }
	 * release() frees what the struct owns, not the struct (it may follow a
	 * failed init(): every field zero).  Ready-made hooks that keep state of
	 * their own (count.h's ana_hwtab, mem.h's ana_ldlat) declare its struct
	 * in their engine's header for the analyzer's priv_size.
	 */
	void *priv;
	void *opts;			/* plan->opts_size bytes: the analyzer's own options, parsed */
	const char **args;		/* positional arguments left after options */
	int nr_args;
	struct ana_sel *sels;		/* the matches of its -e selectors */
	size_t nr_sels;
	void *sel_store;		/* the parsed selectors (core-owned) */
	size_t nr_sel_store;
	uint64_t next_tick_ns;		/* next -i tick on capture time (core-owned) */
	int *cpus, *pids, *tids;	/* -C -p -t parsed (core-owned) */
	size_t nr_cpus, nr_pids, nr_tids;
	struct ana_out out;
	int exit_status;		/* set non-zero by ->finish() to make pp-analyze fail */
	uint64_t nr_delivered;		/* events delivered so far (-N) */
	struct pp_inl *inl;		/* set by the analyzer: ana_stack_node() expands inlines */
	enum ana_frame_key frame_key;	/* set by the analyzer: ana_stack_node()'s frame names */
	uint64_t lost_noted, corrupt_noted;	/* told on stderr in json/csv (core-owned) */
	struct ana_perfeval *perfeval;	/* --perfeval-cpus/-pids, or NULL (core-owned) */
	struct ana_az_state *state;	/* --state-out, merge, report; or NULL (core-owned) */
};

/* --- Services of the core for analyzers ----------------------------------- */

/**
 * ana_comm() - the command name of @tid at the current replay time
 * Return: "<idle>" for 0, "<...>" if never seen; borrowed.
 */
const char *ana_comm(struct ana_session *s, uint32_t tid);
/**
 * ana_comm_id() - ana_comm(), and in *@id a number that stands for the name's text: two
 * calls that give the same id gave the same text (different ids may still be the same text).
 * It lets an analyzer that keeps names compare a number per event instead of a string.
 */
const char *ana_comm_id(struct ana_session *s, uint32_t tid, uint64_t *id);
/** ana_task_pid() - the process id of thread @tid (@tid itself if unknown). */
uint32_t ana_task_pid(struct ana_session *s, uint32_t tid);

/* A task as the session knows it at the current replay time. */
struct ana_task_info {
	uint32_t pid, tid, ppid;	/* ppid 0 when unknown */
	const char *comm;		/* "" when never named; borrowed until the next replay step */
	uint64_t exit_ns;		/* 0 while alive */
};

/**
 * ana_task_forked_by() - whether @tid was forked in the capture, directly or by tasks
 * forked in turn, by a thread of one of @pids or by one of @tids (sorted lists, as
 * pp_parse_list() gives): what --inherit adds to -p and -t.  A task there at the start
 * was forked by none.
 */
bool ana_task_forked_by(struct ana_session *s, uint32_t tid, const int *pids, size_t nr_pids,
			const int *tids, size_t nr_tids);
/** ana_task_get() - what the session knows of @tid. Return: false if it never saw it. */
bool ana_task_get(struct ana_session *s, uint32_t tid, struct ana_task_info *out);
/**
 * ana_task_next() - iterate over every task the session knows, in no particular order
 * @iter: start at 0
 * Return: false at the end.
 */
bool ana_task_next(struct ana_session *s, size_t *iter, struct ana_task_info *out);

/* What ana_time_str() gives for a time whose wall clock does not fit (near 2^64 ns). */
#define ANA_TIME_OUT_OF_RANGE "(out of range)"

/**
 * ana_time_str() - wall-clock time of capture time @t_ns: "YYYY-MM-DD HH:MM:SS.uuuuuu",
 * ANA_TIME_OUT_OF_RANGE when it would not fit in 64-bit nanoseconds (never a wrapped
 * date), capture time "sec.usec" when the capture has no clock mapping
 * Return: @buf (at least 32 bytes).
 */
char *ana_time_str(struct ana_session *s, uint64_t t_ns, char *buf, size_t sz);

/** ana_ts_str() - perf-style "sec.usec" of @t_ns. Return: @buf. */
char *ana_ts_str(uint64_t t_ns, char *buf, size_t sz);

/**
 * ana_event_print() - perf-prof's trace line for @ev, without newline:
 * "<wall time> <comm> <pid> <flags> [cpu] sec.usec: sys:name: <print fmt>"
 */
void ana_event_print(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

/* What ana_json_head() writes after "time" and "cpu". */
enum ana_json_head_flags {
	ANA_JSON_TASK = 1 << 0,		/* "pid" and "tid" */
	ANA_JSON_COMM = 1 << 1,		/* "comm" of the tid at the current replay time */
};

/**
 * ana_json_head() - the start every JSON line of an event shares, appended to @out:
 * {"time":sec.usec,"cpu":N[,"pid":N,"tid":N][,"comm":"..."] - without the closing brace
 * @what: enum ana_json_head_flags
 */
void ana_json_head(struct ana_session *s, uint64_t time_ns, uint32_t cpu, uint32_t pid,
		   uint32_t tid, unsigned what, struct pp_buf *out);

/** ana_json_event_head() - ana_json_head() of @ev with its task and comm. */
void ana_json_event_head(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

/**
 * ana_event_fields() - the event's print_fmt output only, as libtraceevent prints it
 * (through a compiled form of the format where possible, see ana_print_generic()).
 */
void ana_event_fields(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

/** ana_print_generic() - print every event with libtraceevent itself (tests, debugging). */
void ana_print_generic(struct ana_session *s, bool on);

/** ana_field_find() - the field @name of type @t, or NULL. Borrowed. */
const struct pp_field *ana_field_find(const struct ana_evtype *t, const char *name);
/** ana_field_read() - the value of numeric field @f in @ev (0 when out of bounds), sign-extended. */
uint64_t ana_field_read(const struct pp_event *ev, const struct pp_field *f);
/** ana_field_u64() - a numeric field of a tracepoint event by name; false if absent. */
bool ana_field_u64(const struct pp_event *ev, const char *name, uint64_t *out);
/** ana_field_str() - a char[] or __data_loc string field; NULL if absent. Borrowed. */
const char *ana_field_str(const struct pp_event *ev, const char *name, char *buf, size_t sz);

/**
 * ana_stack_print() - @ev's call stack into @out, one frame per line, innermost first:
 * "    %016lx sym+0xoff (dso)" (four spaces before each frame, as perf-prof prints them)
 */
void ana_stack_print(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

struct pp_inl;

/*
 * Inline frames (common/dwinline.h): the _inl variants below expand each user frame whose
 * binary has DWARF on this machine into the functions inlined there, innermost first, each
 * named "func" ANA_INLINED_SUFFIX, before the real function; @inl NULL is the plain form.
 */
#define ANA_INLINED_SUFFIX " (inlined)"

/**
 * ana_stack_print_inl() - ana_stack_print() with inline frames from @inl, perf script's
 * form: "    %016lx func (inlined)" lines (the frame's address, no dso) before the frame's
 */
void ana_stack_print_inl(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			 struct pp_buf *out);

/**
 * ana_stack_folded_inl() - ana_stack_folded() with inline frames from @inl: the name is
 * sanitized as any, the " (inlined)" marker is appended as is (folded readers split the
 * count at the last space)
 */
void ana_stack_folded_inl(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			  struct pp_buf *out);

/**
 * ana_frame_name() - the symbol of one address of @ev's stack, or when it has none what
 * ana_frame_unnamed() calls it; @kernel tells the context (from PERF_CONTEXT markers).
 */
const char *ana_frame_name(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
			   bool kernel, char *buf, size_t sz);

/**
 * ana_frame_unnamed() - the name of a frame without a symbol, in @buf (@sz bytes)
 * @dso: its binary's path as resolved (NULL: in no known mapping)
 * @dso_off: the file offset in @dso
 * @kernel: a kernel frame
 * Return: @buf: "FILE+0xOFFSET" (the binary's file name: "liblzma.so.5+0x1c2f0") for a user
 * frame in a known binary, else "[unknown]" (kernel frames: kallsyms names what it knows).
 */
const char *ana_frame_unnamed(const char *dso, uint64_t dso_off, bool kernel, char *buf,
			      size_t sz);

/**
 * ana_stack_folded() - Brendan Gregg's folded form "comm;outer;...;inner" of @ev's stack
 * (root first), appended to @out, without the count.
 */
void ana_stack_folded(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

/**
 * ana_json_stack() - a JSON line's ,"stack":"..." member: @ev's stack folded
 * (ana_stack_folded()), appended to @out; nothing when @ev has no stack
 */
void ana_json_stack(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out);

/* Walking a perf callchain: its PERF_CONTEXT_* markers tell kernel from user frames. */
struct ana_stack_iter {
	const uint64_t *stack;
	uint32_t nr, i;
	bool kernel;
};

/** ana_stack_iter_init() - start walking @stack (@nr entries), innermost frame first. */
void ana_stack_iter_init(struct ana_stack_iter *it, const uint64_t *stack, uint32_t nr);
/** ana_stack_iter_next() - the next real frame and its context. Return: false at the end. */
bool ana_stack_iter_next(struct ana_stack_iter *it, uint64_t *addr, bool *kernel);

/* One resolved frame; strings borrowed from the session's symbol tables. */
struct ana_frame_sym {
	uint64_t addr;
	const char *symbol;	/* NULL when unknown */
	uint64_t offset;	/* from the symbol start (0 when unknown) */
	const char *dso;	/* "[kernel.kallsyms]", "[mod]", a path; NULL when unmapped */
	uint64_t dso_off;	/* user: the file offset in @dso; else the address */
	bool kernel;
};

/**
 * ana_frame_lookup() - resolve @addr as process @pid saw it at @time_ns (no event needed)
 * Return: true when a symbol covers it; @out is filled in every case.
 */
bool ana_frame_lookup(struct ana_session *s, uint32_t pid, uint64_t time_ns, uint64_t addr,
		      bool kernel, struct ana_frame_sym *out);

/** ana_evtype_has_stack() - whether the events of @t carry call stacks. */
bool ana_evtype_has_stack(const struct ana_evtype *t);

/* --- Print formats of tracepoints ------------------------------------------- */

/** ana_evtype_print_fmt() - the format string of @t's "print fmt" ("" when none). Borrowed. */
const char *ana_evtype_print_fmt(const struct ana_evtype *t);

/*
 * sched_switch's prev_state as the capture's kernel encoded it (analyze/schedstate.c):
 * the bits changed in 4.14 (X and Z swapped, I added, the preempted mark 0x100 instead
 * of TASK_STATE_MAX), so they are read from the stored print fmt (its __print_flags()
 * table and `& MAX ? "+"`), else from the capture's release, and mapped to the 4.14
 * encoding below.
 */
#define ANA_PS_S 0x01
#define ANA_PS_D 0x02
#define ANA_PS_T 0x04
#define ANA_PS_TT 0x08		/* t: traced */
#define ANA_PS_X 0x10		/* dead (TASK_DEAD "x" of older kernels too) */
#define ANA_PS_Z 0x20
#define ANA_PS_P 0x40
#define ANA_PS_I 0x80
#define ANA_PS_PREEMPT 0x100	/* R+: preempted, runnable */
struct ana_prev_state {
	uint64_t bits[8];	/* per ANA_PS_ bit (S D T t X Z P I): the stored bits that mean it */
	uint64_t preempt;	/* the stored value of a preempted task */
	bool from_format;	/* read from the print fmt (else from the release) */
};
/** ana_prev_state_init() - the encoding of sched_switch type @t (NULL: the release's). */
void ana_prev_state_init(struct ana_session *s, const struct ana_evtype *t,
			 struct ana_prev_state *ps);
/** ana_prev_state_canon() - stored @raw as ANA_PS_* bits (0: R, ANA_PS_PREEMPT: R+). */
uint64_t ana_prev_state_canon(const struct ana_prev_state *ps, uint64_t raw);
/** ana_prev_state_runnable() - whether stored @raw says the task left the CPU runnable. */
bool ana_prev_state_runnable(const struct ana_prev_state *ps, uint64_t raw);

typedef void (*ana_symbolic_fn)(void *arg, const char *field, uint64_t value, const char *name);
/**
 * ana_evtype_symbolic() - the __print_symbolic() tables of @t's print format
 * @fn: called once per (field, value, name), or NULL to count; values that are not
 *       numbers are skipped
 * Return: the number of __print_symbolic() uses found.
 */
int ana_evtype_symbolic(const struct ana_evtype *t, ana_symbolic_fn fn, void *arg);

struct pp_flame;
struct pp_flame_node;

/**
 * ana_stack_key() - a key for caching what was resolved from @ev's stack
 * (struct pp_stackmap): the task and its current comm, so that a stack seen
 * again in the same task maps to the same result, and an exec starts afresh.
 */
uint64_t ana_stack_key(struct ana_session *s, const struct pp_event *ev);

/**
 * ana_stack_folded_key() - ana_stack_folded_inl() with each frame named by @key: the
 * symbol (ANA_FRAME_SYM), "BINARY`SYMBOL" (ANA_FRAME_DSO_SYM) or the binary alone
 * (ANA_FRAME_DSO: no inline frames); BINARY is the file name of the frame's binary,
 * "[kernel.kallsyms]" or a module for kernel frames, "[unknown]" outside any mapping.
 */
void ana_stack_folded_key(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			  enum ana_frame_key key, struct pp_buf *out);

/**
 * ana_stack_node() - the node of @ev's call stack in flame tree @fg,
 * "comm;outer;...;inner", creating the path if needed
 * The stack is trimmed to what @az keeps (--no-user-callchain,
 * --no-kernel-callchain); an event without a stack gives "comm;<symbol of ip>".
 * With @az->inl set, inline frames are expanded (ana_stack_folded_inl()); frames are
 * named as @az->frame_key says (ana_stack_folded_key()).
 * Resolving symbols costs: cache the result per (ana_stack_key(), stack).
 * Return: the leaf node, borrowed from @fg.
 */
struct pp_flame_node *ana_stack_node(struct pp_az *az, struct pp_flame *fg, const struct pp_event *ev);

/* One frame of an event's call stack: its address and context. */
struct ana_frame {
	uint64_t addr;
	bool kernel;
};

/**
 * ana_stack_frames() - the real frames of @ev's callchain, innermost first (context
 * markers and zero frames dropped), at most @max of them into @out
 * Return: the number of frames stored.
 */
size_t ana_stack_frames(const struct pp_event *ev, struct ana_frame *out, size_t max);

/*
 * Where one address of an event's stack lives, for exporters that keep binaries apart
 * (pprof mappings).  Strings are borrowed from the session's symbol tables.
 */
struct ana_frame_info {
	const char *name;		/* demangled symbol; NULL when unresolved */
	const char *mangled;		/* as stored in the binary; NULL when unresolved */
	uint64_t sym_off;		/* address - symbol start */
	const char *dso;		/* "[kernel.kallsyms]", "[ext4]", "/usr/lib/.../libc.so.6", */
					/* "/tmp/perf-PID.map"; NULL: in no known mapping */
	const char *build_id;		/* lowercase hex; NULL when unknown */
	uint64_t dso_off;		/* user: file offset in @dso; else the address */
	bool jit;			/* resolved from a JIT map */
};

/**
 * ana_frame_resolve() - symbol, binary and build id of @addr in @ev's stack
 * @kernel: the frame's context (struct ana_frame)
 * Return: true when a symbol covers @addr; @fi is filled in every case.
 */
bool ana_frame_resolve(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
		       bool kernel, struct ana_frame_info *fi);

/**
 * ana_realtime_ns() - CLOCK_REALTIME (ns since the epoch) of capture time @t_ns, from
 * the capture's first clock pair (the same anchor for every time, part and range)
 * Return: false, and 0 in *@real_ns, when the capture has no clock mapping or the
 * result does not fit in 64 bits (common/sat.h: out of range, not wrapped).
 */
bool ana_realtime_ns(const struct ana_session *s, uint64_t t_ns, uint64_t *real_ns);

/** ana_capture_end_ns() / ana_capture_start_ns() - the analysed time range. */
uint64_t ana_capture_start_ns(struct ana_session *s);
uint64_t ana_capture_end_ns(struct ana_session *s);
/**
 * ana_grid_origin_ns() - where a grid of time slots over the capture starts: the --time
 * start with @from_range (the one-pass report of a range), else the capture's first
 * time, --time aside (a state: every range and every part of a parallel replay bins on
 * one grid).  0 before the replay has seen the capture's first time.
 */
uint64_t ana_grid_origin_ns(struct ana_session *s, bool from_range);

/** ana_host() - a host key of the capture ("hostname", "release"...), or NULL. */
const char *ana_host(struct ana_session *s, const char *key);

/** ana_evtype_find() - the capture's event type named @name ("sched:sched_switch"), or NULL. */
const struct ana_evtype *ana_evtype_find(struct ana_session *s, const char *name);

/** ana_syscall_name() - name of syscall @nr from the capture's table, or NULL. */
const char *ana_syscall_name(struct ana_session *s, uint64_t nr);

/**
 * ana_session_inl() - the inline-frame resolver (common/dwinline.h) for --debug-dir
 * @debug_dir (NULL: none) of @s's capture: one per session and directory, opened debug
 * files and answers shared by its instances (and by the parts of a parallel replay, which
 * use their one pass's).  Names only (pp_inl_names_only(): no files, no lines).  Owned by
 * the session.
 */
struct pp_inl *ana_session_inl(struct ana_session *s, const char *debug_dir);

/**
 * ana_session_debug_syms() - name the frames of binaries whose capture symbol table is missing
 * or only dynamic from their debug files here, found by build id (DIR/.build-id/xx/rest.debug)
 * in @debug_dir (a --debug-dir value, or NULL), $PP_DEBUGINFO_PATH and /usr/lib/debug, then,
 * when @debuginfod, from the servers of $DEBUGINFOD_URLS (libdebuginfod, its cache; a line on
 * stderr per download, a one-line warning naming the URL when one fails).
 * Calls after the first only add @debuginfod.
 */
void ana_session_debug_syms(struct ana_session *s, const char *debug_dir, bool debuginfod);

/** ana_ksym() - kernel symbol at @addr with offset, or NULL. Borrowed. */
const char *ana_ksym(struct ana_session *s, uint64_t addr, uint64_t *off);

/**
 * ana_session_stop() - end the replay after the current event (a script called exit,
 * --strict met an error, a template was printed); ->finish() still runs.
 */
void ana_session_stop(struct ana_session *s);

/**
 * ana_evtype_format() - the tracefs "format" text stored in the capture for @t
 * Return: "" for events without one (software events); borrowed.
 */
const char *ana_evtype_format(const struct ana_evtype *t);

/**
 * ana_capture_problems() - what the reader found wrong with the capture so far:
 * one line per corrupt segment skipped, and one for a truncated file
 * Return: the number of lines appended to @out (0: the capture read cleanly).
 */
size_t ana_capture_problems(struct ana_session *s, struct pp_buf *out);

/**
 * ana_is_live() - the capture is a live stream (`pp-record -o - | pp-analyze -`)
 *
 * An analyzer that holds output back in its own buffer writes it through at
 * once when live: the core flushes the output at the end of each segment.
 */
bool ana_is_live(const struct pp_az *az);

/**
 * ana_time_in_range() - @t_ns lies in the analysed range (--time START,END, either end
 * open).  Samples and losses outside it never reach an analyzer; task exits do.
 */
bool ana_time_in_range(const struct pp_az *az, uint64_t t_ns);

/** ana_lost_total() - losses seen so far in the analysed range. */
uint64_t ana_lost_total(struct ana_session *s);

/**
 * ana_report_header() - what every report starts with: losses in the range,
 * "N events lost on CPU X..." (nothing when there are none).
 */
void ana_report_header(struct pp_az *az);

/**
 * ana_expr_compile() - compile @text for event type @t with the session's
 * built-ins (comm_get, ksymbol, syscall_name) bound; prints a caret error.
 * Return: 0 or a negative code (message already printed).
 */
int ana_expr_compile(struct pp_az *az, const struct ana_evtype *t, const char *what,
		     const char *text, struct pp_expr **out);
/**
 * ana_expr_compile_vars() - as ana_expr_compile() with caller variables @vars
 * (printkey's "key"): their values are given to ana_expr_eval_vars() in the same order.
 */
int ana_expr_compile_vars(struct pp_az *az, const struct ana_evtype *t, const char *what,
			  const char *text, const char *const *vars, size_t nr_vars,
			  struct pp_expr **out);
/** ana_expr_eval() - evaluate on @ev; 0 on evaluation error (as perf-prof). */
int64_t ana_expr_eval(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev);
/** ana_expr_eval_vars() - as ana_expr_eval() with values for the env's variables. */
int64_t ana_expr_eval_vars(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev,
			   const uint64_t *vars);
/**
 * ana_expr_eval_trace() - ana_expr_eval() that appends each executed instruction
 * and the stack top to @trace (expr -v)
 */
int64_t ana_expr_eval_trace(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev,
			    struct pp_buf *trace);
/** ana_expr_eval_str() - evaluate an expression of type char* on @ev. Borrowed until next eval. */
const char *ana_expr_eval_str(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev);

/* --- Mergeable state (docs/state-format.md) ---------------------------------- */

/**
 * ana_state_recording() - the replay ends in a state (--state-out), not a report:
 * no listing is printed, and what is open at the range's start and end is kept for
 * state_join()
 */
bool ana_state_recording(const struct pp_az *az);

/**
 * ana_state_sources() - the capture ranges (sources) the instance's state covers, by
 * id, in the order state_write() writes per-source data: { 0 } after a replay
 * Return: the number of ids in *@ids (borrowed).
 */
size_t ana_state_sources(const struct pp_az *az, const unsigned **ids);

/**
 * ana_state_source_in() - in state_read(), the id of source @i of the state being read
 * Return: false, with pp_wire_fail() on @in, when the state has no source @i.
 */
bool ana_state_source_in(const struct pp_az *az, struct pp_wire *in, uint64_t i, unsigned *id);

/** ana_state_nr_sources_in() - in state_read(), the number of sources of the state being read. */
size_t ana_state_nr_sources_in(const struct pp_az *az);

/** ana_state_same_capture() - in state_read() and state_join(), whether sources @a and @b are ranges of one capture. */
bool ana_state_same_capture(const struct pp_az *az, unsigned a, unsigned b);

/* --- Registers a sample carries ---------------------------------------------- */

/*
 * The interrupted registers of a sample (perf's REGS_INTR layout in the sample's extra
 * bytes: the ABI word, then one u64 per bit set in the event's mask), by perf_regs bit;
 * and perf-prof's x86_64 text layout of them (breakpoint, page-faults).  analyze/regs.c.
 */
struct ana_regs {
	uint64_t abi;
	uint64_t v[64];
	uint64_t have;			/* bit i: v[i] recorded */
};

/**
 * ana_regs_get() - unpack @ev's registers recorded with @mask
 * Return: false when it has none (no mask, no extra bytes, ABI none); a record cut short
 * keeps the registers before the cut (r->have says which).
 */
bool ana_regs_get(const struct pp_event *ev, uint64_t mask, struct ana_regs *r);

/**
 * ana_regs_print_x86() - RIP/RSP/RFLAGS, the general registers three a line, CS/SS, as
 * perf-prof prints them (perf_regs numbering AX=0 ... SS=11, R8=16 ... R15=23)
 */
void ana_regs_print_x86(const struct ana_regs *r, struct pp_buf *out);

#endif
