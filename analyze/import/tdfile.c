/* SPDX-License-Identifier: MIT */
/*
 * tdfile.c - a trace.dat copied into memory, its data readied quietly (tdfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "analyze/import/tdfile.h"

int ana_td_memfd(int in, off_t total)
{
	int fd = memfd_create("pp-tracedat", MFD_CLOEXEC);
	char buf[1 << 16];
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || (total && ftruncate(fd, total))) {
		close(fd);
		return -EIO;
	}
	return fd;
}

int ana_td_init_data_quiet(struct tracecmd_input *h)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), saved = -1, rc;

	fflush(stdout);
	if (null >= 0) {
		saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (saved >= 0)
			dup2(null, STDOUT_FILENO);
		close(null);
	}
	rc = tracecmd_init_data(h);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return rc;
}
