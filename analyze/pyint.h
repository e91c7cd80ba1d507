/* SPDX-License-Identifier: MIT */
/*
 * pyint.h - private parts of the Python service (analyze/py*.c).
 *
 * pp.Event is a variable-size object holding one event's sample fields and
 * a copy of its call stack and raw bytes (one allocation, pymalloc-sized for
 * tracepoints), so a script may keep events past the callback.  Its fields
 * are decoded on access through the _EventType it points to: a dict from
 * attribute name to field number, shared by every event of one type and
 * alias.  The _EventType holds a reference to whatever owns the session
 * (the pp.open() iterator), so events stay valid as long as they live.
 * Not here: the analyzer (analyzers/python.c).
 */
#ifndef PP_ANALYZE_PYINT_H
#define PP_ANALYZE_PYINT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "analyze/internal.h"

typedef struct {
	PyObject_HEAD
	PyObject *fieldmap;		/* str -> int: >= 0 a field, < 0 a PYF_* attribute */
	PyObject *keys;			/* tuple of str, in perf-prof's order */
	PyObject *event_name;		/* str "sys:alias" */
	const struct ana_evtype *t;
	struct ana_session *s;
	PyObject *owner;		/* keeps the session alive, or NULL (embedded) */
} PpEventType;

typedef struct {
	PyObject_VAR_HEAD
	PpEventType *et;
	uint64_t time_ns, period, ip, addr;
	uint32_t cpu, pid, tid, raw_sz, nr_stack, flags;
	uint64_t data[];		/* nr_stack frames, then raw_sz bytes */
} PpEvent;

extern PyTypeObject PpEvent_Type;
extern PyTypeObject PpEventType_Type;

/* pyevent.c */
int pyevent_ready(void);
PpEventType *pyevtype_new(struct ana_session *s, const struct ana_evtype *t, const char *alias,
			  PyObject *owner);
PyObject *pyevent_new(PpEventType *et, const struct pp_event *ev);

/* pymod.c: the pp module (embedded: registered before Py_Initialize) */
PyMODINIT_FUNC PyInit_pp(void);

#endif
