/* SPDX-License-Identifier: MIT */
/*
 * live.h - the parts of pp's live mode (front/live.c): the two programs'
 * command lines made from pp's (live-argv.c) and the --save copy of the
 * stream (save.c).
 *
 * Command lines are built in a growing, NULL-terminated array of borrowed
 * words (struct front_argv): no size is guessed in advance.
 * Not here: the processes, signals and the loop between them (live.c).
 */
#ifndef PP_FRONT_LIVE_H
#define PP_FRONT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/*
 * A command line being built: @v[0..nr) are its words, @v[nr] is NULL once a
 * word was pushed.  The words are borrowed; the array is the owner's.
 */
struct front_argv {
	const char **v;
	size_t nr, cap;
};

/** front_argv_push() - append @word (borrowed), keeping the array NULL-terminated. */
void front_argv_push(struct front_argv *a, const char *word);
/** front_argv_release() - free the array (not the words); @a is empty again. */
void front_argv_release(struct front_argv *a);

/*
 * `pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND...]` taken apart, and the two
 * programs' command lines made from it.  Words are borrowed from pp's argv,
 * but --for's, which @for_arg owns.
 */
struct front_live_argv {
	const char *save;		/* --save FILE, or NULL */
	struct front_argv words;	/* ANALYZER OPTIONS (python: [-- SCRIPT ARGS]) */
	const char *const *cmd;		/* the workload after "--" */
	int nr_cmd;			/* its words; 0: none (system-wide, or -p/-t) */
	struct pp_buf for_arg;		/* @words as one quoted string: --for's */
	struct front_argv rec;		/* pp-record's command line */
	struct front_argv ana;		/* pp-analyze's command line */
};

/**
 * front_live_argv_init() - split pp's words and build the two command lines
 * @la: what to fill
 * @argc, @argv: the words after "pp", the analyzer's name first
 * Return: nothing; @la holds borrowed words of @argv (see the struct) until
 * front_live_argv_release().
 */
void front_live_argv_init(struct front_live_argv *la, int argc, const char **argv);
/** front_live_argv_release() - free what front_live_argv_init() allocated. */
void front_live_argv_release(struct front_live_argv *la);

/*
 * --save: the stream's segments go into a file through a capture writer, which
 * indexes them and closes the file with an index and a trailer - a saved live
 * session is as complete as a recorded file.  A segment cut off by the end of
 * the stream is left out.  Errors are said once (pp_err) and set @failed.
 */
struct front_saver {
	const char *path;
	struct ppf_writer *w;
	uint8_t *buf;			/* the file header, then one segment at a time */
	size_t len, cap, need;
	bool have_hdr;
	bool failed;
};

/** front_saver_init() - a saver that writes @path (borrowed) once the stream begins. */
void front_saver_init(struct front_saver *sv, const char *path);
/** front_saver_add() - @n more bytes of the stream, in the order read. */
void front_saver_add(struct front_saver *sv, const uint8_t *p, size_t n);
/** front_saver_close() - the end of the stream: finish the file, free the buffer. */
void front_saver_close(struct front_saver *sv);

#endif
