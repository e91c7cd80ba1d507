/* SPDX-License-Identifier: MIT */
/*
 * io.c - the writev() loop: whole buffers or an error.
 *
 * After a short write the pieces written in full are dropped and the first
 * one left is advanced past its written part, so the next writev() starts
 * exactly where the kernel stopped.  EINTR retries; 0 bytes written fails
 * with -EIO (a descriptor that accepts nothing would loop forever).
 * The writes go through common/sys.h, where tests make them fail or fall
 * short (PP_FAULT).  Not here: short reads.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "common/io.h"
#include "common/sys.h"

int pp_writev_full(int fd, struct iovec *iov, int nr, size_t *written)
{
	size_t done = 0;
	int i = 0, rc = 0;

	while (i < nr && !iov[i].iov_len)
		i++;
	while (i < nr) {
		ssize_t n = pp_sys_writev(fd, iov + i, nr - i);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
		while (i < nr && (size_t)n >= iov[i].iov_len) {
			n -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < nr) {
			iov[i].iov_base = (uint8_t *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	if (written)
		*written = done;
	return rc;
}
