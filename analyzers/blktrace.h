/* SPDX-License-Identifier: MIT */
/*
 * blktrace.h - the options of the blktrace analyzer and its device filter,
 * shared by blktrace.c and blktrace-plan.c (which pp-record links).
 */
#ifndef PP_AZ_BLKTRACE_H
#define PP_AZ_BLKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blktrace_opts {
	const char *device;	/* -d: /dev/sda, /dev/sda1, sda, or MAJOR:MINOR */
};

/* A device as the block tracepoints name it. */
struct blktrace_dev {
	uint32_t dev;		/* the kernel's dev_t of the whole disk: major << 20 | minor */
	bool part;		/* a partition: only sectors [start, start + size) */
	uint64_t start, size;	/* in 512-byte sectors */
};

/**
 * az_blktrace_dev_resolve() - the disk and sector range of block device @name
 * @name: "/dev/sda1", "sda1" or "8:1"
 * @d: receives the device
 * @err: a one-line message on failure
 *
 * Reads stat() of the device node and /sys/dev/block/MAJ:MIN/{partition,start,size}.
 * Return: 0 or a negative code.
 */
int az_blktrace_dev_resolve(const char *name, struct blktrace_dev *d, char *err, size_t errsz);

/**
 * az_blktrace_filter() - the tracepoint filter of @d: "dev==N" or
 * "dev==N&&sector>=S&&sector<=E"
 * Return: a string the caller frees.
 */
char *az_blktrace_filter(const struct blktrace_dev *d);

/* The request lifecycle events, in order. */
#define BLKTRACE_NR_EVENTS 4
extern const char *const az_blktrace_events[BLKTRACE_NR_EVENTS];

#endif
