/* SPDX-License-Identifier: MIT */
/*
 * fuzz-python.c - libFuzzer entry: a capfuzz capture through the python analyzer.
 *
 * The capture (capfuzz.h) is replayed by `python SCRIPT -- CAPTURE` through
 * ana_cmd_run_file(), in this process: the script asks every pp.Event for all it
 * has (str, repr, hash, to_dict, every key by [], get, attribute and 'in',
 * iteration, _callchain and the other sample attributes, print()), and at
 * its end reads the same capture again with the module's own reader
 * (pp.open(...).events()).  One interpreter serves every input: the script
 * loaded once more at the start and held keeps pyembed.c from finalizing it
 * after each run (CPython does not come back clean from Py_FinalizeEx, and starting it
 * costs tens of ms).  Run it with -detect_leaks=0: the interpreter's own
 * caches look like leaks to LeakSanitizer.  Not here: the other analyzers
 * (fuzz-pipeline.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/python/python.h"
#include "common/log.h"
#include "tests/fuzz/capfuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char script_text[] =
	"import sys\n"
	"import pp\n"
	"\n"
	"def touch(e):\n"
	"    str(e); repr(e); hash(e); len(e)\n"
	"    e.to_dict()\n"
	"    for k, v in e:\n"
	"        pass\n"
	"    for k in e.keys():\n"
	"        e[k]; e.get(k); getattr(e, k, None); k in e\n"
	"    list(e.values()); list(e.items())\n"
	"    for a in ('_pid', '_tid', '_time', '_cpu', '_period', '_realtime', '_event',\n"
	"              '_callchain', '_ip', '_addr', '_read', 'nosuchfield'):\n"
	"        getattr(e, a, None)\n"
	"    e.get('nosuchfield', 1)\n"
	"    e.print(timestamp=True, callchain=True)\n"
	"    e.print(timestamp=False, callchain=False)\n"
	"\n"
	"def __sample__(e):\n"
	"    touch(e)\n"
	"\n"
	"def __lost__(start, end):\n"
	"    pass\n"
	"\n"
	"def __exit__():\n"
	"    cap = pp.open(sys.argv[1])\n"
	"    cap.event_names()\n"
	"    for n, e in enumerate(cap.events()):\n"
	"        touch(e)\n"
	"        if n > 2000:\n"
	"            break\n";

static char script[64];
static struct ana_py *keep;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int fd;

	(void)argc;
	(void)argv;
	fz_quiet_analyze();
	snprintf(script, sizeof(script), "%s/ppfuzzXXXXXX.py", dir);
	fd = mkstemps(script, 3);
	if (fd < 0 || write(fd, script_text, sizeof(script_text) - 1) != sizeof(script_text) - 1) {
		perror("fuzz-python: script");
		exit(1);
	}
	close(fd);
	/* the interpreter stays up while this is open (pyembed.c counts its users) */
	if (ana_py_open(NULL, script, 0, NULL, &keep)) {
		fprintf(stderr, "fuzz-python: %s\n", ana_py_errmsg(keep));
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_capture c;

	if (fz_capture_build(data, size, &c))
		return 0;
	const char *argv[] = { c.path, "python", script, "--", c.path, NULL };
	(void)ana_cmd_run_file(5, argv, &(struct ana_cmd_ctx){ 0 });
	fflush(stdout);
	fz_capture_release(&c);
	return 0;
}
