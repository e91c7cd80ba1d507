/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tracedat.c - libFuzzer entry: any bytes as a trace.dat for pp-analyze's importer.
 *
 * libtracecmd opens a file by path, so the input is written to a memfd and handed over as
 * /proc/self/fd/N; the capture goes to a sink that drops it.  ana_import_tracedat() must
 * convert or refuse every input: no crash in pp or in libtracecmd, no endless loop, no read
 * outside a record.  Seeds (tests/fuzz/run.sh): tests/fixtures/tracedat/ - sched events of
 * two CPUs as trace-cmd restore and convert wrote them, versions 6, 7 and 7 with zstd.
 * A file libtracecmd cannot ready is left unfreed on purpose (tracedat.c: its close
 * crashes on it): LeakSanitizer is told so in tests/lsan.supp.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/import/import.h"
#include "analyze/import/tracedat.h"
#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int drop(void *arg, const struct ppf_chunk *c)
{
	(void)arg;
	(void)c;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_import_info info;
	struct ppf_writer *w;
	char path[64];
	int fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && !ppf_writer_open_cb(drop, NULL, NULL, &w)) {
		memset(&info, 0, sizeof(info));
		info.quiet = true;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		int rc = ana_import_tracedat(path, w, &info);

		rc = ppf_writer_close(w);
		(void)rc;	/* refusing an input is as good as converting it */
	}
	close(fd);
	return 0;
}
