/* SPDX-License-Identifier: MIT */
/*
 * python/python.h - the Python engine: Python over the events of a replay (CPython inside).
 *
 * An ana_py is the embedded interpreter running one user script; the
 * script's functions are called with pp.Event objects (lazy views of one
 * event: fields are decoded when read) or with integers.  The same Event
 * type backs the `pp` module that a plain python3 imports (build/python/
 * pp.so: pp.open(FILE).events()).  Built without Python (NO_PYTHON=1) every
 * call is a static inline stub answering PP_ENOTSUP, so callers need no
 * #ifdef.  Analyzers use this header through analyze/analyzer.h.
 * Not here: which functions to call when (the python analyzer decides).
 */
#ifndef PP_ANALYZE_PYTHON_H
#define PP_ANALYZE_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct ana_session;
struct ana_evtype;
struct pp_event;
struct ana_py;		/* an interpreter running one script */
struct ana_py_fn;	/* a callable of the script (owned by the ana_py) */
struct ana_py_evtype;	/* how events of one type and alias look in Python (owned by the ana_py) */

/* ana_py_call*() return this when the callback raised (the traceback is in errmsg), */
#define ANA_PY_RAISED 1
/* and this when it raised SystemExit or KeyboardInterrupt: the script wants to stop. */
#define ANA_PY_EXIT 2

#ifdef PP_HAVE_PYTHON

/**
 * ana_py_open() - start Python and load a script
 * @script: a file (x.py or a path), a module name found on sys.path, or "-" for stdin
 * @argc, @argv: sys.argv, argv[0] being the script
 * Return: 0, or a negative code (PP_EUSAGE: the script cannot be loaded; the traceback or
 * reason is in ana_py_errmsg(*out) when *out is set).  Free with ana_py_close().
 */
int ana_py_open(struct ana_session *s, const char *script, int argc, const char **argv,
		struct ana_py **out);
/** ana_py_close() - free the script; the last one also ends the interpreter (NULL is fine). */
void ana_py_close(struct ana_py *py);
/** ana_py_errmsg() - the last error: a Python traceback or a message. Borrowed. */
const char *ana_py_errmsg(const struct ana_py *py);

/**
 * ana_py_file() - the loaded script's file (its module's __file__, absolute when it
 * exists: what perf-prof prints as "Loaded module:"), or NULL (stdin). Borrowed.
 */
const char *ana_py_file(const struct ana_py *py);

/** ana_py_func() - the script's callable @name, or NULL when it has none. */
struct ana_py_fn *ana_py_func(struct ana_py *py, const char *name);

/**
 * ana_py_evtype() - the Python face of events of type @t delivered as @alias
 * (the _event attribute is "sys:alias").
 * Return: owned by @py, or NULL when Python could not make it (ana_py_errmsg() says why).
 */
struct ana_py_evtype *ana_py_evtype(struct ana_py *py, const struct ana_evtype *t,
				    const char *alias);

/**
 * ana_py_call_event() - call @fn(event) with a pp.Event for @ev
 * Return: 0, ANA_PY_RAISED, ANA_PY_EXIT, or a negative code.
 */
int ana_py_call_event(struct ana_py *py, struct ana_py_fn *fn, struct ana_py_evtype *et,
		      const struct pp_event *ev);

/** ana_py_call() - call @fn with @nargs integers. Return: as ana_py_call_event(). */
int ana_py_call(struct ana_py *py, struct ana_py_fn *fn, int nargs, const int64_t *args);

/** ana_py_available() - whether Python support is built in. */
static inline bool ana_py_available(void)
{
	return true;
}

#else /* !PP_HAVE_PYTHON: stubs, uftrace's pattern */

static inline int ana_py_open(struct ana_session *s, const char *script, int argc,
			      const char **argv, struct ana_py **out)
{
	*out = NULL;
	return PP_ENOTSUP;
}
static inline void ana_py_close(struct ana_py *py)
{
}
static inline const char *ana_py_errmsg(const struct ana_py *py)
{
	return "Python support is not built in (built with NO_PYTHON=1)";
}
static inline const char *ana_py_file(const struct ana_py *py)
{
	return NULL;
}
static inline struct ana_py_fn *ana_py_func(struct ana_py *py, const char *name)
{
	return NULL;
}
static inline struct ana_py_evtype *ana_py_evtype(struct ana_py *py, const struct ana_evtype *t,
						  const char *alias)
{
	return NULL;
}
static inline int ana_py_call_event(struct ana_py *py, struct ana_py_fn *fn,
				    struct ana_py_evtype *et, const struct pp_event *ev)
{
	return PP_ENOTSUP;
}
static inline int ana_py_call(struct ana_py *py, struct ana_py_fn *fn, int nargs,
			      const int64_t *args)
{
	return PP_ENOTSUP;
}
static inline bool ana_py_available(void)
{
	return false;
}

#endif
#endif
