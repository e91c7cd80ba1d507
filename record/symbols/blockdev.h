/* SPDX-License-Identifier: MIT */
/*
 * blockdev.h - the machine's block devices as capture host keys (for blktrace -d).
 */
#ifndef PP_RECORD_BLOCKDEV_H
#define PP_RECORD_BLOCKDEV_H

struct ppf_writer;

/**
 * rec_blockdev_snapshot() - one host key per block device of /sys/class/block
 *
 * "blockdev.NAME" = "MAJ:MIN DISK_MAJ:DISK_MIN START SIZE": the device, the
 * disk the block events name for it (itself for a whole disk), and its first
 * sector and size in 512-byte sectors (START 0 for a whole disk).  Devices
 * whose sysfs files cannot be read are left out.
 * Return: 0 or the writer's error.
 */
int rec_blockdev_snapshot(struct ppf_writer *w);

#endif
