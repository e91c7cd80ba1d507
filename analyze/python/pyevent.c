/* SPDX-License-Identifier: MIT */
/*
 * pyevent.c - pp.Event, perf-prof's PerfEvent: one event as a lazy Python object.
 *
 * Attributes: _pid _tid _time _cpu _period _realtime, _ip _addr (not for
 * tracepoints), common_* and every field (int; str for char arrays; bytes
 * for other byte arrays; a list of int for other arrays), _callchain (list
 * of {'addr','symbol','offset','kernel','dso'}) and _event ("sys:alias").
 * Attribute and [] access, get(), in, len(), keys()/values()/items(),
 * iteration over (name, value) pairs, print(timestamp=True, callchain=True) in the
 * trace layout, to_dict(), str() (the trace line), repr(), hash().
 * Nothing is decoded before it is asked for: a handler that reads one
 * field pays one dict lookup and one integer conversion.
 */
#ifdef PP_HAVE_PYTHON
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/python/internal.h"
#include "common/buf.h"
#include "common/expr.h"
#include "common/log.h"

enum {
	PYF_PID = -1, PYF_TID = -2, PYF_TIME = -3, PYF_CPU = -4, PYF_PERIOD = -5,
	PYF_REALTIME = -6, PYF_CALLCHAIN = -7, PYF_EVENT = -8, PYF_IP = -9, PYF_ADDR = -10,
	PYF_READ = -11,
};

/* --- _EventType ----------------------------------------------------------- */

static void evtype_dealloc(PyObject *o)
{
	PpEventType *et = (PpEventType *)o;

	Py_XDECREF(et->fieldmap);
	Py_XDECREF(et->keys);
	Py_XDECREF(et->event_name);
	Py_XDECREF(et->owner);
	Py_TYPE(o)->tp_free(o);
}

PyTypeObject ana_py_evtype_type = {
	ANA_PY_TYPE_HEAD("pp._EventType", PpEventType, evtype_dealloc),
	.tp_doc = "what the events of one type and alias look like (internal)",
};

/*
 * A name from the capture as str: bytes that are not UTF-8 become U+FFFD (a hostile
 * capture's field name must not make the event type fail, tests/fuzz/fuzz-python).
 */
static PyObject *name_str(const char *name)
{
	return PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");
}

static int map_add(PpEventType *et, PyObject *keys, const char *name, long code)
{
	PyObject *k = name_str(name), *v = PyLong_FromLong(code);
	int rc = -1;

	if (k)
		PyUnicode_InternInPlace(&k);

	if (k && v && !PyDict_SetItem(et->fieldmap, k, v) && !PyList_Append(keys, k))
		rc = 0;
	Py_XDECREF(k);
	Py_XDECREF(v);
	return rc;
}

/* The keys of an event's mapping besides its fields, in perf-prof's order. */
struct key_code {
	const char *name;
	long code;
};
static const struct key_code every_event[] = {
	{ "_pid", PYF_PID }, { "_tid", PYF_TID }, { "_time", PYF_TIME }, { "_cpu", PYF_CPU },
	{ "_period", PYF_PERIOD }, { "_realtime", PYF_REALTIME },
};
/*
 * A sample without tracepoint fields (an analyzer source: profile, page-faults): its
 * address, then perf-prof's names for it, its sample_type's
 */
static const struct key_code sample_only[] = {
	{ "_ip", PYF_IP }, { "_addr", PYF_ADDR },
	{ "pid", PYF_PID }, { "tid", PYF_TID }, { "time", PYF_TIME }, { "cpu", PYF_CPU },
	{ "period", PYF_PERIOD }, { "ip", PYF_IP }, { "addr", PYF_ADDR }, { "read", PYF_READ },
};

/* map_add() of each of @v; every one is tried. Return: 0, or -1 if any failed. */
static int map_add_all(PpEventType *et, PyObject *keys, const struct key_code *v, size_t nr)
{
	int rc = 0;

	for (size_t i = 0; i < nr; i++)
		rc |= map_add(et, keys, v[i].name, v[i].code);
	return rc;
}

PpEventType *ana_pyevtype_new(struct ana_session *s, const struct ana_evtype *t, const char *alias,
			  PyObject *owner)
{
	PpEventType *et = PyObject_New(PpEventType, &ana_py_evtype_type);
	PyObject *keys;
	int rc = 0;

	if (!et)
		return NULL;
	et->t = t;
	et->s = s;
	et->owner = owner;
	Py_XINCREF(owner);
	et->keys = NULL;
	if (t->sys) {
		char *n = pp_xasprintf("%s:%s", t->sys, alias ? alias : t->event);
		et->event_name = name_str(n);
		free(n);
	} else {
		et->event_name = name_str(alias ? alias : t->name);
	}
	et->fieldmap = PyDict_New();
	keys = PyList_New(0);
	if (!et->event_name || !et->fieldmap || !keys) {
		Py_XDECREF(keys);
		Py_DECREF(et);
		return NULL;
	}
	rc |= map_add_all(et, keys, every_event, PP_ARRAY_SIZE(every_event));
	if (!t->sys) {
		rc |= map_add_all(et, keys, sample_only, PP_ARRAY_SIZE(sample_only));
		if (t->desc_flags & PPF_EVF_STACK)
			rc |= map_add(et, keys, "callchain", PYF_CALLCHAIN);
	}
	for (size_t i = 0; i < t->nr_fields && !rc; i++)
		if (strcmp(t->fields[i].name, "common_type"))
			rc |= map_add(et, keys, t->fields[i].name, (long)i);
	if (t->desc_flags & PPF_EVF_STACK)
		rc |= map_add(et, keys, "_callchain", PYF_CALLCHAIN);
	rc |= map_add(et, keys, "_event", PYF_EVENT);
	et->keys = PyList_AsTuple(keys);
	Py_DECREF(keys);
	if (rc || !et->keys) {
		Py_DECREF(et);
		return NULL;
	}
	return et;
}

/* --- Event ---------------------------------------------------------------- */

static const uint8_t *ev_raw(const PpEvent *e)
{
	return (const uint8_t *)(e->data + e->ev.nr_stack);
}

/* The borrowed pp_event view of @e, for the core's printers. */
static void ev_view(const PpEvent *e, struct pp_event *ev)
{
	*ev = e->ev;
}

PyObject *ana_pyevent_new(PpEventType *et, const struct pp_event *ev)
{
	size_t sz = (size_t)ev->nr_stack * 8 + ev->raw_sz;
	PpEvent *e = PyObject_NewVar(PpEvent, &ana_py_event_type, (Py_ssize_t)sz);

	if (!e)
		return NULL;
	Py_INCREF(et);
	e->et = et;
	/* the event's values; what it points at, copied into the object, or nothing */
	e->ev = *ev;
	e->ev.type = et->t;
	e->ev.sel = NULL;
	e->ev.extra = NULL;
	e->ev.extra_sz = 0;
	e->ev.count = NULL;
	e->ev.nr_stack = ev->stack ? ev->nr_stack : 0;
	e->ev.raw_sz = ev->raw ? ev->raw_sz : 0;
	e->ev.stack = e->ev.nr_stack ? e->data : NULL;
	e->ev.raw = e->ev.raw_sz ? ev_raw(e) : NULL;
	if (e->ev.nr_stack)
		memcpy(e->data, ev->stack, e->ev.nr_stack * 8);
	if (e->ev.raw_sz)
		memcpy((uint8_t *)(e->data + e->ev.nr_stack), ev->raw, e->ev.raw_sz);
	return (PyObject *)e;
}

static void ev_dealloc(PyObject *o)
{
	PpEvent *e = (PpEvent *)o;

	Py_DECREF(e->et);
	Py_TYPE(o)->tp_free(o);
}

static PyObject *field_value(const PpEvent *e, const struct pp_field *f)
{
	const uint8_t *raw = ev_raw(e);
	uint32_t off = f->offset, len = f->size;
	struct pp_event view;

	if (!f->is_array && !f->is_string && !f->is_data_loc && f->size <= 8) {
		uint64_t v;
		view.raw = raw;
		view.raw_sz = e->ev.raw_sz;
		v = ana_field_read(&view, f);
		return f->is_signed ? PyLong_FromLongLong((long long)v)
				    : PyLong_FromUnsignedLongLong(v);
	}
	if (f->is_data_loc) {
		uint32_t loc = 0;
		if ((uint64_t)f->offset + 4 <= e->ev.raw_sz)
			memcpy(&loc, raw + f->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
	}
	if (off >= e->ev.raw_sz)
		off = len = 0;
	else if ((uint64_t)off + len > e->ev.raw_sz)
		len = e->ev.raw_sz - off;
	if (f->is_string) {
		const void *z = memchr(raw + off, '\0', len);
		if (z)
			len = (uint32_t)((const uint8_t *)z - (raw + off));
		return PyUnicode_DecodeUTF8((const char *)raw + off, len, "surrogateescape");
	}
	if (f->elem_size <= 1 || (f->elem_size != 2 && f->elem_size != 4 && f->elem_size != 8))
		return PyBytes_FromStringAndSize((const char *)raw + off, len);
	uint32_t n = len / f->elem_size;
	PyObject *l = PyList_New(n);
	for (uint32_t i = 0; l && i < n; i++) {
		uint64_t v = 0;
		memcpy(&v, raw + off + i * f->elem_size, f->elem_size);
		if (f->is_signed && f->elem_size < 8 && (v >> (f->elem_size * 8 - 1)) & 1)
			v |= ~0ull << (f->elem_size * 8);
		PyObject *x = f->is_signed ? PyLong_FromLongLong((long long)v)
					   : PyLong_FromUnsignedLongLong(v);
		if (!x) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, x);
	}
	return l;
}

static PyObject *callchain(const PpEvent *e)
{
	struct ana_stack_iter it;
	PyObject *l = PyList_New(0);
	uint64_t addr;
	bool kernel;

	ana_stack_iter_init(&it, e->data, e->ev.nr_stack);
	while (l && ana_stack_iter_next(&it, &addr, &kernel)) {
		struct ana_frame_sym f;
		bool ok = ana_frame_lookup(e->et->s, e->ev.pid, e->ev.time_ns, addr, kernel, &f);
		PyObject *d = Py_BuildValue("{s:K,s:s,s:K,s:O,s:s}", "addr", (unsigned long long)addr,
					    "symbol", ok ? f.symbol : "Unknown", "offset",
					    (unsigned long long)f.offset, "kernel",
					    kernel ? Py_True : Py_False, "dso",
					    f.dso ? f.dso : "Unknown");
		if (!d || PyList_Append(l, d))
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

static uint64_t realtime(const PpEvent *e)
{
	uint64_t real;

	/* ana_time_str()'s arithmetic; no pair (or out of range): capture time */
	return ana_realtime_ns(e->et->s, e->ev.time_ns, &real) ? real : e->ev.time_ns;
}

static PyObject *ev_value(const PpEvent *e, long code)
{
	switch (code) {
	case PYF_PID: return PyLong_FromUnsignedLong(e->ev.pid);
	case PYF_TID: return PyLong_FromUnsignedLong(e->ev.tid);
	case PYF_TIME: return PyLong_FromUnsignedLongLong(e->ev.time_ns);
	case PYF_CPU: return PyLong_FromUnsignedLong(e->ev.cpu);
	case PYF_PERIOD: return PyLong_FromUnsignedLongLong(e->ev.period);
	case PYF_IP: return PyLong_FromUnsignedLongLong(e->ev.ip);
	case PYF_ADDR: return PyLong_FromUnsignedLongLong(e->ev.addr);
	case PYF_REALTIME: return PyLong_FromUnsignedLongLong(realtime(e));
	case PYF_CALLCHAIN: return callchain(e);
	case PYF_READ:	/* perf-prof's PERF_SAMPLE_READ of one counter: its count */
		return Py_BuildValue("{s:K}", "value", (unsigned long long)e->ev.period);
	case PYF_EVENT:
		Py_INCREF(e->et->event_name);
		return e->et->event_name;
	default:
		if (code >= 0 && (size_t)code < e->et->t->nr_fields)
			return field_value(e, &e->et->t->fields[code]);
		PyErr_SetString(PyExc_SystemError, "pp.Event: bad field code");
		return NULL;
	}
}

/* The value of key @name, NULL without an exception when there is none. */
static PyObject *ev_lookup(PpEvent *e, PyObject *name)
{
	PyObject *code = PyDict_GetItemWithError(e->et->fieldmap, name);

	if (!code)
		return NULL;
	return ev_value(e, PyLong_AsLong(code));
}

static PyObject *ev_getattro(PyObject *self, PyObject *name)
{
	PyObject *v = ev_lookup((PpEvent *)self, name);

	if (v || PyErr_Occurred())
		return v;
	v = PyObject_GenericGetAttr(self, name);
	if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_AttributeError, "event %U has no field '%U'",
			     ((PpEvent *)self)->et->event_name, name);
	}
	return v;
}

static PyObject *ev_subscript(PyObject *self, PyObject *key)
{
	PyObject *v = ev_lookup((PpEvent *)self, key);

	if (!v && !PyErr_Occurred())
		PyErr_SetObject(PyExc_KeyError, key);
	return v;
}

static Py_ssize_t ev_length(PyObject *self)
{
	return PyTuple_GET_SIZE(((PpEvent *)self)->et->keys);
}

static int ev_contains(PyObject *self, PyObject *key)
{
	return PyDict_Contains(((PpEvent *)self)->et->fieldmap, key);
}

static PyObject *ev_keys(PyObject *self, PyObject *unused)
{
	return PySequence_List(((PpEvent *)self)->et->keys);
}

/* values() (@what 0), items() (1) or to_dict() (2) */
static PyObject *collect(PyObject *self, int what)
{
	PpEvent *e = (PpEvent *)self;
	PyObject *keys = e->et->keys, *out = what == 2 ? PyDict_New() : PyList_New(0);

	for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(keys); i++) {
		PyObject *k = PyTuple_GET_ITEM(keys, i), *v = ev_lookup(e, k), *item = NULL;
		int rc = -1;
		if (v) {
			if (what == 2)
				rc = PyDict_SetItem(out, k, v);
			else if (what == 1 && (item = PyTuple_Pack(2, k, v)))
				rc = PyList_Append(out, item);
			else if (what == 0)
				rc = PyList_Append(out, v);
		}
		Py_XDECREF(item);
		Py_XDECREF(v);
		if (rc)
			Py_CLEAR(out);
	}
	return out;
}

static PyObject *ev_values(PyObject *self, PyObject *unused)
{
	return collect(self, 0);
}

static PyObject *ev_items(PyObject *self, PyObject *unused)
{
	return collect(self, 1);
}

static PyObject *ev_to_dict(PyObject *self, PyObject *unused)
{
	return collect(self, 2);
}

/* iter(event): (name, value) pairs, as perf-prof's PerfEvent (keys() gives the names) */
static PyObject *ev_iter(PyObject *self)
{
	PyObject *items = collect(self, 1), *it;

	if (!items)
		return NULL;
	it = PyObject_GetIter(items);
	Py_DECREF(items);
	return it;
}

static PyObject *ev_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	PyObject *v;

	if (nargs < 1 || nargs > 2) {
		PyErr_SetString(PyExc_TypeError, "get(key, default=None)");
		return NULL;
	}
	v = ev_lookup((PpEvent *)self, args[0]);
	if (v || PyErr_Occurred())
		return v;
	v = nargs == 2 ? args[1] : Py_None;
	Py_INCREF(v);
	return v;
}

/* The trace line: "<time> <comm> <tid> <flags> [cpu] sec.usec: sys:name: fields" */
static void trace_line(PpEvent *e, bool timestamp, bool stack, struct pp_buf *b)
{
	struct ana_session *s = e->et->s;
	struct pp_event ev;
	char wall[64];

	ev_view(e, &ev);
	ana_event_print(s, &ev, b);
	if (!timestamp) {
		size_t n = strlen(ana_time_str(s, e->ev.time_ns, wall, sizeof(wall))) + 1;
		if (n <= b->len) {
			memmove(b->data, b->data + n, b->len - n + 1);
			b->len -= n;
		}
	}
	if (stack && e->ev.nr_stack) {
		pp_buf_addch(b, '\n');
		ana_stack_print(s, &ev, b);
		if (b->len && b->data[b->len - 1] == '\n')
			b->data[--b->len] = '\0';
	}
}

static PyObject *ev_print(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "timestamp", "callchain", NULL };
	int timestamp = 1, stack = 1;
	struct pp_buf b = PP_BUF_INIT;
	PyObject *out, *s;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp", names, &timestamp, &stack))
		return NULL;
	trace_line((PpEvent *)self, timestamp, stack, &b);
	pp_buf_addch(&b, '\n');
	out = PySys_GetObject("stdout");
	/* the trace line shows bytes that are not UTF-8 as \xHH already (common/quote.h) */
	s = PyUnicode_DecodeUTF8(pp_buf_str(&b), (Py_ssize_t)b.len, "replace");
	pp_buf_release(&b);
	if (!out)
		PyErr_SetString(PyExc_RuntimeError, "print(): no sys.stdout");
	rc = out && s ? PyFile_WriteObject(s, out, Py_PRINT_RAW) : -1;
	Py_XDECREF(s);
	if (rc)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *ev_str(PyObject *self)
{
	struct pp_buf b = PP_BUF_INIT;
	PyObject *s;

	trace_line((PpEvent *)self, true, false, &b);
	s = PyUnicode_DecodeUTF8(pp_buf_str(&b), (Py_ssize_t)b.len, "replace");
	pp_buf_release(&b);
	return s;
}

static PyObject *ev_repr(PyObject *self)
{
	PyObject *d = collect(self, 2), *r;

	if (!d)
		return NULL;
	r = PyUnicode_FromFormat("pp.Event(%R)", d);
	Py_DECREF(d);
	return r;
}

static Py_hash_t ev_hash(PyObject *self)
{
	const PpEvent *e = (const PpEvent *)self;
	const uint8_t *p = (const uint8_t *)e->data;
	size_t n = (size_t)e->ev.nr_stack * 8 + e->ev.raw_sz;
	uint64_t h = 1469598103934665603ull ^ e->ev.time_ns ^ ((uint64_t)e->ev.cpu << 48) ^ e->ev.tid;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h ^= h >> 31;
	return (Py_hash_t)h == -1 ? -2 : (Py_hash_t)h;
}

static PyMethodDef ev_methods[] = {
	{ "keys", ev_keys, METH_NOARGS, "the names of the event's attributes" },
	{ "values", ev_values, METH_NOARGS, "the values, in keys() order" },
	{ "items", ev_items, METH_NOARGS, "(name, value) pairs" },
	{ "get", (PyCFunction)(void (*)(void))ev_get, METH_FASTCALL, "get(key, default=None)" },
	{ "to_dict", ev_to_dict, METH_NOARGS, "every attribute in a dict" },
	{ "print", (PyCFunction)(void (*)(void))ev_print, METH_VARARGS | METH_KEYWORDS,
	  "print(timestamp=True, callchain=True): the trace line (and stack) on sys.stdout" },
	{ NULL, NULL, 0, NULL },
};

static PyMappingMethods ev_mapping = {
	.mp_length = ev_length,
	.mp_subscript = ev_subscript,
};

static PySequenceMethods ev_sequence = {
	.sq_length = ev_length,
	.sq_contains = ev_contains,
};

PyTypeObject ana_py_event_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pp.Event",
	.tp_basicsize = offsetof(PpEvent, data),
	.tp_itemsize = 1,
	.tp_dealloc = ev_dealloc,
	.tp_repr = ev_repr,
	.tp_str = ev_str,
	.tp_hash = ev_hash,
	.tp_as_mapping = &ev_mapping,
	.tp_as_sequence = &ev_sequence,
	.tp_getattro = ev_getattro,
	.tp_iter = ev_iter,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "one event of a capture; fields are decoded when read (perf-prof's PerfEvent)",
	.tp_methods = ev_methods,
};

int ana_pyevent_ready(void)
{
	if (PyType_Ready(&ana_py_evtype_type) < 0 || PyType_Ready(&ana_py_event_type) < 0)
		return -1;
	return 0;
}
#endif /* PP_HAVE_PYTHON */
