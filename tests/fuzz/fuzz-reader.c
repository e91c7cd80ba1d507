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
 * without.  Inputs whose size is 2 modulo 3 are read as the last part of a
 * parallel replay: from the middle segment of the list, the side band before it
 * taken from the capture's digests where they agree (ppf_reader_set_digests()).
 * Inputs whose size is 0 modulo 3 are read as pp-analyze dump reads them
 * (PPF_READ_DIGESTS: the digests' entries and copies), each digest checked as
 * dump checks it (ppf_digest_check()).
 */
#include <stdint.h>
#include <stdlib.h>
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
	    ppf_reader_open_fd(fd, (size & 1 ? PPF_READ_AHEAD : 0) |
				   (size % 3 == 0 ? PPF_READ_DIGESTS : 0), &r) == 0) {
		const struct ppf_segment *seg, *prev = NULL;
		struct ppf_index_entry *segs;
		uint64_t prev_off = UINT64_MAX;
		char why[128];
		size_t nr;

		if (size % 3 == 2 && ppf_reader_segments(r, &segs, &nr) == 0) {
			int rc = nr ? ppf_reader_set_window(r, segs[nr / 2].offset, 0) : 0;

			if (!rc)
				rc = ppf_reader_set_digests(r, segs, nr);
			(void)rc;	/* refused: the whole file is read */
			free(segs);
		}
		while (ppf_reader_next(r, &rec, &seg) == 0) {
			if (seg->kind == PPF_SEG_DIGEST && (seg != prev || seg->offset != prev_off))
				(void)!ppf_digest_check(seg->data, seg->usize, why, sizeof(why));
			prev = seg;
			prev_off = seg->offset;
		}
	}
	ppf_reader_close(r);
	close(fd);
	return 0;
}
