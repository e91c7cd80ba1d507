/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - find (or mount) tracefs and read/write its files.
 *
 * Looks for /sys/kernel/tracing, then /sys/kernel/debug/tracing; when
 * neither has an events/ directory it mounts tracefs on /sys/kernel/tracing
 * and remembers that it did (the caller says so; it stays mounted).
 * Not here: parsing formats beyond field names (perf/filter.c), probe syntax (probe/uprobe.c).
 */
#ifndef PP_RECORD_TRACEFS_H
#define PP_RECORD_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_tracefs {
	char *root;			/* "/sys/kernel/tracing", NULL until opened */
	bool mounted;			/* we mounted it */
	int err;			/* the error of the last failed open, 0 if none */
};

/**
 * rec_tracefs_open() - find or mount tracefs
 * @t: zeroed by the caller; filled in
 * @msg: receives a one-line explanation on failure
 * @msg_sz: its size
 *
 * Return: 0 or a negative code (-ENOENT when tracefs is absent and cannot be mounted).
 */
int rec_tracefs_open(struct rec_tracefs *t, char *msg, size_t msg_sz);

/**
 * rec_tracefs_need() - rec_tracefs_open() on first use; nothing once @t is open
 * @t: the session's tracefs, zeroed or already open
 * @msg: receives a one-line explanation on failure
 * @msg_sz: its size
 *
 * Says on stderr (-v) where it mounted tracefs, when it had to.
 * Return: 0 or rec_tracefs_open()'s negative code.
 */
int rec_tracefs_need(struct rec_tracefs *t, char *msg, size_t msg_sz);

/** rec_tracefs_release() - free @t (tracefs stays mounted). */
void rec_tracefs_release(struct rec_tracefs *t);

/**
 * rec_tracefs_read_dup() - read a whole tracefs file
 * @t: the tracefs
 * @rel: path relative to the root ("events/sched/sched_switch/format")
 * @out: receives a NUL-terminated malloc'ed copy
 * Return: 0 or -errno; *@out belongs to the caller.
 */
int rec_tracefs_read_dup(const struct rec_tracefs *t, const char *rel, char **out);

/**
 * rec_tracefs_append() - write @text to a tracefs control file (O_APPEND)
 * Return: 0 or -errno (EINVAL when the kernel refuses the text, ENOENT if absent).
 */
int rec_tracefs_append(const struct rec_tracefs *t, const char *rel, const char *text);

/** rec_tracefs_exists() - whether @rel exists under the root. */
bool rec_tracefs_exists(const struct rec_tracefs *t, const char *rel);

/**
 * rec_tracefs_event_id() - the id of tracepoint @sys:@name
 * Return: 0 or -errno (-ENOENT when the event does not exist).
 */
int rec_tracefs_event_id(const struct rec_tracefs *t, const char *sys, const char *name,
			 uint32_t *id);

/* Called for each tracepoint; non-zero stops the walk and is returned. */
typedef int (*rec_tracefs_event_fn)(const char *sys, const char *name, void *arg);

/**
 * rec_tracefs_for_each_event() - call @fn for every sys:name under events/
 * Return: 0, -errno, or @fn's non-zero value.
 */
int rec_tracefs_for_each_event(const struct rec_tracefs *t, rec_tracefs_event_fn fn, void *arg);

#endif
