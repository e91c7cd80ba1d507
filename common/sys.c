/* SPDX-License-Identifier: MIT */
/*
 * sys.c - PP_FAULT: which call of which system call fails, and how (sys.h).
 *
 * The rules are parsed once by pp_sys_faults_init(); each armed call takes
 * a number from its counter (atomically: the writer and the ring reader are
 * threads) and fails when a rule says so.  Nothing here when PP_FAULT is
 * unset: the wrappers do not call in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/sys.h"

bool pp_sys_armed;

#define MAX_RULES 16

static const char *const call_names[PP_SYS_NR] = {
	[PP_SYS_OPEN] = "open",
	[PP_SYS_WRITE] = "write",
	[PP_SYS_MMAP] = "mmap",
	[PP_SYS_PERF_EVENT_OPEN] = "perf_event_open",
	[PP_SYS_IOCTL] = "ioctl",
	[PP_SYS_TRACEFS_READ] = "tracefs_read",
	[PP_SYS_TRACEFS_WRITE] = "tracefs_write",
	[PP_SYS_UPROBE] = "uprobe",
};

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "ENOSPC", ENOSPC }, { "EIO", EIO }, { "EINTR", EINTR }, { "EAGAIN", EAGAIN },
	{ "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENOMEM", ENOMEM }, { "EACCES", EACCES },
	{ "EPERM", EPERM }, { "EBUSY", EBUSY }, { "EINVAL", EINVAL }, { "ENOENT", ENOENT },
	{ "ENODEV", ENODEV }, { "EFBIG", EFBIG }, { "EDQUOT", EDQUOT }, { "EROFS", EROFS },
	{ "EBADF", EBADF }, { "ENOSYS", ENOSYS }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "EEXIST", EEXIST }, { "ESRCH", ESRCH },
};

/* The rules, and a counter per call; written by pp_sys_faults_init() only. */
static struct {
	enum pp_sys_call call;
	unsigned long nth;
	bool onwards;
	int what;		/* errno, or PP_SYS_SHORT */
} rules[MAX_RULES];
static size_t nr_rules;
static unsigned long counts[PP_SYS_NR];

static int parse_rule(const char *r, size_t len, char *err, size_t err_sz)
{
	char buf[64], *name, *nth, *what, *end;
	size_t i;

	if (len >= sizeof(buf) || nr_rules == MAX_RULES)
		goto bad;
	memcpy(buf, r, len);
	buf[len] = '\0';
	name = buf;
	nth = strchr(name, ':');
	what = nth ? strchr(nth + 1, ':') : NULL;
	if (!what)
		goto bad;
	*nth++ = '\0';
	*what++ = '\0';
	for (i = 0; i < PP_SYS_NR && strcmp(call_names[i], name); i++)
		;
	if (i == PP_SYS_NR) {
		snprintf(err, err_sz, "PP_FAULT: no system call '%s' (open write mmap "
			 "perf_event_open ioctl tracefs_read tracefs_write uprobe)", name);
		return -EINVAL;
	}
	rules[nr_rules].call = (enum pp_sys_call)i;
	rules[nr_rules].nth = strtoul(nth, &end, 10);
	rules[nr_rules].onwards = *end == '+';
	if (end == nth || rules[nr_rules].nth == 0 || (*end && strcmp(end, "+")))
		goto bad;
	if (!strcmp(what, "short")) {
		rules[nr_rules].what = PP_SYS_SHORT;
	} else {
		for (i = 0; i < PP_ARRAY_SIZE(errnos) && strcmp(errnos[i].name, what); i++)
			;
		if (i == PP_ARRAY_SIZE(errnos)) {
			snprintf(err, err_sz, "PP_FAULT: unknown error '%s' in '%.*s'", what,
				 (int)len, r);
			return -EINVAL;
		}
		rules[nr_rules].what = errnos[i].err;
	}
	nr_rules++;
	return 0;
bad:
	snprintf(err, err_sz, "PP_FAULT: bad rule '%.*s': expected NAME:N[+]:ERRNO|short",
		 (int)len, r);
	return -EINVAL;
}

int pp_sys_faults_init(char *err, size_t err_sz)
{
	const char *spec = getenv("PP_FAULT");

	/* again (the unit tests): a fresh start */
	nr_rules = 0;
	memset(counts, 0, sizeof(counts));
	pp_sys_armed = false;
	if (!spec || !*spec)
		return 0;
	while (*spec) {
		size_t len = strcspn(spec, ",");
		int rc = len ? parse_rule(spec, len, err, err_sz) : 0;

		if (rc) {
			nr_rules = 0;
			return rc;
		}
		spec += len + (spec[len] == ',');
	}
	pp_sys_armed = nr_rules > 0;
	return 0;
}

int pp_sys_fault(enum pp_sys_call call)
{
	unsigned long n = __atomic_add_fetch(&counts[call], 1, __ATOMIC_RELAXED);

	for (size_t i = 0; i < nr_rules; i++)
		if (rules[i].call == call && (n == rules[i].nth || (rules[i].onwards && n > rules[i].nth)))
			return rules[i].what;
	return 0;
}

ssize_t pp_sys_writev(int fd, const struct iovec *iov, int nr)
{
	int e = pp_sys_check(PP_SYS_WRITE);

	if (e > 0)
		return -1;
	if (e == PP_SYS_SHORT) {
		for (int i = 0; i < nr; i++)
			if (iov[i].iov_len)
				return write(fd, iov[i].iov_base,
					     iov[i].iov_len > 1 ? iov[i].iov_len / 2 : 1);
	}
	return writev(fd, iov, nr);
}
