/* SPDX-License-Identifier: MIT */
/*
 * pyembed.c - the embedded interpreter: load a user script and call into it.
 *
 * CPython is one per process; each ana_py is one script loaded as a module
 * (named after the file, so `if __name__ == "__main__"` blocks do not run),
 * with sys.argv set and the script's directory and the current directory on
 * sys.path, so it imports its neighbours and `import pp` finds the module
 * built into pp-analyze.  The interpreter starts with the first ana_py and
 * ends with the last (py_users is the one piece of mutable global state
 * here, because the interpreter itself is global).  Python installs no
 * signal handlers: Ctrl-C stays pp-analyze's.  An exception is turned into
 * its formatted traceback in the ana_py's error buffer and cleared; the
 * caller decides whether to go on.
 */
#ifdef PP_HAVE_PYTHON
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/python/python.h"
#include "analyze/python/internal.h"
#include "common/buf.h"
#include "common/log.h"

struct ana_py_fn {
	PyObject *fn;
	struct ana_py_fn *next;
};

struct ana_py_evtype {
	PpEventType *et;
	struct ana_py_evtype *next;
};

struct ana_py {
	struct ana_session *s;
	PyObject *module;
	struct ana_py_fn *fns;
	struct ana_py_evtype *ets;
	struct pp_buf err;
	char *file;			/* the module's file, absolute when known, or NULL */
};

static unsigned py_users;

const char *ana_py_errmsg(const struct ana_py *py)
{
	return pp_buf_str(&py->err);
}

/* The pending exception as a traceback in py->err; cleared. Return: ANA_PY_RAISED or ANA_PY_EXIT. */
static int grab_error(struct ana_py *py)
{
	PyObject *type, *value, *tb, *mod = NULL, *lines = NULL, *sep = NULL, *text = NULL;
	int rc = ANA_PY_RAISED;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	pp_buf_reset(&py->err);
	if (type && (PyErr_GivenExceptionMatches(type, PyExc_SystemExit) ||
		     PyErr_GivenExceptionMatches(type, PyExc_KeyboardInterrupt)))
		rc = ANA_PY_EXIT;
	if (tb && value)
		PyException_SetTraceback(value, tb);
	mod = PyImport_ImportModule("traceback");
	if (mod && type)
		lines = PyObject_CallMethod(mod, "format_exception", "OOO", type,
					    value ? value : Py_None, tb ? tb : Py_None);
	if (lines && (sep = PyUnicode_FromString("")))
		text = PyUnicode_Join(sep, lines);
	if (text)
		pp_buf_adds(&py->err, PyUnicode_AsUTF8(text));
	else
		pp_buf_adds(&py->err, "a Python exception (its traceback cannot be formatted)\n");
	PyErr_Clear();
	Py_XDECREF(text);
	Py_XDECREF(sep);
	Py_XDECREF(lines);
	Py_XDECREF(mod);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
	return rc;
}

static int set_argv_and_path(int argc, const char **argv, const char *dir)
{
	PyObject *l = PyList_New(0), *path = PySys_GetObject("path");
	int rc = 0;

	for (int i = 0; l && i < argc; i++) {
		PyObject *a = PyUnicode_DecodeFSDefault(argv[i]);
		if (!a || PyList_Append(l, a))
			rc = -1;
		Py_XDECREF(a);
	}
	if (!l || rc || PySys_SetObject("argv", l))
		rc = -1;
	Py_XDECREF(l);
	if (path && PyList_Check(path)) {
		PyObject *cwd = PyUnicode_FromString(""), *d = dir ? PyUnicode_DecodeFSDefault(dir) : NULL;
		if (cwd)
			PyList_Insert(path, 0, cwd);
		if (d)
			PyList_Insert(path, 0, d);
		Py_XDECREF(cwd);
		Py_XDECREF(d);
	}
	return rc;
}

static char *read_all(FILE *fp)
{
	struct pp_buf b = PP_BUF_INIT;
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		pp_buf_add(&b, chunk, n);
	return pp_buf_detach(&b);
}

static bool is_path(const char *script)
{
	size_t n = strlen(script);

	return strchr(script, '/') || (n > 3 && !strcmp(script + n - 3, ".py")) ||
	       access(script, F_OK) == 0;
}

static int load(struct ana_py *py, const char *script)
{
	PyObject *code;
	char *src, *name, *dot;
	const char *base, *filename = script;
	FILE *fp;

	if (strcmp(script, "-") && !is_path(script)) {
		py->module = PyImport_ImportModule(script);
		return py->module ? 0 : -1;
	}
	if (!strcmp(script, "-")) {
		src = read_all(stdin);
		filename = "<stdin>";
		name = pp_xstrdup("stdin_script");
	} else {
		fp = fopen(script, "r");
		if (!fp) {
			pp_buf_addf(&py->err, "cannot open script '%s': %m\n", script);
			return -2;
		}
		src = read_all(fp);
		fclose(fp);
		base = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
		name = pp_xstrdup(base);
		if ((dot = strrchr(name, '.')))
			*dot = '\0';
	}
	code = Py_CompileString(src, filename, Py_file_input);
	free(src);
	if (code) {
		py->module = PyImport_ExecCodeModuleEx(name, code, filename);
		Py_DECREF(code);
	}
	free(name);
	return py->module ? 0 : -1;
}

/* The loaded module's __file__, made absolute as perf-prof's import by name makes it. */
static char *module_file(PyObject *module)
{
	PyObject *f = PyObject_GetAttrString(module, "__file__");
	const char *path = f && PyUnicode_Check(f) ? PyUnicode_AsUTF8(f) : NULL;
	char *out = NULL;

	if (path && *path == '<')	/* <stdin> */
		path = NULL;
	if (path)
		out = realpath(path, NULL);
	if (!out && path)
		out = pp_xstrdup(path);
	PyErr_Clear();
	Py_XDECREF(f);
	return out;
}

const char *ana_py_file(const struct ana_py *py)
{
	return py ? py->file : NULL;
}

int ana_py_open(struct ana_session *s, const char *script, int argc, const char **argv,
		struct ana_py **out)
{
	struct ana_py *py = pp_xcalloc(1, sizeof(*py));
	char *dir = NULL;
	int rc;

	*out = py;
	py->s = s;
	if (!py_users++) {
		if (PyImport_AppendInittab("pp", PyInit_pp) < 0) {
			pp_buf_adds(&py->err, "cannot register the pp module\n");
			return PP_ENOTSUP;
		}
		Py_InitializeEx(0);
	}
	/* the Event types are readied by the module's init */
	PyObject *pp = PyImport_ImportModule("pp");
	if (!pp) {
		grab_error(py);
		return PP_ENOTSUP;
	}
	if (s)	/* the registry of the pp-analyze embedding it (a fuzzer's first open has none) */
		ana_py_set_registry(pp, s->registry);
	Py_DECREF(pp);
	if (strcmp(script, "-") && strchr(script, '/')) {
		dir = pp_xstrdup(script);
		*strrchr(dir, '/') = '\0';
	}
	rc = set_argv_and_path(argc, argv, dir);
	free(dir);
	if (rc) {
		grab_error(py);
		return PP_EUSAGE;
	}
	rc = load(py, script);
	if (rc == -1) {
		grab_error(py);
		return PP_EUSAGE;
	}
	if (!rc)
		py->file = module_file(py->module);
	return rc ? PP_EUSAGE : 0;
}

void ana_py_close(struct ana_py *py)
{
	if (!py)
		return;
	for (struct ana_py_fn *f = py->fns, *n; f; f = n) {
		n = f->next;
		Py_XDECREF(f->fn);
		free(f);
	}
	for (struct ana_py_evtype *e = py->ets, *n; e; e = n) {
		n = e->next;
		Py_XDECREF(e->et);
		free(e);
	}
	Py_XDECREF(py->module);
	pp_buf_release(&py->err);
	free(py->file);
	free(py);
	if (py_users && !--py_users)
		Py_FinalizeEx();	/* flushes sys.stdout, runs atexit handlers */
}

struct ana_py_fn *ana_py_func(struct ana_py *py, const char *name)
{
	struct ana_py_fn *f;
	PyObject *fn;

	if (!py->module)
		return NULL;
	/* the module's own names only: a module object has an __init__ of its type */
	fn = PyDict_GetItemString(PyModule_GetDict(py->module), name);
	if (!fn || !PyCallable_Check(fn))
		return NULL;
	Py_INCREF(fn);
	f = pp_xcalloc(1, sizeof(*f));
	f->fn = fn;
	f->next = py->fns;
	py->fns = f;
	return f;
}

struct ana_py_evtype *ana_py_evtype(struct ana_py *py, const struct ana_evtype *t,
				    const char *alias)
{
	struct ana_py_evtype *e = pp_xcalloc(1, sizeof(*e));

	e->et = ana_pyevtype_new(py->s, t, alias, NULL);
	if (!e->et) {
		grab_error(py);
		free(e);
		return NULL;
	}
	e->next = py->ets;
	py->ets = e;
	return e;
}

int ana_py_call_event(struct ana_py *py, struct ana_py_fn *fn, struct ana_py_evtype *et,
		      const struct pp_event *ev)
{
	PyObject *e = ana_pyevent_new(et->et, ev), *r;

	if (!e)
		return grab_error(py);
	r = PyObject_CallOneArg(fn->fn, e);
	Py_DECREF(e);
	if (!r)
		return grab_error(py);
	Py_DECREF(r);
	return 0;
}

int ana_py_call(struct ana_py *py, struct ana_py_fn *fn, int nargs, const int64_t *args)
{
	PyObject *a[8] = { NULL }, *r;
	int n = nargs < 8 ? nargs : 8;

	for (int i = 0; i < n; i++) {
		a[i] = PyLong_FromLongLong(args[i]);
		if (!a[i]) {
			while (i-- > 0)
				Py_DECREF(a[i]);
			return grab_error(py);
		}
	}
	r = PyObject_Vectorcall(fn->fn, a, (size_t)n, NULL);
	for (int i = 0; i < n; i++)
		Py_DECREF(a[i]);
	if (!r)
		return grab_error(py);
	Py_DECREF(r);
	return 0;
}
#endif /* PP_HAVE_PYTHON */
