/* SPDX-License-Identifier: MIT */
/*
 * state/state.h - mergeable analyzer state: the file (docs/state-format.md),
 * writing it after a replay, merging several, printing one.
 *
 * A state is what an aggregating analyzer has at the end of a replay, as data:
 * which analyzer and options made it (IDENT), the capture ranges it covers
 * (SOURCES), what its report needs of those captures - host keys, event
 * formats, syscall names, task names, losses, clock (CONTEXT) - and the
 * analyzer's own aggregate (ANALYZER, written and read by the analyzer's
 * state_write/state_read hooks).  `pp-analyze FILE ANALYZER ... --state-out S`
 * writes one instead of printing the report; `pp-analyze merge` adds states
 * of the same analyzer and options; `pp-analyze report` prints a state by
 * building a session from its CONTEXT, an instance from its IDENT, reading the
 * sections into it and calling the analyzer's own ->finish().
 * The edges of capture ranges that state_read and state_join share: edges.c.
 * Not here: the command lines (analyze/cmd-state.c, cmd-analyze.c), the instance
 * built on a merge (analyze/merge.c).
 */
#ifndef PP_ANALYZE_STATE_H
#define PP_ANALYZE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analyzer.h"
#include "common/u64map.h"

struct ana_session;
struct ana_state;
struct ana_merge;
struct ana_registry;

/**
 * ana_state_az_new() - make @az, just parsed, write a state at the end of its replay,
 * to az->opt.state_out ("-": standard output)
 *
 * Refuses an analyzer without state hooks (naming those of @reg that have one), and -i
 * for one whose -i resets its report (a state is the whole range; the count engine keeps
 * its rounds).
 * Return: 0, or PP_EUSAGE/PP_ENOTSUP with a one-line message in @err.
 */
int ana_state_az_new(struct pp_az *az, const struct ana_registry *reg, char *err, size_t errsz);

/**
 * ana_state_az_new_mem() - make @az, an instance of an analyzer with a state, record one
 * whose file bytes are appended to @sink at the end of the replay (a part of a parallel
 * replay: the caller checked that nothing, -i included, prints within its range)
 */
void ana_state_az_new_mem(struct pp_az *az, struct pp_buf *sink);

/**
 * ana_state_from_mem() - ana_state_load() of the @size bytes at @data, named @name in
 * messages (the state of a worker of a parallel replay)
 * Return: 0, or a negative code with "NAME: what is wrong" in @err.
 */
int ana_state_from_mem(const void *data, size_t size, const char *name, struct ana_state **out,
		       char *err, size_t errsz);

/** ana_state_az_free() - what ana_state_az_new() or ana_merge_bind() attached to @az. */
void ana_state_az_free(struct pp_az *az);

/**
 * ana_state_save() - at the end of the replay, in place of ->finish(): the analyzer's
 * state_write, the session's context and source, written to az->opt.state_out
 * (through a temporary file renamed into place)
 * Return: 0, or an exit status (1) after printing why.
 */
int ana_state_save(struct pp_az *az);

/**
 * ana_state_argv_canon() - @az's command line in a canonical form, as parsed: its name,
 * then "--NAME=VALUE" (--NAME, --no-NAME for flags) for every option that differs from
 * its default, in table order (times in ns), then "--" and the positional arguments.
 * -o, --format, --state-out, --time, -q, --order, --heatmap and --flame-graph are left
 * out: they change no aggregate (merge and report write no side files).  Parsed again it gives the same instance; two instances that mean the
 * same give the same line (`--than 1ms` is `--than 1000us`).
 * Return: a NULL-terminated array of new strings, the caller's; *@argc set.
 */
char **ana_state_argv_canon(const struct pp_az *az, int *argc);

/** ana_state_argv_str() - argv[1..argc) as one line, words quoted as a shell needs. Return: new. */
char *ana_state_argv_str(const char *const *argv, int argc);

/** ana_state_options() - ana_state_argv_str() of ana_state_argv_canon(). Return: new. */
char *ana_state_options(const struct pp_az *az);

/**
 * ana_state_load() - read and check a state file ("-": standard input)
 * Return: 0, or a negative code with "'PATH': what is wrong" in @err.
 */
int ana_state_load(const char *path, struct ana_state **out, char *err, size_t errsz);
void ana_state_free(struct ana_state *st);
/** ana_state_path() - the file a state was loaded from ("(state)" when none). Borrowed. */
const char *ana_state_path(const struct ana_state *st);

/**
 * ana_state_argv() - the instance's canonical command line (ana_state_argv_canon(),
 * argv[0] the analyzer), NULL-terminated. Borrowed.
 */
const char *const *ana_state_argv(const struct ana_state *st, int *argc);

/**
 * ana_merge_new() - the merge of @nr loaded states (taken, freed with the merge):
 * the same analyzer, state version, options and events, no capture time twice; their
 * analyzer is found in @reg (NULL: none is), which the merge's session gets too
 * Return: 0, or PP_EUSAGE with a one-line message naming the two files in @err.
 */
int ana_merge_new(const struct ana_registry *reg, struct ana_state **v, size_t nr,
		  struct ana_merge **out, char *err, size_t errsz);
void ana_merge_free(struct ana_merge *m);

/**
 * ana_merge_session() - a session holding the merged CONTEXT: what ->init() and
 * the report of an analyzer ask of a capture
 * Return: borrowed, owned by the merge.
 */
struct ana_session *ana_merge_session(struct ana_merge *m);

/**
 * ana_merge_load() - @az (parsed from ana_state_argv(), bound to the merge's session):
 * match its events, ->init(), check that its events are the states', read every
 * state's section into it, join the adjacent ranges of each capture
 * Return: 0, or an exit status (1, 2) after printing why.
 */
int ana_merge_load(struct ana_merge *m, struct pp_az *az);

/** ana_merge_write() - the merged state, to @path ("-": standard output). Return: 0 or 1. */
int ana_merge_write(struct ana_merge *m, struct pp_az *az, const char *path);

/** ana_merge_report() - the analyzer's report of the merged state (->finish()). Return: exit status. */
int ana_merge_report(struct ana_merge *m, struct pp_az *az);

/*
 * A state's edges (edges.c): per capture range (source id), what the range left
 * open at its ends, read by state_read and completed by state_join across two
 * adjacent ranges.  struct ana_edges is the table any kind of edge lives in;
 * struct ana_edge is the common kind - the first event of each key in the range
 * (heads) and what each key left waiting at its end (tails).
 */

/**
 * struct ana_edges - a state read's edges, one per source id
 * @v:  per source id, the analyzer's edge of that range (owned by the table), or NULL
 * @nr: the length of @v
 */
struct ana_edges {
	void **v;
	size_t nr;
};

/** ana_edges_get() - the edge of source @id. Return: borrowed, or NULL when none was read. */
void *ana_edges_get(const struct ana_edges *t, unsigned id);

/**
 * ana_edges_read() - in state_read(), a SOURCES list of edges: a count (each source
 * at least @min_sz bytes), then per source its edge, which @new_fn makes and @read_fn fills
 * Return: 0, or the wire's error (a source read twice is PP_EBAD_RECORD).
 */
int ana_edges_read(struct pp_az *az, struct pp_wire *in, struct ana_edges *t, size_t min_sz,
		   void *(*new_fn)(void),
		   int (*read_fn)(void *arg, struct pp_wire *in, void *edge), void *arg);

/**
 * ana_edges_join() - in state_join(), ranges @before and @after made one: @join_fn gets
 * @before's edge @a, which stays in the table as the joined range's, and @after's @b,
 * taken out of the table, to complete from @a and free (@new_fn makes a missing one)
 */
void ana_edges_join(struct ana_edges *t, unsigned before, unsigned after, void *(*new_fn)(void),
		    void (*join_fn)(void *arg, void *a, void *b), void *arg);

/** ana_edges_release() - free every edge with @free_fn, and the table. */
void ana_edges_release(struct ana_edges *t, void (*free_fn)(void *arg, void *edge), void *arg);

/**
 * struct ana_edge - a range's heads and tails, by key (a thread, a CPU, a request)
 * @lost:   a loss in the range dropped the tails left before it (and ended its heads)
 * @end_ns: the range's end, when the analyzer notes it (a join keeps the later)
 * @heads:  key -> the key's first event in the range (the analyzer's, malloc'd)
 * @tails:  key -> what the key left waiting at the range's end (the analyzer's, malloc'd)
 */
struct ana_edge {
	bool lost;
	uint64_t end_ns;
	struct pp_u64map heads;
	struct pp_u64map tails;
};

/** ana_edge_of() - the edge of source @id. Return: borrowed; an empty one when none was read. */
const struct ana_edge *ana_edge_of(const struct ana_edges *t, unsigned id);

/**
 * ana_edge_read() - ana_edges_read() of struct ana_edge edges
 * @read_fn: reads one source's edge into @e (made empty)
 * Return: 0, or the wire's error.
 */
int ana_edge_read(struct pp_az *az, struct pp_wire *in, struct ana_edges *t, size_t min_sz,
		  int (*read_fn)(struct pp_wire *in, struct ana_edge *e));

/**
 * ana_edge_meet_fn - in ana_edge_join(), key @key's head @head of the later range
 * meets @tail, what the earlier range left waiting for the key (NULL: nothing),
 * as one replay would have had them meet (@tail may be used up).  Both stay the
 * join's: it keeps or frees them.
 * Return: true when the head still continues what came before the earlier range
 * (it becomes the joined range's head of @key, unless the earlier range has one
 * or lost events).
 */
typedef bool (*ana_edge_meet_fn)(void *arg, uint64_t key, const void *head, void *tail);

/**
 * ana_edge_join() - ana_edges_join() of struct ana_edge edges: each head of @after
 * meets @before's tail of its key (@meet); a loss in @after drops @before's tails;
 * @after's tails become the joined range's, and the later end_ns its end
 */
void ana_edge_join(struct ana_edges *t, unsigned before, unsigned after, ana_edge_meet_fn meet,
		   void *arg);

/** ana_edge_release() - ana_edges_release() of struct ana_edge edges (heads and tails freed). */
void ana_edge_release(struct ana_edges *t);

#endif
