/* SPDX-License-Identifier: MIT */
/*
 * blktrace-plan.c - what blktrace records: the request lifecycle tracepoints
 * block_getrq, block_rq_insert, block_rq_issue, block_rq_complete, filtered
 * in the kernel to the device of -d (a partition: its sector range, since
 * the events name the whole disk).  The device is resolved here, on the
 * recording machine, so the capture holds the filter that was applied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "analyzers/blktrace.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct blktrace_opts, f)

const char *const az_blktrace_events[BLKTRACE_NR_EVENTS] = {
	"block:block_getrq", "block:block_rq_insert", "block:block_rq_issue",
	"block:block_rq_complete",
};

static const struct pp_option blktrace_options[] = {
	PP_OPT_GROUP("blktrace options:"),
	PP_OPT_STRING('d', "device", O(device), "device",
		      "the block device: /dev/sda, /dev/sda1 (its sectors), sda or MAJOR:MINOR"),
	PP_OPT_END(),
};

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "re");
	unsigned long long x;
	int rc = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%llu", &x) != 1)
		rc = PP_ESYNTAX;
	fclose(f);
	*v = x;
	return rc;
}

int az_blktrace_dev_resolve(const char *name, struct blktrace_dev *d, char *err, size_t errsz)
{
	unsigned maj, min;
	char path[256], dummy;
	uint64_t part = 0;
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (sscanf(name, "%u:%u%c", &maj, &min, &dummy) != 2) {
		if (!strchr(name, '/'))
			snprintf(path, sizeof(path), "/dev/%s", name);
		else
			snprintf(path, sizeof(path), "%s", name);
		if (stat(path, &st)) {
			snprintf(err, errsz, "cannot stat '%s': %s", path, strerror(errno));
			return -errno;
		}
		if (!S_ISBLK(st.st_mode)) {
			snprintf(err, errsz, "'%s' is not a block device", path);
			return PP_EUSAGE;
		}
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
	}
	d->dev = maj << 20 | min;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", maj, min);
	if (!read_u64(path, &part) && part) {
		uint64_t start, size;
		char line[64];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/start", maj, min);
		if (read_u64(path, &start))
			goto err_sys;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", maj, min);
		if (read_u64(path, &size))
			goto err_sys;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", maj, min);
		f = fopen(path, "re");
		if (!f || !fgets(line, sizeof(line), f) || sscanf(line, "%u:%u", &maj, &min) != 2) {
			if (f)
				fclose(f);
			goto err_sys;
		}
		fclose(f);
		d->dev = maj << 20 | min;
		d->part = true;
		d->start = start;
		d->size = size;
	}
	return 0;
err_sys:
	snprintf(err, errsz, "cannot read %s", path);
	return PP_ENOT_FOUND;
}

char *az_blktrace_filter(const struct blktrace_dev *d)
{
	if (!d->part)
		return pp_xasprintf("dev==%u", d->dev);
	return pp_xasprintf("dev==%u&&sector>=%llu&&sector<=%llu", d->dev,
			    (unsigned long long)d->start,
			    (unsigned long long)(d->start + d->size - (d->size ? 1 : 0)));
}

static int blktrace_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct blktrace_opts *o = a->opts;
	struct blktrace_dev d;
	char m[300], *filter = NULL;
	int rc;

	if (a->common->events.nr) {
		snprintf(err, errsz,
			 "blktrace: does not take -e: it records the block request events");
		return PP_EUSAGE;
	}
	if (o->device) {
		rc = az_blktrace_dev_resolve(o->device, &d, m, sizeof(m));
		if (rc) {
			snprintf(err, errsz, "blktrace: -d %s: %s", o->device, m);
			return rc;
		}
		filter = az_blktrace_filter(&d);
	}
	/*
	 * Requests complete in interrupts and kernel threads: record on the
	 * CPUs (all of them unless -C), even for a workload.
	 */
	p->all_cpus = true;
	for (size_t i = 0; i < BLKTRACE_NR_EVENTS; i++) {
		if (filter)
			pp_plan_add_eventf(p, "%s/%s/", az_blktrace_events[i], filter);
		else
			pp_plan_add_event(p, az_blktrace_events[i]);
	}
	free(filter);
	return 0;
}

const struct pp_plan_ops azp_blktrace_plan = {
	.options = blktrace_options,
	.opts_size = sizeof(struct blktrace_opts),
	.plan = blktrace_plan,
};
