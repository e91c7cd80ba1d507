/* SPDX-License-Identifier: MIT */
/*
 * internal.h - pp-analyze's private state: the session and its parts.
 *
 * struct ana_session owns everything of one replay: the reader, the
 * capture's metadata (host keys, event types parsed with libtraceevent,
 * syscall table), the task table, the symbol tables, the clock mapping,
 * and the analyzer instances with their dispatch tables.  Nothing is
 * global.  Not here: analyzer logic (analyzers/), the commands (cmd.h).
 */
#ifndef PP_ANALYZE_INTERNAL_H
#define PP_ANALYZE_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/symbolize.h"
#include "common/u64map.h"
#include "format/format.h"

struct tep_handle;
struct pp_symtab;
struct ana_cfi;

/*
 * What the core keeps per event type besides the public struct ana_evtype:
 * the compiled print format and the offsets of the latency-flag fields.
 */
struct ana_fastfmt;
struct ana_evtype_priv {
	struct ana_evtype pub;
	struct ana_fastfmt *fmt;	/* NULL: print with libtraceevent */
	bool fmt_tried;
	uint64_t nr_printed;		/* records printed (fast-path self-check sampling) */
	int flags_off, pc_off;		/* common_flags / common_preempt_count, -1 if none */
	/* X_comm / X_pid field pairs (prev_, next_, comm/pid ...): names of tasks the
	 * capture's task records missed (losses) are learnt from them */
	const struct pp_field *name_comm[4], *name_pid[4];
	unsigned nr_names;
	const struct pp_field *switch_next;	/* sched:sched_switch's next_pid, else NULL */
	char *format;			/* the stored tracefs format text ("" if none) */
};

static inline struct ana_evtype_priv *ana_evtype_priv(const struct ana_evtype *t)
{
	return (struct ana_evtype_priv *)t;
}

struct ana_task {
	uint32_t tid, pid, ppid;
	uint32_t ptid;		/* the thread that forked it in the capture; 0: there at the start */
	char comm[32];
	uint64_t comm_id;	/* ana_comm_id(): a new number each time comm is written */
	uint64_t exit_ns;	/* 0 while alive */
};

/* One delivery target for an event type: an analyzer instance and one of its matches. */
struct ana_disp {
	struct pp_az *az;
	struct ana_sel *sel;
	bool plain;		/* no -C/-p/-t, selector filter or -N: deliver without checks */
};

struct ana_disp_list {
	struct ana_disp *v;
	size_t nr;
};

struct ana_lost_cpu {
	uint32_t cpu;
	uint64_t count;
};

/*
 * The replay delivers no record of a CPU at or above this (replay.c: counted in
 * nr_bad_cpu, one warning): Linux has at most 8192, and analyzers size tables by CPU.
 */
#define ANA_MAX_CPUS 65536u

struct ana_session {
	const char *path;
	bool live;			/* reading a stream ("-"): flush per segment, tick on time syncs */
	struct ppf_reader *r;
	struct tep_handle *tep;
	struct pp_symtab *syms;
	bool ksyms_final;
	/*
	 * What the kernel symbols count in the symtab's size (a parallel replay's part borrows
	 * them, parallel.c), and where ana_session_load_meta() stopped: the file offset of
	 * the segment of the first sample (every KSYMS segment before it is read).
	 */
	size_t ksyms_mem;
	uint64_t meta_end_off;
	/* ana_session_inl(): by --debug-dir; a part's are its lender's (the one pass's) */
	struct ana_inl_dir {
		char *dir;
		struct pp_inl *inl;
	} *inls;
	size_t nr_inls;
	struct ana_inl_prefetch *inl_prefetch;	/* cmd-analyze.c: their DWARF opening, or NULL */
	struct ana_session *lender;
	struct ana_unwind *unwind;	/* --call-graph dwarf samples' unwinder (unwind.c), or NULL */
	/* the analyzers of analyzers.def, set by whoever builds the session; NULL in the pp module */
	const struct ana_registry *registry;

	char **host_keys, **host_vals;
	size_t nr_host;
	struct pp_u64map types;		/* id -> struct ana_evtype * */
	struct ana_evtype **type_list;	/* in the order of the capture */
	size_t nr_types;
	struct pp_u64map syscalls;	/* nr -> char * */
	struct pp_u64map tasks;		/* tid -> struct ana_task * */
	uint64_t comm_serial;		/* the last ana_task.comm_id handed out */
	struct ana_task *task_cache[256];	/* direct-mapped by tid: tasks are never freed */
	struct pp_u64map dsos;		/* DSO being filled: current struct pp_dso * at key 0 */
	struct ana_cfi *cfi;		/* the DSOs' unwind tables (cfi.c), NULL: none */
	/* the side-band budget (common/limits.h): bytes kept for the capture besides the symtab's */
	uint64_t sb_bytes, sb_limit;
	bool sb_full;			/* passed: what the capture adds is ignored (warned once) */
	struct ana_task sb_spill;	/* task_get()'s answer for a task not kept */

	bool have_sync;
	uint64_t sync_perf_ns, sync_real_ns;
	uint64_t first_ns, last_ns;	/* of the samples replayed */
	uint64_t range_start_ns, range_end_ns;	/* --time, 0 = open */
	/*
	 * The capture's first time as first_ns counts it, --time aside (0: none yet): set by
	 * the replay, or given to a part by the parallel replay (its reader starts later);
	 * from_ns: a part's user --time start (its range_start_ns is the part's).
	 */
	uint64_t capture_first_ns, from_ns;
	uint64_t lost_total;
	bool lost_saturated;		/* a loss sum reached 2^64-1 (common/sat.h) */
	struct ana_lost_cpu *lost_cpus;
	size_t nr_lost_cpus;

	struct pp_az **azs;
	size_t nr_azs;
	bool inited;
	bool stop;			/* ana_session_stop() */
	bool has_ticks;			/* some analyzer wants -i ticks */
	uint64_t tick_due;		/* no -i tick is due before this time (tick()) */
	uint32_t last_tid;		/* ana_session_sample()'s last task noted */
	uint32_t *cpu_cur;		/* by cpu: next_pid of its last sched_switch + 1, 0 unknown */
	size_t nr_cpu_cur;
	uint64_t nr_bad_cpu;		/* records of a CPU >= ANA_MAX_CPUS, not delivered */
	struct ana_type_cache {		/* deliver()'s id -> type, dispatch list, by id % 16 */
		uint32_t id;
		struct ana_evtype *type;	/* NULL: empty */
		struct ana_disp_list *disp;
	} type_cache[16];
	bool all_done;			/* -N reached by every analyzer: stop reading */
	struct pp_u64map disp;		/* type id -> struct ana_disp_list * */
	struct pp_u64map counts;	/* (id, cpu, tid) -> struct ana_count_prev *: COUNTER deltas */
	struct pp_buf scratch;
	void *fold_scratch;		/* print.c's frame buffer */
	struct pp_buf fold_tok;		/* print.c: a flame node's name being made */
	struct pp_u64map fcache;	/* framecache.c: folded frames by what they depend on */
	size_t fcache_nr;
	struct ana_debugsyms *debugsyms;	/* debugsyms.c: debug files by build id, or NULL */
	struct ana_debugfiles *debugfiles;	/* debugsyms.c: where they are (the lender's) */
	char *str_scratch;		/* evexpr.c's string results */
	bool generic_print;		/* never use the compiled print formats */
	uint64_t wall_sec;		/* print.c's cache of the last wall-clock second */
	char wall_str[24];		/* "YYYY-MM-DD HH:MM:SS" of wall_sec */
	struct pp_buf print_check;	/* print.c's scratch for the fast-path self-check */
	/*
	 * A part of a parallel replay (parallel.c): no progress line, no signal requests;
	 * the task exits before @exit_from_ns were the part before's to deliver.
	 */
	bool part;
	uint64_t exit_from_ns;
	/* a session made from a state (analyze/state/, no reader): its captures' damage */
	struct ppf_read_stats state_stats;
	bool imported;			/* a perf.data or trace.dat converted (analyze/import/) */
	struct ana_import_job *import_job;	/* ... converting as it is read, or NULL */
	char conv_path[64];		/* ... converted whole: its capture ("/proc/self/fd/N") */
	char errmsg[512];
};

/* debugsyms.c */
struct pp_sym_res;
/**
 * ana_debugsyms_fill() - on a user lookup (@res) in a binary with a build id: the first time
 * that build id is seen, look for its debug file (debugsyms.c) and add its functions
 * Return: true when symbols were added (look the address up again).
 */
bool ana_debugsyms_fill(struct ana_session *s, const struct pp_sym_res *res);
/** ana_debugsyms_free() - free a session's part of ana_session_debug_syms(); NULL is fine. */
void ana_debugsyms_free(struct ana_debugsyms *d);
/** ana_debugfiles_free() - free the lender's part (the files found); NULL is fine. */
void ana_debugfiles_free(struct ana_debugfiles *w);

/* heap.c */
/** ana_heap_init() - pp-analyze's heap in transparent huge pages (at the start of main()). */
void ana_heap_init(void);
/** ana_heap_thread() - the same for the arena of the calling thread (a -j worker's start). */
void ana_heap_thread(void);

/* session.c */
/* ana_session_open()'s own flag besides PPF_READ_*: no read-ahead thread (a part of -j N) */
#define ANA_OPEN_NO_READ_AHEAD (1u << 31)
/* ... and: a perf.data or trace.dat may come in memory as it converts (ana_import_stream()):
 * for a session read once, front to back (cmd_analyze's) */
#define ANA_OPEN_IMPORT_STREAM (1u << 30)
int ana_session_open(const char *path, unsigned flags, struct ana_session **out);
/**
 * ana_session_init_meta() - give @s, just allocated, the event parser (libtraceevent,
 * the capture's byte order and sizes) and the symbol table its metadata fills
 * (ana_session_open(), a state's session)
 */
void ana_session_init_meta(struct ana_session *s);
void ana_session_free(struct ana_session *s);
/* Feed one metadata/side-band record to the session (everything but samples). */
int ana_session_meta(struct ana_session *s, const struct ppf_record *rec);
struct ana_evtype *ana_session_type(struct ana_session *s, uint32_t id);
struct ana_task *ana_session_note_task(struct ana_session *s, uint32_t pid, uint32_t tid);
/*
 * ana_session_sample() - @smp, a sample of type @t, as an event: counted,
 * its task noted, pid/tid -1 recovered (see session.c).  The one way from
 * a capture's sample to an analyzer's event (replay.c, pymod.c).
 */
void ana_session_sample(struct ana_session *s, struct ana_evtype *t, const struct ppf_sample *smp,
			struct pp_event *ev);
/**
 * ana_time_range_parse() - --time START,END: each "+2s" (after @first_ns), "12.5" (seconds
 * of capture time) or "123ns", either may be empty (0: open)
 * Return: 0, or PP_ESYNTAX.
 */
int ana_time_range_parse(const char *range, uint64_t first_ns, uint64_t *start_ns,
			 uint64_t *end_ns);
/* Read records until the first sample or side-band record; return it in @first (PPF_END if none). */
int ana_session_load_meta(struct ana_session *s, struct ppf_record *first);

/* tasks.c */
/**
 * ana_task_entry() - the task of @tid, made when new.  Past the side-band budget a new
 * task is not kept: the answer is a blank scratch task (tid 0: no cache matches it),
 * whatever the caller writes into it is forgotten.
 */
struct ana_task *ana_task_entry(struct ana_session *s, uint32_t tid);
/** ana_task_named() - @t's comm has just been written: it gets a number no other text had. */
void ana_task_named(struct ana_session *s, struct ana_task *t);
/** ana_tasks_meta() - fold a TASK, COMM, FORK or EXIT record into the task table. */
void ana_tasks_meta(struct ana_session *s, const struct ppf_record *rec);

/* symbols.c */
/** ana_syms_meta() - fold a SYSCALL, MMAP, KSYM, DSO or SYM record into the symbol tables. */
void ana_syms_meta(struct ana_session *s, const struct ppf_record *rec);
void ana_session_finalize_syms(struct ana_session *s);

/* budget.c */
/**
 * ana_sb_room() - whether the side-band budget (PP_SIDEBAND_MAX) has room for more state
 * (charged to s->sb_bytes by whoever adds it); warns once when it has not
 */
bool ana_sb_room(struct ana_session *s);

/* replay.c */
/** ana_replay_init() - match every analyzer's selectors and ->init() it (ana_replay() does it first). */
int ana_replay_init(struct ana_session *s);
int ana_replay(struct ana_session *s, struct ppf_record *first, int have_first);
/** ana_replay_status() - the exit status of a replay that returned @rc (2 for usage errors). */
int ana_replay_status(int rc);
/**
 * ana_replay_capture_first() - read on from @rec (the record read last, @have_first:
 * not yet looked at) to the capture's first time (s->capture_first_ns), as ana_replay()
 * would see it; a session that will not replay (the parallel replay's own)
 * Return: 0 (capture_first_ns 0: the capture has no such record) or the reader's error.
 */
int ana_replay_capture_first(struct ana_session *s, struct ppf_record *rec, int have_first);
/*
 * Set by pp-analyze's SIGUSR1 handler (main.c), cleared by the replay: at the
 * next record with a time, every analyzer given -i prints its interval report
 * at once, as perf-prof's analyzers print their state on SIGUSR1.
 */
extern volatile sig_atomic_t ana_interval_now, ana_print_stat_now;

/* parts.c: where -j N cuts a capture */
struct ana_part {
	uint64_t from_off, to_off;	/* ppf_reader_set_window(): its segments' file offsets */
	uint64_t start_ns, end_ns;	/* the --time range it is (0: open) */
	uint64_t records;		/* in its segments (of the range) */
};
/**
 * ana_parts_split() - cut the capture whose segments are @segs (ppf_reader_segments())
 * into at most @jobs parts for the analysed range [@t0, @t1] (0: open), cutting only
 * between EVENTS segments whose times do not touch, sized so that parts that first skim
 * what is before them (at @skim of a replay's cost per record) end together
 * @parts: room for @jobs
 * Return: the number of parts (1: nowhere to cut).
 */
size_t ana_parts_split(const struct ppf_index_entry *segs, size_t nr, unsigned jobs, double skim,
		       uint64_t t0, uint64_t t1, struct ana_part *parts);
/**
 * ana_parts_split_shared() - cut as ana_parts_split() into at most @jobs * @per_job parts
 * that threads share out as they go: @jobs equal shares of the records, each in @per_job
 * parts that shrink, the largest first (parts.c)
 * @parts: room for @jobs * @per_job
 * Return: the number of parts.
 */
size_t ana_parts_split_shared(const struct ppf_index_entry *segs, size_t nr, unsigned jobs,
			      unsigned per_job, uint64_t t0, uint64_t t1, struct ana_part *parts);
/**
 * ana_parts_per_job() - how many parts a thread for ana_parts_split_shared() (1: one part a
 * thread, ana_parts_split())
 * @digests: pp-record wrote side-band digests (without, each part skims all that is before
 *           it: one a thread)
 *
 * Enough that the threads end together (what a record costs varies along a recording with
 * its events), 6 at most, few enough that opening a part stays cheap: a part opens a session
 * and reads the side band before it, so it holds 64 events segments at least on average, and
 * 25 events records for each record of the binaries' symbol and unwind tables (USYMS
 * segments), which every part reads and sorts again (DWARF stacks: 7,400 such records cost
 * a part ~5 ms, about what 7,000 of its samples cost).  Pure logic (parts.c).
 */
unsigned ana_parts_per_job(const struct ppf_index_entry *segs, size_t nr, unsigned jobs,
			   bool digests);

/* parallel.c: the parallel replay engine, -j N: a capture's parts on threads, states merged */
/** ana_parallel_jobs() - the threads to use: @option (-j) if > 0, else $PP_JOBS, else the CPUs. */
unsigned ana_parallel_jobs(int option);
/**
 * ana_parallel_able() - NULL when every one of the @nr instances, init()ed, can be replayed
 * in parts (a mergeable state, nothing printed or written while replaying: no -i report
 * within @span_ns, the range's length); else why not, and in *@name which instance
 */
const char *ana_parallel_able(struct pp_az *const *azs, size_t nr, uint64_t span_ns,
			      const char **name);
/**
 * ana_parallel() - replay @s's capture (metadata read, --time set, its instances init()ed:
 * ana_replay_init(); @first the record ana_session_load_meta() stopped at, if @have_first)
 * on @jobs threads into
 * instances parsed again from @argc/@argv (one command line per instance of @s), and
 * print each instance's merged result (or write its --state-out)
 * @stats: the damage the parts met, as one reader would count it
 * Return: -1 when it cannot (a stream, an instance without a mergeable state, one segment;
 * said with -v): replay @s as usual; else the exit status.
 */
int ana_parallel(struct ana_session *s, struct ppf_record *first, int have_first, unsigned jobs,
		 const int *argc, const char *const *const *argv, unsigned read_flags,
		 struct ppf_read_stats *stats);
/* registry.c: the analyzers of analyzers/analyzers.def */
/**
 * struct ana_registry - the analyzers of analyzers.def, as the replay core asks for them
 * (an analyzer named as an event in select.c, a state's analyzer in analyze/state/): the
 * core is linked without registry.c in the pp module, so it asks through the pointer
 * that whoever builds the session or the state gives it (NULL there: no analyzer)
 */
struct ana_registry {
	size_t (*count)(void);
	const struct pp_analyzer *(*at)(size_t i);
	const struct pp_analyzer *(*find)(const char *name);
};
/** ana_registry - ana_analyzer_count(), ana_analyzer_at() and ana_analyzer_find(). */
extern const struct ana_registry ana_registry;
/**
 * ana_analyzer_find() - the analyzer named @name, or given it as an alias (PP_ALIAS)
 * Return: static, or NULL.
 */
const struct pp_analyzer *ana_analyzer_find(const char *name);
/**
 * ana_analyzer_alias_at() - the @i-th alias of analyzers.def (PP_ALIAS), and in *@an the
 * analyzer it names (NULL if none: ana_registry_check() says so)
 * Return: static, or NULL past the end.
 */
const char *ana_analyzer_alias_at(size_t i, const struct pp_analyzer **an);
/** ana_analyzer_count() - how many analyzers there are. */
size_t ana_analyzer_count(void);
/** ana_analyzer_at() - the @i-th analyzer in help order. Return: static, or NULL past the end. */
const struct pp_analyzer *ana_analyzer_at(size_t i);
/**
 * ana_analyzer_check() - whether @an keeps the analyzer contract: name and C name agree,
 * summary and usage given, init/event/finish present, its plan's options inside its
 * options struct, coherent capability and event flags
 * Return: 0, or -EINVAL with a one-line reason in @err.
 */
int ana_analyzer_check(const struct pp_analyzer *an, char *err, size_t errsz);
/** ana_registry_check() - ana_analyzer_check() on every analyzer, and no name twice. */
int ana_registry_check(char *err, size_t errsz);
/* hooks.c */
/**
 * ana_az_bind() - make @az an instance of @an: its name, plan, and a hook table
 * (az->ops) whose optional dispatch hooks are no-ops where @an leaves them NULL
 */
void ana_az_bind(struct pp_az *az, const struct pp_analyzer *an);

/* instance.c: an analyzer instance from a command line, its help, its end */
struct ana_cmd;
/**
 * ana_az_parse() - an analyzer instance from argv[0..argc) (argv[0] its name, then its
 * options), its output not opened yet; exits with status 2 on bad options, 0 after -h
 * @cmds: the command table (struct ana_cmd_ctx's), whose listed commands the message
 *        of an unknown name offers besides the analyzers; NULL: the analyzers only
 * @help: set when a positional `help` asks for the events' formats
 * Return: the instance, the caller's (ana_az_free()).
 */
struct pp_az *ana_az_parse(int argc, const char **argv, const struct ana_cmd *cmds,
			   bool *help);
/**
 * ana_az_try_parse() - ana_az_parse() of arguments that came from a file (a state's):
 * nothing printed and no exit - an unknown analyzer, a bad option, -h, missing events
 * are a one-line message in @err and NULL
 */
struct pp_az *ana_az_try_parse(int argc, const char **argv, bool *help, char *err, size_t errsz);
/** ana_az_free() - release and free an instance of ana_az_parse() or ana_az_try_parse(). */
void ana_az_free(struct pp_az *az);
/** ana_analyzer_help() - one analyzer's usage, options and examples. */
void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an);
/**
 * ana_az_start() - make @az (zeroed) an instance of @an and parse its options
 * @argv: argv[0] the analyzer's name, then its options (@argc in all)
 * @err: the message when the options are bad
 *
 * Binds @az (ana_az_bind()), allocates az->priv and az->opts, sets the common defaults
 * (both halves of a callchain), then parses.
 * Return: pp_parse_options()'s result: the number of positional arguments, PP_OPT_HELP
 * after -h, negative with @err set on a bad option.  Either way ana_az_free() (or the
 * caller's own release) frees what it allocated.
 */
int ana_az_start(struct pp_az *az, const struct pp_analyzer *an, int argc, const char **argv,
		 char *err, size_t errsz);

/* merge.c: states merged, and their analyzer's instance on the merge */
struct ana_state;
struct ana_merge;
/**
 * ana_merge_open() - merge @nr loaded states (taken: freed with the merge) and build their
 * analyzer on the merge, its result (finish()) going to @output (NULL: stdout) in @format:
 * what `merge` and `report` do after loading their files, and a parallel replay after its
 * workers
 * Return: exit status (0; 1 or 2 after printing why); free with ana_merge_close() in any case.
 */
int ana_merge_open(struct ana_state **v, size_t nr, const char *format, const char *output,
		   struct ana_merge **m, struct pp_az **az);
void ana_merge_close(struct ana_merge *m, struct pp_az *az);

/* select.c: match an analyzer's -e selectors against the capture's types */
/* The parsed selectors of one -e position, kept alive for the analyzer (ana_sel points in). */
struct ana_sel_store {
	struct pp_selector *v;
	size_t nr;
};
int ana_az_select(struct pp_az *az);
/** ana_type_matches() - whether the capture's event type @t is one that selector @sel names. */
bool ana_type_matches(const struct ana_evtype *t, const struct pp_selector *sel);
void ana_az_release_sels(struct pp_az *az);

/* perfeval.c: perf-prof's --perfeval-cpus/--perfeval-pids (and --sampling-limit) */
int ana_perfeval_init(struct pp_az *az);
/* Return: false once --sampling-limit ended the analysis (the event is not delivered). */
bool ana_perfeval_event(struct pp_az *az, const struct pp_event *ev);
void ana_perfeval_tick(struct pp_az *az, uint64_t t);
void ana_perfeval_free(struct pp_az *az);

/* evexpr.c */
int ana_filter_compile(const struct ana_evtype *t, const char *text, struct pp_expr **out);
bool ana_filter_pass(struct ana_session *s, const struct pp_expr *f, const struct pp_event *ev);

/* evtype.c */
int ana_evtype_add(struct ana_session *s, const struct ppf_event_desc *d);
void ana_evtype_free(struct ana_evtype *t);

/* evformat.c: the checks of a stored format text before libtraceevent parses it */
/*
 * ana_format_unsafe() - why libtraceevent must not parse the tracefs format text
 * @format (from a capture or a state: its parser trusts the text), in @why; NULL when
 * it looks as the kernel writes formats (every format of a tracefs passes; unit suite
 * evformat).
 */
const char *ana_format_unsafe(const char *format, char *why, size_t sz);
/*
 * ana_print_fmt_unsafe() - why libtraceevent must not read the print fmt of @format
 * (which passed ana_format_unsafe()), in @why ("names ...", "has ...", "divides ..."):
 * the fields stay, the events are printed without it; NULL for every format of a
 * tracefs that libtraceevent reads (unit suite evformat).  *@kernel: the print fmt has a
 * shape the kernel writes and libtraceevent fails anyway (a statement expression, a tab
 * in a string), so a refusal is no news.
 */
const char *ana_print_fmt_unsafe(const char *format, char *why, size_t sz, bool *kernel);

/* fastfmt.c: tracepoint print formats compiled for speed */
int ana_fastfmt_compile(const struct tep_event *ev, struct ana_fastfmt **out);
bool ana_fastfmt_print(struct ana_session *s, const struct ana_fastfmt *f, const uint8_t *raw,
		       uint32_t raw_sz, struct pp_buf *out);
void ana_fastfmt_free(struct ana_fastfmt *f);

/* framecache.c: the names a frame folded into (print.c), by what resolving it depends on */
struct ana_fcache_id {
	uint64_t w[PP_FRAME_ID_WORDS];	/* pp_symtab_frame_id() */
	const void *inl;		/* the inline resolver, or NULL */
	uint32_t mode;			/* the kind of name, whether a return address */
};

struct ana_fcache_val {
	uint32_t nr;
	bool sets_user_seen;		/* the frame was the stack's first named user frame */
	const char **names;		/* innermost first, owned by the cache */
	bool *inlined;
	/* the names as interned by the flame tree of serial memo_serial (print.c), or NULL */
	uint64_t memo_serial;
	const char **memo;
};

/**
 * ana_stack_flame() - the node of @ev's stack in @fg: the path ana_stack_folded_key() would
 * give pp_flame_path(), without the string (the frame cache's names interned once per tree).
 */
struct pp_flame_node *ana_stack_flame(struct ana_session *s, const struct pp_event *ev,
				      struct pp_inl *inl, enum ana_frame_key key, struct pp_flame *fg);

/** ana_fcache_get() - the names cached for @id in @s, or NULL. */
struct ana_fcache_val *ana_fcache_get(struct ana_session *s, const struct ana_fcache_id *id);
/** ana_fcache_put() - keep a copy of @names (@nr, each @inlined or not) for @id in @s. */
void ana_fcache_put(struct ana_session *s, const struct ana_fcache_id *id,
		    const char *const *names, const bool *inlined, uint32_t nr, bool sets_user_seen);
/** ana_fcache_free() - drop what @s cached. */
void ana_fcache_free(struct ana_session *s);

/* inlprefetch.c: the DWARF of the capture's binaries opened by a thread of its own */
struct ana_inl_prefetch;
/**
 * ana_inl_prefetch_start() - start opening the debug files of @s's binaries (those its
 * capture's USYMS segments name, for each inline resolver of @s) for a parallel replay
 * Return: the thread to join, or NULL (no inline frames asked for, a stream).
 */
struct ana_inl_prefetch *ana_inl_prefetch_start(struct ana_session *s);
/**
 * ana_inl_prefetch_settle() - ask @p to inflate no more of the DWARF ahead of the lookups
 * (it still opens the files): the parts are starting, and want every CPU; NULL is fine
 */
void ana_inl_prefetch_settle(struct ana_inl_prefetch *p);
/**
 * ana_inl_prefetch_join() - wait for it (it opens no other binary once asked) and free it;
 * NULL is fine.
 */
void ana_inl_prefetch_join(struct ana_inl_prefetch *p);
/**
 * ana_inl_prefetch_early() - the inline resolvers @s's analyzers will ask for, made now,
 * and a prefetch started for them in @s->inl_prefetch (the caller joins it before it
 * frees @s)
 *
 * Called once the capture is open, before its metadata is read, when the analysis may
 * run in parts (-j N): opening libc's DWARF and inflating what its lookups need is more
 * than a part's first libc frame should wait for.  Nothing for a stream, a foreign file
 * converted as it is read, or analyzers that show no inline frames (a perf.data converted
 * whole is read from its converted capture).  (-j 1 opens each file at its first frame:
 * the thread would read the binaries' tables a second time and open files no frame asks
 * for, 7-19 ms more CPU for 7% less wall time.)
 */
void ana_inl_prefetch_early(struct ana_session *s);

/* output.c */
int ana_out_open(struct ana_out *o, const char *path, const char *format, char *err, size_t errsz);
void ana_out_close(struct ana_out *o);

/* evhelp.c: `ANALYZER -e EVENTS help`: the stored formats and a command template */
int ana_event_help(struct ana_session *s, struct pp_az *az);

/* @t_ns lies in the analysed range (--time START,END; either end may be open). */
static inline bool ana_in_range(const struct ana_session *s, uint64_t t_ns)
{
	return !(s->range_start_ns && t_ns < s->range_start_ns) &&
	       !(s->range_end_ns && t_ns > s->range_end_ns);
}

#endif
