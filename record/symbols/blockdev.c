/* SPDX-License-Identifier: MIT */
/*
 * blockdev.c - /sys/class/block as host keys, so that a capture knows which
 * dev_t and sector range a device name meant on the recording machine.
 *
 * The block tracepoints name the whole disk and absolute sectors even for
 * I/O to a partition; blktrace -d PARTITION at analysis needs the disk and
 * the partition's range as they were when recording.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "record/symbols/blockdev.h"

/* "M:m" of a sysfs dev file; false if unreadable */
static bool read_dev(const char *path, unsigned *maj, unsigned *min)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%u:%u", maj, min) == 2;
	fclose(f);
	return ok;
}

static bool read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

int rec_blockdev_snapshot(struct ppf_writer *w)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		unsigned maj, min, dmaj, dmin;
		unsigned long long start = 0, size = 0, part = 0;
		char path[512], key[300], val[128];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", de->d_name);
		if (!read_dev(path, &maj, &min))
			continue;
		dmaj = maj;
		dmin = min;
		snprintf(path, sizeof(path), "/sys/class/block/%s/partition", de->d_name);
		if (read_ull(path, &part) && part) {
			snprintf(path, sizeof(path), "/sys/class/block/%s/../dev", de->d_name);
			if (!read_dev(path, &dmaj, &dmin))
				continue;
			snprintf(path, sizeof(path), "/sys/class/block/%s/start", de->d_name);
			if (!read_ull(path, &start))
				continue;
		}
		snprintf(path, sizeof(path), "/sys/class/block/%s/size", de->d_name);
		read_ull(path, &size);
		snprintf(key, sizeof(key), "blockdev.%s", de->d_name);
		snprintf(val, sizeof(val), "%u:%u %u:%u %llu %llu", maj, min, dmaj, dmin, start, size);
		rc = ppf_write_kv(w, key, val);
	}
	closedir(d);
	return rc;
}
