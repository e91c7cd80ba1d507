/* SPDX-License-Identifier: MIT */
/*
 * python/internal.h - private parts of the Python engine (analyze/python/).
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
#ifndef PP_ANALYZE_PYTHON_INTERNAL_H
#define PP_ANALYZE_PYTHON_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "analyze/internal.h"
#include "analyze/python/python.h"

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
	/* the event as delivered, its stack and raw pointing into @data (NULL: none), its
	 * type et->t; no match, extra bytes or counter reading */
	struct pp_event ev;
	uint64_t data[];		/* ev.nr_stack frames, then ev.raw_sz bytes */
} PpEvent;

/*
 * The head of each of the module's plain type objects: its name, the struct of its
 * objects, its dealloc, the default flags; the rest is designated after it.
 */
#define ANA_PY_TYPE_HEAD(name, type, dealloc)                                             \
	PyVarObject_HEAD_INIT(NULL, 0)                                                     \
	.tp_name = (name), .tp_basicsize = sizeof(type), .tp_dealloc = (dealloc),          \
	.tp_flags = Py_TPFLAGS_DEFAULT

extern PyTypeObject ana_py_event_type;
extern PyTypeObject ana_py_evtype_type;

/* pyevent.c */
int ana_pyevent_ready(void);
PpEventType *ana_pyevtype_new(struct ana_session *s, const struct ana_evtype *t, const char *alias,
			  PyObject *owner);
PyObject *ana_pyevent_new(PpEventType *et, const struct pp_event *ev);

/* pymod.c: the pp module (embedded: registered before Py_Initialize) */
PyMODINIT_FUNC PyInit_pp(void);
/**
 * ana_py_set_registry() - the analyzers the sessions of the pp module @pp may name as
 * events (pp.open(path).events('profile/-F 99/')): the embedding pp-analyze's
 */
void ana_py_set_registry(PyObject *pp, const struct ana_registry *registry);

/* pyfleet.c: pp.fleet (fleet.py) into the pp module @pp. Return: 0, or -1 with an exception. */
int ana_py_fleet_add(PyObject *pp);

#endif
