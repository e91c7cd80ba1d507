/* SPDX-License-Identifier: MIT */
/*
 * pyfleet.c - pp.fleet: one analyzer over many captures on a Dask cluster, from Python.
 *
 *   import pp
 *   r = pp.fleet.analyze(["a.ppcap", "b.ppcap"], "task-state --perins")
 *   print(r.output)
 *
 * The module is analyze/python/fleet.py, compiled in as text (the same text
 * `pp fleet` runs) and executed into a module named pp.fleet when pp is
 * imported; it imports nothing but the standard library until it is used.
 */
#ifdef PP_HAVE_PYTHON
#include "analyze/python/internal.h"
#include "gen/fleet-py.h"

int ana_py_fleet_add(PyObject *pp)
{
	PyObject *mod = PyModule_New("pp.fleet"), *code = NULL, *r = NULL;
	PyObject *modules = PyImport_GetModuleDict();
	PyObject *d;

	if (!mod)
		return -1;
	d = PyModule_GetDict(mod);
	if (PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins()) ||
	    PyDict_SetItemString(modules, "pp.fleet", mod))
		goto err;
	code = Py_CompileString(FLEET_PY, "pp/fleet.py", Py_file_input);
	r = code ? PyEval_EvalCode(code, d, d) : NULL;
	if (!r) {
		PyDict_DelItemString(modules, "pp.fleet");
		goto err;
	}
	Py_DECREF(r);
	Py_DECREF(code);
	return PyModule_AddObject(pp, "fleet", mod);	/* steals mod */
err:
	Py_XDECREF(code);
	Py_DECREF(mod);
	return -1;
}
#endif /* PP_HAVE_PYTHON */
