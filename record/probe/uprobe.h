/* SPDX-License-Identifier: MIT */
/*
 * uprobe.h - dynamic probes (uprobes, uretprobes, kprobes, kretprobes) made through tracefs.
 *
 * Probes live in a tracefs group named pp_<pid of pp-record>, so a probe left
 * behind by a recorder that was killed can be recognised (its pid is dead)
 * and removed at the next start.  A uprobe on a symbol is resolved to a file
 * offset with libelf; a name that is not unique is refused with the list of
 * candidates.
 * Not here: opening the resulting tracepoint (evsel.c, evopen.c).
 */
#ifndef PP_RECORD_UPROBE_H
#define PP_RECORD_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_tracefs;
struct pp_selector;

struct rec_probe {
	char *group;			/* "pp_1234" */
	char *event;			/* "pp_probe_target", "pp_probe_target__return" */
	bool kprobe;			/* lives in kprobe_events (else uprobe_events) */
};

struct rec_probes {
	struct rec_probe *v;
	size_t nr;
};

/**
 * rec_uprobe_resolve() - the file offset of function @func in ELF file @path
 * @path: the binary
 * @func: the symbol name
 * @off: receives the file offset
 * @msg: receives a one-line message on failure (candidates when not unique)
 * @msg_sz: its size
 *
 * Return: 0, PP_ENOT_FOUND, PP_EAMBIGUOUS, PP_EBAD_MAGIC (not ELF) or -errno.
 */
int rec_uprobe_resolve(const char *path, const char *func, uint64_t *off, char *msg,
		       size_t msg_sz);

/**
 * rec_uprobe_find_binary_dup() - an absolute path for the BINARY of a uprobe
 *
 * Takes the path as given when it exists, else searches $PATH and the usual
 * library directories for a bare name.
 * Return: a malloc'ed path (the caller frees it), or NULL when not found.
 */
char *rec_uprobe_find_binary_dup(const char *binary);

/**
 * rec_probe_create() - create the probe a selector asks for
 * @t: tracefs (opened)
 * @p: the probes made so far; the new one is appended before it is written,
 *     so rec_probes_remove() cleans it whatever happens next
 * @sel: a PP_SEL_UPROBE/URETPROBE/KPROBE/KRETPROBE selector
 * @idx: the created probe's index in @p
 * @msg: receives a one-line message on failure
 * @msg_sz: its size
 *
 * Return: 0, PP_ENOTSUP (no kprobe/uprobe support), PP_ENOT_FOUND, PP_EAMBIGUOUS or -errno.
 */
int rec_probe_create(const struct rec_tracefs *t, struct rec_probes *p,
		     const struct pp_selector *sel, size_t *idx, char *msg, size_t msg_sz);

/**
 * rec_probes_remove() - remove every probe in @p from tracefs and empty @p
 * Return: the number that could not be removed.
 */
int rec_probes_remove(const struct rec_tracefs *t, struct rec_probes *p);

/**
 * rec_probes_clean_stale() - remove probes of groups pp_<pid> whose pid is dead
 * Return: the number of probes removed, or -errno.
 */
int rec_probes_clean_stale(const struct rec_tracefs *t);

#endif
