/* SPDX-License-Identifier: MIT */
/*
 * io.h - writing whole buffers to a file descriptor.
 *
 * writev() may write less than asked (a pipe, a signal, a full disk) and
 * be interrupted before writing anything: the loop that finishes the job is
 * here once, for format/'s writer and record/'s rotation sink.  It returns
 * -errno and never exits or prints, as format/ requires.
 */
#ifndef PP_COMMON_IO_H
#define PP_COMMON_IO_H

#include <stddef.h>
#include <sys/uio.h>

/**
 * pp_writev_full() - write all of @iov to @fd, retrying short writes and EINTR
 * @fd: the file descriptor
 * @iov: the pieces, in order; consumed in place (bases and lengths advance)
 * @nr: how many
 * @written: if not NULL, the bytes written, set on success and on error alike
 *	(a write that failed half-way leaves its first part in the file)
 *
 * Empty pieces are skipped, so nothing to write is a success.  A write of 0
 * bytes when some remain is -EIO rather than a loop.
 *
 * Return: 0, or -errno of the failed writev() (-EIO for a write of 0 bytes);
 * @iov is left in an unspecified state.
 */
int pp_writev_full(int fd, struct iovec *iov, int nr, size_t *written);

#endif
