/* SPDX-License-Identifier: MIT */
/*
 * import/impchild.h - a conversion run in a forked child, its capture handed to the parent
 * a segment at a time through shared memory.
 *
 * A converter that hands the file to a library which may crash on hostile input
 * (libtracecmd, libtraceevent: trace.dat) runs in a child of its own: a crash kills the
 * child, and the parent says so in one line instead of dying.  The child writes the
 * capture as ana_import_stream()'s thread would (opts.in_memory), each piece copied into
 * one of a few slots of a shared mapping and announced through a pipe; the parent queues
 * the slot where it lies (ppf_segq_push_lent()) and gives it back through a second pipe
 * when the reader has decoded it.  At the end the child sends its code, message and
 * struct ana_import_info; the parent says the info's lines.  The parent trusts none of it
 * beyond its bounds: sizes are checked against the slots, strings ended.
 * Not here: the queue (format/segq.c), the converters (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_IMPCHILD_H
#define PP_ANALYZE_IMPORT_IMPCHILD_H

#include <stddef.h>

struct ana_importer;
struct ana_import_child;
struct ppf_segq;

/**
 * ana_import_child_setup() - a forked child that may crash makes ready to: stdout and
 * stderr to /dev/null (a sanitizer's reports too), no core, not dumpable, its fatal
 * signals at their defaults so that a crash kills it by that signal (tdprobe.c too)
 */
void ana_import_child_setup(void);

/**
 * ana_import_child_start() - fork the child converting @path with @imp into @q
 * @path: the file (not "-")
 * @imp:  its importer, with @died set
 * @q:    the queue; takes over the writer's reference (ppf_segq_close() and unref at the
 *        end, from ana_import_child_relay())
 * @out:  receives the child
 * Return: 0, or a negative code with the message in @err (then @q is left untouched).
 */
int ana_import_child_start(const char *path, const struct ana_importer *imp,
			   struct ppf_segq *q, struct ana_import_child **out, char *err,
			   size_t errsz);

/**
 * ana_import_child_relay() - the parent's side, on a thread of its own: queue each piece
 * the child announces until its end, then say its lines (no error) and close @q with its
 * code and message (@err, "cannot import 'PATH' (NAME): ..." as ana_import_to()'s).  A
 * child that ends without its end (a crash, the 20 s alarm of its header parse) closes @q
 * with PP_EBAD_RECORD and the importer's words for it (@died).  The child is reaped.
 * Return: the code @q was closed with.
 */
int ana_import_child_relay(struct ana_import_child *c, char *err, size_t errsz);

/** ana_import_child_free() - after the relay returned: mapping and pipes freed; NULL is fine */
void ana_import_child_free(struct ana_import_child *c);

#endif
