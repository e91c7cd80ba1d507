/* SPDX-License-Identifier: MIT */
/*
 * compat.h - perf_event_open() on kernels older than pp-record's headers.
 *
 * A kernel refuses what it does not know: an attr bit or read_format flag
 * newer than it with EINVAL, a larger attr whose extra bytes are not zero
 * with E2BIG (writing the size it knows into attr.size).  rec_perf_open()
 * retries without what the kernel refused, when the capture stays correct
 * without it: PERF_FORMAT_LOST (6.0: losses are then counted from the LOST
 * records alone), the side band's build_id (5.12: build ids are read from the
 * files), text_poke (5.9), cgroup (5.7), ksymbol and bpf_event (5.1) (those
 * records are then missing, said once on stderr), and the attr's size (the
 * kernel's, when the bytes past it are zero).  docs/kernels.md lists them.
 * Not here: which fds are opened (evopen.c, counters.c).
 */
#ifndef PP_RECORD_PERF_COMPAT_H
#define PP_RECORD_PERF_COMPAT_H

#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

/* What a session's opens dropped, so each is said once (struct rec_session.compat). */
enum rec_compat_drop {
	REC_COMPAT_LOST = 1u << 0,
	REC_COMPAT_BUILD_ID = 1u << 1,
	REC_COMPAT_TEXT_POKE = 1u << 2,
	REC_COMPAT_CGROUP = 1u << 3,
	REC_COMPAT_KSYMBOL = 1u << 4,
	REC_COMPAT_SIZE = 1u << 5,
};

/**
 * rec_perf_open() - perf_event_open(@a, @pid, @cpu, -1, @flags | CLOEXEC), retried
 * without what an older kernel refuses (see above)
 * @a: the attr; what is dropped stays dropped in it (the next open needs no retry)
 * @pid, @cpu, @flags: as perf_event_open(2)
 * @dropped: the session's record of what was dropped; a new drop is said on stderr
 * Return: the fd, or -errno of the last try.
 */
int rec_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, unsigned long flags,
		  uint32_t *dropped);

#endif
