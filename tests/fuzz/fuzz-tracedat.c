/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tracedat.c - libFuzzer entry: any bytes as a trace.dat for pp-analyze's importer.
 *
 * libtracecmd opens a file by path, so the input is written to a memfd and handed over as
 * /proc/self/fd/N; the capture is written to /dev/null.  ana_import_tracedat() must convert
 * or refuse every input: no crash in pp or in libtracecmd, no endless loop, no read outside
 * a record.  Seeds (tests/fuzz/run.sh): tests/fixtures/tracedat/ - sched events of two CPUs
 * as trace-cmd restore and convert wrote them, versions 6, 7 and 7 with zstd.  A file
 * libtracecmd cannot ready is left unfreed on purpose (tracedat.c: its close crashes on
 * it): LeakSanitizer is told so in tests/lsan.supp.  What one input leaves allocated is
 * bounded (KEPT_MAX): such leaks add up over a run, and a hostile header that made
 * libtracecmd allocate gigabytes and keep them ran libFuzzer out of memory
 * (tests/fuzz/regress/tracedat/option-size-huge).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/import/import.h"
#include "analyze/import/tracedat.h"
#include "format/format.h"

#define KEPT_MAX ((size_t)64 << 20)	/* what one input may leave allocated */

/* the sanitizer's count of allocated bytes; absent in a replay build without one */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file libtracecmd can open: a memfd, its /proc path in @path.  Return: fd. */
static int input_file(const uint8_t *data, size_t size, char *path, size_t pathsz)
{
	int fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	snprintf(path, pathsz, "/proc/self/fd/%d", fd);
	return fd;
}

static size_t allocated(void)
{
	return __sanitizer_get_current_allocated_bytes ?
	       __sanitizer_get_current_allocated_bytes() : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ppf_writer_opts opts = { .own_fd = true };
	struct ana_import_info info = { .quiet = true };
	struct ppf_writer *w;
	char path[64];
	size_t before = allocated(), after;
	int in = input_file(data, size, path, sizeof(path));
	int out = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (in >= 0 && out >= 0 && !ppf_writer_open_fd(out, &opts, &w)) {
		int rc = ana_import_tracedat(path, w, &info);

		rc = ppf_writer_close(w);	/* closes @out */
		(void)rc;	/* refusing an input is as good as converting it */
	} else if (out >= 0) {
		close(out);
	}
	if (in >= 0)
		close(in);
	after = allocated();
	if (after > before + KEPT_MAX) {
		fprintf(stderr, "fuzz-tracedat: the input left %zu MiB allocated\n",
			(after - before) >> 20);
		abort();
	}
	return 0;
}
