/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.h - struct pp_flame, a tree of call paths with counts, written as
 * folded stacks or as an interactive SVG flame graph.
 *
 * A path is "root;frame;...;leaf" (Brendan Gregg's folded form, the first
 * element usually the command name).  Each node counts the weight of the paths
 * that END at it (self); pp_flame_sum() computes the inclusive totals.  Weights
 * are samples, or nanoseconds for off-CPU graphs: the unit is only a label.
 * Output is deterministic: children are visited in name order.
 * The SVG is self-contained (inline JavaScript, no external files): hovering a
 * frame shows its name, weight and share; clicking zooms into it; "Reset Zoom"
 * and a click on the root return.  Frames narrower than 0.1 pixel are not
 * drawn (they would be invisible), as flamegraph.pl does.
 * Not here: symbolization or reading stacks from events (the analyzers do that).
 */
#ifndef PP_COMMON_FLAMEGRAPH_H
#define PP_COMMON_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pp_flame;

struct pp_flame_node {
	const char *name;		/* interned, owned by the flame ("" for the root) */
	struct pp_flame_node *parent;	/* NULL for the root */
	struct pp_flame_node *child;	/* first child (insertion order until sorted) */
	struct pp_flame_node *next;	/* next sibling */
	struct pp_flame_node *hnext;	/* hash chain (private) */
	uint64_t self;			/* weight of the paths ending here */
	uint64_t total;			/* self + children, valid after pp_flame_sum() */
	uint32_t depth;			/* root 0 */
};

/** pp_flame_new() - an empty tree. Return: owned by the caller (pp_flame_free). */
struct pp_flame *pp_flame_new(void);
/** pp_flame_free() - free the tree, its nodes and names; NULL is a no-op. */
void pp_flame_free(struct pp_flame *fg);
/** pp_flame_reset() - forget every path (per-interval graphs); keeps the memory. */
void pp_flame_reset(struct pp_flame *fg);

/** pp_flame_root() - the root node (no name). Borrowed. */
struct pp_flame_node *pp_flame_root(struct pp_flame *fg);

/**
 * pp_flame_child() - the child of @parent named @name (@len bytes), created if missing
 * Return: the node, borrowed until pp_flame_free()/pp_flame_reset().
 */
struct pp_flame_node *pp_flame_child(struct pp_flame *fg, struct pp_flame_node *parent,
				     const char *name, size_t len);

/**
 * pp_flame_intern() - this tree's one copy of @name (@len bytes), for
 * pp_flame_child_interned(); valid until pp_flame_free()/pp_flame_reset().
 */
const char *pp_flame_intern(struct pp_flame *fg, const char *name, size_t len);

/** pp_flame_child_interned() - pp_flame_child() of a name pp_flame_intern() of @fg gave. */
struct pp_flame_node *pp_flame_child_interned(struct pp_flame *fg, struct pp_flame_node *parent,
					      const char *in);

/**
 * pp_flame_serial() - a number no other tree of the process has, nor this one before its
 * last reset: callers that keep interned names of a tree check it before using them.
 */
uint64_t pp_flame_serial(const struct pp_flame *fg);

/**
 * pp_flame_path() - the node of folded path @folded ("comm;a;b"), created if missing
 * Empty elements are skipped.  Return: the last node (the root for an empty path).
 */
struct pp_flame_node *pp_flame_path(struct pp_flame *fg, const char *folded);

/** pp_flame_add() - add @weight to the paths ending at @node. */
static inline void pp_flame_add(struct pp_flame_node *node, uint64_t weight)
{
	node->self += weight;
}

/**
 * pp_flame_add_folded_line() - add one line "a;b;c COUNT" of folded text
 * Return: 0, or PP_ESYNTAX when the line has no trailing count.
 */
int pp_flame_add_folded_line(struct pp_flame *fg, const char *line);

struct pp_buf;
/** pp_flame_node_path() - append the folded path of @n ("a;b;c", the root excluded) to @out. */
void pp_flame_node_path(const struct pp_flame_node *n, struct pp_buf *out);

/** pp_flame_sum() - compute every node's total; returns the root's total. */
uint64_t pp_flame_sum(struct pp_flame *fg);

/** pp_flame_nr_nodes() - nodes in the tree, the root excluded. */
size_t pp_flame_nr_nodes(const struct pp_flame *fg);

/**
 * pp_flame_walk() - visit the nodes depth first, parents before children, children
 * in name order (the root is not visited); stop when @fn returns non-zero.
 * Return: what @fn returned last (0 when the walk completed).
 */
int pp_flame_walk(struct pp_flame *fg, int (*fn)(struct pp_flame_node *n, void *arg), void *arg);

/**
 * pp_flame_write_folded() - one line "path count" per node with self weight
 * @prefix: put before each line (perf-prof's "YYYY-MM-DD;HH:MM:SS;"), or NULL
 */
void pp_flame_write_folded(struct pp_flame *fg, FILE *fp, const char *prefix);

struct pp_flame_svg_opts {
	const char *title;		/* "Flame Graph" when NULL */
	const char *subtitle;		/* e.g. the capture, or NULL */
	const char *unit;		/* "samples" when NULL; "ns" is shown as time */
	int width;			/* pixels, 1200 when 0 */
};

/** pp_flame_write_svg() - the interactive SVG flame graph (calls pp_flame_sum()). */
void pp_flame_write_svg(struct pp_flame *fg, FILE *fp, const struct pp_flame_svg_opts *o);

/** pp_flame_path_is_svg() - whether @path names an SVG file (ends in ".svg", any case). */
bool pp_flame_path_is_svg(const char *path);

/**
 * pp_flame_write_file() - write @fg to @path: an SVG when it ends in .svg, else folded text
 * @path: a file name; "-" is standard output
 * @err: a one-line message on failure
 * Return: 0 or -errno.
 */
int pp_flame_write_file(struct pp_flame *fg, const char *path, const struct pp_flame_svg_opts *o,
			char *err, size_t errsz);

#endif
