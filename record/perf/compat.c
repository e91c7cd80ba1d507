/* SPDX-License-Identifier: MIT */
/*
 * compat.c - perf_event_open() retried without what an older kernel refuses
 * (compat.h).
 *
 * Each retry removes one thing, the newest first, so a kernel that refuses
 * only text_poke keeps cgroup and ksymbol.  Hardware, tracepoint and
 * software events take none of the side band's bits: only the tracking
 * event (the dummy with comm, mmap, task ...) loses records.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sys.h"
#include "record/perf/compat.h"

#ifndef PERF_ATTR_SIZE_VER5
#define PERF_ATTR_SIZE_VER5 112
#endif

static int try_open(struct perf_event_attr *a, pid_t pid, int cpu, unsigned long flags)
{
	int fd = pp_sys_perf_event_open(a, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Say a drop once: what is missing and which kernel has it. */
static void said(uint32_t *dropped, uint32_t what, const char *text)
{
	if (*dropped & what)
		return;
	*dropped |= what;
	if (text)
		pp_warn("%s", text);
}

/*
 * EINVAL: the newest thing this attr asks that the kernel may not know,
 * removed.  Return: true if something was (retry), false if nothing is left.
 */
static bool drop_newest(struct perf_event_attr *a, uint32_t *dropped)
{
	if (a->read_format & PERF_FORMAT_LOST) {
		/* kernels before 6.0: the LOST records still count every loss */
		a->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		said(dropped, REC_COMPAT_LOST, NULL);
	} else if (a->build_id) {
		/* before 5.12: MMAP2 records carry device and inode; build ids come from the files */
		a->build_id = 0;
		said(dropped, REC_COMPAT_BUILD_ID, NULL);
	} else if (a->text_poke) {
		a->text_poke = 0;
		said(dropped, REC_COMPAT_TEXT_POKE,
		     "this kernel has no text_poke records (Linux 5.9): none recorded");
	} else if (a->cgroup) {
		a->cgroup = 0;
		said(dropped, REC_COMPAT_CGROUP,
		     "this kernel has no cgroup records (Linux 5.7): none recorded");
	} else if (a->ksymbol || a->bpf_event) {
		a->ksymbol = 0;
		a->bpf_event = 0;
		said(dropped, REC_COMPAT_KSYMBOL,
		     "this kernel has no ksymbol and bpf_event records (Linux 5.1): none recorded");
	} else {
		return false;
	}
	return true;
}

/*
 * E2BIG: the kernel wrote the size it knows into a->size.  The attr is sent
 * at that size when every byte past it is zero (then the kernel ignores
 * nothing that was asked).  Return: true to retry.
 */
static bool shrink(struct perf_event_attr *a, uint32_t *dropped)
{
	const unsigned char *p = (const unsigned char *)a;
	uint32_t known = a->size;

	if (known < PERF_ATTR_SIZE_VER5 || known >= sizeof(*a))
		return false;
	for (size_t i = known; i < sizeof(*a); i++)
		if (p[i])
			return false;
	said(dropped, REC_COMPAT_SIZE, NULL);
	return true;
}

int rec_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, unsigned long flags,
		  uint32_t *dropped)
{
	int fd = -EINVAL;

	for (int tries = 0; tries < 8; tries++) {
		fd = try_open(a, pid, cpu, flags);
		if (fd == -EINVAL && drop_newest(a, dropped))
			continue;
		if (fd == -E2BIG && shrink(a, dropped))
			continue;
		if (fd == -E2BIG)
			a->size = sizeof(*a);	/* as sent: the error says the rest */
		break;
	}
	return fd;
}
