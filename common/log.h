/* SPDX-License-Identifier: MIT */
/*
 * log.h - messages on stderr, the verbosity level, and the fatal exits.
 *
 * Messages follow git: lowercase, no trailing period, name the object.
 * pp_die() is for main() and cmd_*() only; library code returns an error.
 * The log level is set once in main() and read everywhere else.
 */
#ifndef PP_COMMON_LOG_H
#define PP_COMMON_LOG_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define PP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PP_NORETURN __attribute__((noreturn))
#define PP_MUST_CHECK __attribute__((warn_unused_result))
#define PP_UNUSED __attribute__((unused))
#define PP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * -qq: errors only; -q: warnings and errors (what changes a result is never
 * hidden by one -q); default: information too; -v, -vv: more.
 */
enum pp_log_level {
	PP_LOG_SILENT = -2,
	PP_LOG_QUIET = -1,
	PP_LOG_INFO = 0,
	PP_LOG_VERBOSE = 1,
	PP_LOG_DEBUG = 2,
};

/* Set once by main(); read-only afterwards. */
extern int pp_log_level;
/*
 * The one mutable global besides the log level: set by a program's signal
 * handlers (SIGINT, SIGTERM ...), polled by its main loop.
 */
extern volatile sig_atomic_t pp_stop;
/*
 * Non-zero: this thread's messages (pp_err() to pp_debug()) are dropped; pp_die() still
 * prints.  A parallel replay's part opening on a worker thread says nothing the one pass
 * has not said.
 */
extern _Thread_local int pp_log_mute;
/* The program name used as the message prefix ("pp-record"). */
extern const char *pp_progname;

/** pp_err() - "PROG: error: MSG" on stderr. */
void pp_err(const char *fmt, ...) PP_PRINTF(1, 2);
/** pp_warn() - "PROG: warning: MSG" on stderr. */
void pp_warn(const char *fmt, ...) PP_PRINTF(1, 2);
/** pp_info() - "PROG: MSG" on stderr unless quiet. */
void pp_info(const char *fmt, ...) PP_PRINTF(1, 2);
/**
 * pp_note() - "PROG: MSG" on stderr, an answer to an explicit request (an option's -v
 * note): printed unless -qq, as a warning is, without the "warning: " prefix
 */
void pp_note(const char *fmt, ...) PP_PRINTF(1, 2);
/** pp_debug() - "PROG: MSG" on stderr when the level is >= @level. */
void pp_debug(int level, const char *fmt, ...) PP_PRINTF(2, 3);
/** pp_die() - print "PROG: error: MSG" and exit with status 2.  Commands only. */
void pp_die(const char *fmt, ...) PP_PRINTF(1, 2) PP_NORETURN;

/** PP_BUG_ON() - abort with file and line when an invariant is broken. */
#define PP_BUG_ON(cond)                                                                    \
	do {                                                                               \
		if (cond)                                                                  \
			pp_bug(__FILE__, __LINE__, #cond);                                 \
	} while (0)
void pp_bug(const char *file, int line, const char *what) PP_NORETURN;

/** pp_xmalloc() and friends - allocation that dies on OOM (not for format/). */
void *pp_xmalloc(size_t sz);
void *pp_xcalloc(size_t n, size_t sz);
void *pp_xrealloc(void *p, size_t sz);
/* pp_xgrow() - array @p of *@nr elements of @elsz bytes grown to @want, the new ones zeroed */
void *pp_xgrow(void *p, size_t *nr, size_t want, size_t elsz);
char *pp_xstrdup(const char *s);
char *pp_xstrndup(const char *s, size_t n);
/** pp_xasprintf() - formatted string; the caller owns the result. */
char *pp_xasprintf(const char *fmt, ...) PP_PRINTF(1, 2);
/** pp_xvasprintf() - pp_xasprintf() of a va_list; the caller owns the result. */
char *pp_xvasprintf(const char *fmt, va_list ap) PP_PRINTF(1, 0);

#endif
