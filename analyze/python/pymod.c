/* SPDX-License-Identifier: MIT */
/*
 * pymod.c - the `pp` Python module: captures from a plain python3.
 *
 *   import pp
 *   cap = pp.open("pp.capture")
 *   for ev in cap.events("sched:sched_switch/prev_state==1/"):
 *       print(ev._time, ev.prev_comm)
 *
 * events() replays the capture with the same core as pp-analyze (session,
 * side-band, selectors with filters and alias=, recorded user filters), so a
 * script sees exactly the events an analyzer would; it pulls records one at
 * a time, so memory stays flat whatever the capture's size.  Each events()
 * call has its own session: iterators are independent.  Built as
 * build/python/pp.so for python3, and linked into pp-analyze for scripts.
 */
#ifdef PP_HAVE_PYTHON
#include <string.h>

#include "analyze/python/internal.h"
#include "common/expr.h"
#include "common/log.h"

/* A session and the selection made on it; shared by an iterator and its events. */
typedef struct {
	PyObject_HEAD
	struct ana_session *s;
	struct pp_az az;		/* a stand-in analyzer: its -e selects the events */
	char *events;
	bool selected;
} PpSession;

typedef struct {
	PyObject_HEAD
	PpSession *ses;
	struct ppf_record rec;
	bool have_first, done;
	PyObject **ets;			/* per match of the selection: PpEventType */
	struct pp_u64map first;		/* type id -> first match index + 1 */
} PpEvents;

typedef struct {
	PyObject_HEAD
	PyObject *path;
	PpSession *meta;		/* metadata only: names, host keys */
	const struct ana_registry *registry;	/* the module's (struct pymod_state) */
} PpCapture;

/*
 * The module's state: the registry of the pp-analyze that embeds it (ana_py_set_registry()),
 * for its sessions' selectors; NULL in a plain python3, which has no analyzers.
 */
struct pymod_state {
	const struct ana_registry *registry;
};

/* The module's own analyzer: every event of the capture, nothing recorded for it. */
static const struct pp_analyzer_ops pymod_ops = {
	.flags = PP_AZ_ALL_EVENTS,
};
static const struct pp_analyzer pymod_an = {
	.name = "pp",
	.c_name = "pp",
	.plan = &pp_plan_none,
	.ops = &pymod_ops,
};

/* --- session -------------------------------------------------------------- */

static void ses_dealloc(PyObject *o)
{
	PpSession *ps = (PpSession *)o;

	if (ps->selected)
		ana_az_release_sels(&ps->az);
	pp_strlist_release(&ps->az.opt.events);
	free(ps->events);
	ana_session_free(ps->s);
	Py_TYPE(o)->tp_free(o);
}

static PyTypeObject PpSession_Type = {
	ANA_PY_TYPE_HEAD("pp._Session", PpSession, ses_dealloc),
};

/* Open @path and read its metadata up to the first sample (left in @first). */
static PpSession *ses_open(const char *path, const struct ana_registry *registry,
			   struct ppf_record *first, bool *have_first)
{
	PpSession *ps = PyObject_New(PpSession, &PpSession_Type);
	int rc;

	if (!ps)
		return NULL;
	memset((char *)ps + sizeof(PyObject), 0, sizeof(*ps) - sizeof(PyObject));
	rc = ana_session_open(path, 0, &ps->s);
	if (rc) {
		PyErr_Format(PyExc_OSError, "%s", ps->s->errmsg);
		Py_DECREF(ps);
		return NULL;
	}
	ps->s->registry = registry;
	ana_az_bind(&ps->az, &pymod_an);
	ps->az.s = ps->s;
	rc = ana_session_load_meta(ps->s, first);
	if (rc < 0) {
		PyErr_Format(PyExc_OSError, "reading '%s': %s", path, ppf_reader_errmsg(ps->s->r));
		Py_DECREF(ps);
		return NULL;
	}
	*have_first = rc == 0;
	return ps;
}

/* --- events() iterator ---------------------------------------------------- */

static void evs_dealloc(PyObject *o)
{
	PpEvents *it = (PpEvents *)o;

	for (size_t i = 0; it->ets && it->ses && i < it->ses->az.nr_sels; i++)
		Py_XDECREF(it->ets[i]);
	free(it->ets);
	pp_u64map_release(&it->first);
	Py_XDECREF(it->ses);
	Py_TYPE(o)->tp_free(o);
}

static PyObject *evs_next(PyObject *o)
{
	PpEvents *it = (PpEvents *)o;
	struct ana_session *s = it->ses->s;
	int rc;

	while (!it->done) {
		if (it->have_first) {
			it->have_first = false;
		} else {
			rc = ppf_reader_next(s->r, &it->rec, NULL);
			if (rc == PPF_END) {
				it->done = true;
				break;
			}
			if (rc < 0) {
				it->done = true;
				PyErr_Format(PyExc_OSError, "reading '%s': %s", s->path,
					     ppf_reader_errmsg(s->r));
				return NULL;
			}
		}
		if (it->rec.type != PPF_REC_SAMPLE) {
			ana_session_meta(s, &it->rec);
			continue;
		}
		const struct ppf_sample *smp = &it->rec.u.sample;
		struct ana_evtype *t = ana_session_type(s, smp->id);
		if (!t)
			continue;
		struct pp_event ev;
		ana_session_sample(s, t, smp, &ev);
		uintptr_t m = (uintptr_t)pp_u64map_get(&it->first, smp->id);
		if (!m)
			continue;
		if (t->rec_filter && !ana_filter_pass(s, t->rec_filter, &ev))
			continue;
		/* the first selector that takes it (a type may match several) */
		for (size_t k = m - 1; k < it->ses->az.nr_sels; k++) {
			struct ana_sel *sel = &it->ses->az.sels[k];
			if (sel->type != t)
				continue;
			if (sel->filter && !ana_filter_pass(s, sel->filter, &ev))
				continue;
			ev.sel = sel;
			return ana_pyevent_new((PpEventType *)it->ets[k], &ev);
		}
	}
	return NULL;	/* StopIteration */
}

static PyTypeObject PpEvents_Type = {
	ANA_PY_TYPE_HEAD("pp.Events", PpEvents, evs_dealloc),
	.tp_doc = "the events of a capture in time order (from Capture.events())",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = evs_next,
};

/* --- Capture -------------------------------------------------------------- */

static void cap_dealloc(PyObject *o)
{
	PpCapture *c = (PpCapture *)o;

	Py_XDECREF(c->path);
	Py_XDECREF(c->meta);
	Py_TYPE(o)->tp_free(o);
}

static PyObject *cap_events(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "events", NULL };
	PpCapture *c = (PpCapture *)self;
	const char *sel = NULL;
	PpEvents *it;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z", names, &sel))
		return NULL;
	it = PyObject_New(PpEvents, &PpEvents_Type);
	if (!it)
		return NULL;
	memset((char *)it + sizeof(PyObject), 0, sizeof(*it) - sizeof(PyObject));
	it->ses = ses_open(PyUnicode_AsUTF8(c->path), c->registry, &it->rec, &it->have_first);
	if (!it->ses) {
		Py_DECREF(it);
		return NULL;
	}
	if (sel && *sel) {
		it->ses->events = pp_xstrdup(sel);
		pp_strlist_push(&it->ses->az.opt.events, it->ses->events);
	}
	rc = ana_az_select(&it->ses->az);
	it->ses->selected = true;
	if (rc) {
		PyErr_Format(PyExc_ValueError, "cannot select '%s' in '%s': %s (details on stderr)",
			     sel ? sel : "", PyUnicode_AsUTF8(c->path), pp_strerror(rc));
		Py_DECREF(it);
		return NULL;
	}
	ana_session_finalize_syms(it->ses->s);
	it->ets = pp_xcalloc(it->ses->az.nr_sels + 1, sizeof(*it->ets));
	for (size_t k = 0; k < it->ses->az.nr_sels; k++) {
		struct ana_sel *m = &it->ses->az.sels[k];
		void **slot = pp_u64map_slot(&it->first, m->type->id);
		if (!*slot)
			*slot = (void *)(uintptr_t)(k + 1);
		it->ets[k] = (PyObject *)ana_pyevtype_new(it->ses->s, m->type, m->alias,
						      (PyObject *)it->ses);
		if (!it->ets[k]) {
			Py_DECREF(it);
			return NULL;
		}
	}
	return (PyObject *)it;
}

static PyObject *cap_event_names(PyObject *self, PyObject *unused)
{
	struct ana_session *s = ((PpCapture *)self)->meta->s;
	PyObject *l = PyList_New(0);

	for (size_t i = 0; l && i < s->nr_types; i++) {
		PyObject *n = PyUnicode_DecodeUTF8(s->type_list[i]->name,
						   (Py_ssize_t)strlen(s->type_list[i]->name), "replace");
		if (!n || PyList_Append(l, n))
			Py_CLEAR(l);
		Py_XDECREF(n);
	}
	return l;
}

static PyObject *cap_host(PyObject *self, PyObject *unused)
{
	struct ana_session *s = ((PpCapture *)self)->meta->s;
	PyObject *d = PyDict_New();

	for (size_t i = 0; d && i < s->nr_host; i++) {
		PyObject *v = PyUnicode_DecodeUTF8(s->host_vals[i], (Py_ssize_t)strlen(s->host_vals[i]),
						   "replace");
		if (!v || PyDict_SetItemString(d, s->host_keys[i], v))
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *cap_fields(PyObject *self, PyObject *args)
{
	struct ana_session *s = ((PpCapture *)self)->meta->s;
	const char *name;

	if (!PyArg_ParseTuple(args, "s", &name))
		return NULL;
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *t = s->type_list[i];
		if (strcmp(t->name, name) && strcmp(t->event, name))
			continue;
		PyObject *l = PyList_New(0);
		for (size_t k = 0; l && k < t->nr_fields; k++) {
			PyObject *n = PyUnicode_DecodeUTF8(t->fields[k].name,
							   (Py_ssize_t)strlen(t->fields[k].name),
							   "replace");
			if (!n || PyList_Append(l, n))
				Py_CLEAR(l);
			Py_XDECREF(n);
		}
		return l;
	}
	PyErr_Format(PyExc_KeyError, "no event '%s' in the capture", name);
	return NULL;
}

static PyObject *cap_repr(PyObject *self)
{
	return PyUnicode_FromFormat("pp.open(%R)", ((PpCapture *)self)->path);
}

static PyMethodDef cap_methods[] = {
	{ "events", (PyCFunction)(void (*)(void))cap_events, METH_VARARGS | METH_KEYWORDS,
	  "events(events=None): iterate over the events in time order; 'events' is a -e selector\n"
	  "list ('sched:sched_switch/prev_pid>0/alias=sw/,sched:sched_wakeup'), default all" },
	{ "event_names", cap_event_names, METH_NOARGS, "the events the capture holds" },
	{ "fields", cap_fields, METH_VARARGS, "fields(event): the field names of an event" },
	{ "host", cap_host, METH_NOARGS, "the capture's host and recording keys" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject PpCapture_Type = {
	ANA_PY_TYPE_HEAD("pp.Capture", PpCapture, cap_dealloc),
	.tp_repr = cap_repr,
	.tp_doc = "a capture file made by pp-record (from pp.open())",
	.tp_methods = cap_methods,
};

static PyObject *mod_open(PyObject *mod, PyObject *args)
{
	struct ppf_record first;
	bool have_first;
	PyObject *path;
	PpCapture *c;

	if (!PyArg_ParseTuple(args, "U", &path))
		return NULL;
	c = PyObject_New(PpCapture, &PpCapture_Type);
	if (!c)
		return NULL;
	Py_INCREF(path);
	c->path = path;
	c->registry = ((struct pymod_state *)PyModule_GetState(mod))->registry;
	c->meta = ses_open(PyUnicode_AsUTF8(path), c->registry, &first, &have_first);
	if (!c->meta) {
		Py_DECREF(c);
		return NULL;
	}
	return (PyObject *)c;
}

static PyMethodDef mod_methods[] = {
	{ "open", mod_open, METH_VARARGS, "open(path): a capture made by pp-record" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef pp_moddef = {
	PyModuleDef_HEAD_INIT,
	.m_name = "pp",
	.m_doc = "pp captures from Python: pp.open(path).events(selector) yields pp.Event objects",
	.m_size = sizeof(struct pymod_state),
	.m_methods = mod_methods,
};

void ana_py_set_registry(PyObject *pp, const struct ana_registry *registry)
{
	((struct pymod_state *)PyModule_GetState(pp))->registry = registry;
}

PyMODINIT_FUNC PyInit_pp(void)
{
	PyObject *m;

	if (ana_pyevent_ready() || PyType_Ready(&PpSession_Type) < 0 ||
	    PyType_Ready(&PpEvents_Type) < 0 || PyType_Ready(&PpCapture_Type) < 0)
		return NULL;
	m = PyModule_Create(&pp_moddef);
	if (!m)
		return NULL;
	Py_INCREF(&ana_py_event_type);
	Py_INCREF(&PpCapture_Type);
	if (PyModule_AddObject(m, "Event", (PyObject *)&ana_py_event_type) ||
	    PyModule_AddObject(m, "Capture", (PyObject *)&PpCapture_Type) ||
	    ana_py_fleet_add(m)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
#endif /* PP_HAVE_PYTHON */
