/* SPDX-License-Identifier: MIT */
/*
 * fuzz-perfdata.c - libFuzzer entry: any bytes as a perf.data, converted into a capture.
 *
 * The bytes go to a memfd that ana_import_perfdata() reads as pp-analyze reads a file:
 * file mode mapped, pipe mode (a header of size 16) read record by record.  The capture
 * goes to a sink that keeps nothing; then the importer's own checks must hold: no crash,
 * no leak, no read outside the input, no endless loop, memory bounded on lying sizes.
 * Nothing of this machine is read (kallsyms, tracefs, binaries: info.offline).
 * Seeds: the small real files of tests/fuzz/regress/perfdata/ (perf record of sched
 * tracepoints, plain, -z and pipe mode).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/import/import.h"
#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *arg, const struct ppf_chunk *c)
{
	(void)arg;
	(void)c;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_import_info info = { .quiet = true, .offline = true };
	struct ppf_writer *w = NULL;
	char path[64];
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size && ppf_writer_open_cb(sink, NULL, NULL, &w) == 0)
		(void)!ana_import_perfdata(path, w, &info);
	(void)!ppf_writer_close(w);
	close(fd);
	return 0;
}
