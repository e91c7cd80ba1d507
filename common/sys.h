/* SPDX-License-Identifier: MIT */
/*
 * sys.h - the system calls that can fail, through one seam tests can make fail.
 *
 * pp-record and the capture writer call open, write (writev, pwrite), mmap,
 * perf_event_open and ioctl, and change tracefs (reads, writes, uprobe
 * definitions), through these wrappers.  Each is the system call plus one
 * branch on pp_sys_armed, which is false unless PP_FAULT was set when the
 * program called pp_sys_faults_init() (its main()).  PP_FAULT is a comma
 * list of NAME:N[+]:WHAT, parsed once:
 *
 *   NAME  open write mmap perf_event_open ioctl tracefs_read tracefs_write
 *         uprobe
 *   N     the Nth call of NAME fails (counted from 1, in the whole process);
 *         N+ the Nth and every later one
 *   WHAT  an errno name (ENOSPC, EIO, EINTR, EMFILE, EACCES, ...) the call
 *         fails with, without doing anything; or "short": a write of more
 *         than one byte writes only the first half
 *
 *   PP_FAULT='write:5:ENOSPC,perf_event_open:3:EMFILE' pp-record ...
 *
 * tracefs_read and tracefs_write count whole reads and writes of a tracefs
 * file (record/ftrace/tracefs.c, record/ftrace/ftrace.c), uprobe each uprobe or kprobe
 * definition written (record/probe/uprobe.c, which also counts as a tracefs_write);
 * open and write are the capture's, its rotation's and the spill file's
 * (write counts write, writev and pwrite alike), not those of /proc or
 * tracefs.  A bad PP_FAULT is reported by
 * pp_sys_faults_init().  SQLite's overridable aSyscall[] is the model; this
 * is the one mutable global of common/ besides the log level, set once in
 * main() before any thread starts.  Not here: retrying (common/io.c).
 */
#ifndef PP_COMMON_SYS_H
#define PP_COMMON_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/perf_event.h>

enum pp_sys_call {
	PP_SYS_OPEN,
	PP_SYS_WRITE,		/* write, writev and pwrite */
	PP_SYS_MMAP,
	PP_SYS_PERF_EVENT_OPEN,
	PP_SYS_IOCTL,
	PP_SYS_TRACEFS_READ,
	PP_SYS_TRACEFS_WRITE,
	PP_SYS_UPROBE,
	PP_SYS_NR,
};

/* pp_sys_fault()'s answer for a write that is to be cut short (not an errno). */
#define PP_SYS_SHORT (-1)

/* True once pp_sys_faults_init() found a PP_FAULT: the wrappers then ask pp_sys_fault(). */
extern bool pp_sys_armed;

/**
 * pp_sys_faults_init() - read PP_FAULT once (main(), before threads start)
 * @err: receives the reason when PP_FAULT is malformed
 * @err_sz: its size
 *
 * Return: 0 (also without PP_FAULT), or -EINVAL with @err set.
 */
int pp_sys_faults_init(char *err, size_t err_sz);

/**
 * pp_sys_fault() - count a call of @call and say whether it must fail
 * Return: 0 (go on), an errno value to fail with, or PP_SYS_SHORT.
 */
int pp_sys_fault(enum pp_sys_call call);

/* The wrappers: the system call, unless pp_sys_fault() says otherwise. */

static inline int pp_sys_check(enum pp_sys_call call)
{
	int e;

	if (__builtin_expect(!pp_sys_armed, 1))
		return 0;
	e = pp_sys_fault(call);
	if (e > 0)
		errno = e;
	return e;
}

static inline int pp_sys_open(const char *path, int flags, mode_t mode)
{
	return pp_sys_check(PP_SYS_OPEN) > 0 ? -1 : open(path, flags, mode);
}

static inline ssize_t pp_sys_write(int fd, const void *buf, size_t n)
{
	int e = pp_sys_check(PP_SYS_WRITE);

	if (e > 0)
		return -1;
	return write(fd, buf, e == PP_SYS_SHORT && n > 1 ? n / 2 : n);
}

static inline ssize_t pp_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	int e = pp_sys_check(PP_SYS_WRITE);

	if (e > 0)
		return -1;
	return pwrite(fd, buf, e == PP_SYS_SHORT && n > 1 ? n / 2 : n, off);
}

/**
 * pp_sys_writev() - writev(); a short fault writes half of the first non-empty piece.
 */
ssize_t pp_sys_writev(int fd, const struct iovec *iov, int nr);

static inline void *pp_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return pp_sys_check(PP_SYS_MMAP) > 0 ? MAP_FAILED : mmap(addr, len, prot, flags, fd, off);
}

static inline int pp_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
					 int group, unsigned long flags)
{
	if (pp_sys_check(PP_SYS_PERF_EVENT_OPEN) > 0)
		return -1;
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group, flags);
}

/* a macro: ioctl()'s third argument is an int, a pointer or a string by request */
#define pp_sys_ioctl(fd, req, arg) (pp_sys_check(PP_SYS_IOCTL) > 0 ? -1 : ioctl(fd, req, arg))

#endif
