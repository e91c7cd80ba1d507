/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer entry: any bytes as a capture file.
 *
 * `make fuzz` builds build/tests/fuzz-reader (clang, -fsanitize=fuzzer,address,undefined);
 * run it with a corpus of real captures, e.g.
 *   build/tests/fuzz-reader -max_total_time=60 corpus/ samples/
 * The reader must return an error or records for every input: no crash, no
 * leak, no read outside the buffers, no endless loop.  Inputs of odd size are
 * read with PPF_READ_AHEAD (the helper thread's decompression), the others
 * without.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ppf_reader *r = NULL;
	struct ppf_record rec;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0 &&
	    ppf_reader_open_fd(fd, size & 1 ? PPF_READ_AHEAD : 0, &r) == 0) {
		while (ppf_reader_next(r, &rec, NULL) == 0)
			;
	}
	ppf_reader_close(r);
	close(fd);
	return 0;
}
