/* SPDX-License-Identifier: MIT */
/*
 * perfdata-header.c - perf.data's header part: the file header, the attrs with their
 * event ids, and the feature sections that matter to a capture (host, release,
 * command line, CPUs, event names, build ids, tracing data, clock).
 *
 * File mode reads them from the sections the header names; pipe mode hands the same
 * payloads over from HEADER_ATTR and HEADER_FEATURE records (perfdata-records.c).
 * Strings in features are {u32 len; char s[len]} with len counting the NUL and the
 * padding; every length is checked against the section that holds it.
 * Not here: the tracing data's contents (perfdata-tracing.c), records.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/import/perfdata.h"

int pd_set_err(struct pd_file *f, const char *fmt, ...)
{
	va_list ap;

	if (f->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Where the first u64 ids of an event are in its records (perf's id_pos and is_pos). */
static void id_positions(struct pd_file *f)
{
	uint64_t t = f->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER) {
		f->id_pos = 0;
		f->is_pos = 1;
		return;
	}
	f->id_pos = -1;
	f->is_pos = -1;
	if (!(t & PERF_SAMPLE_ID))
		return;
	f->id_pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		    !!(t & PERF_SAMPLE_ADDR);
	f->is_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
}

int pd_add_attr(struct pd_file *f, const uint8_t *attr, size_t attr_sz, const uint8_t *ids,
		size_t nr_ids)
{
	struct pd_attr *a;

	if (f->nr_attrs >= PD_MAX_ATTRS)
		return pd_set_err(f, "more than %u events", PD_MAX_ATTRS);
	if (attr_sz < PERF_ATTR_SIZE_VER0)
		return pd_set_err(f, "an attr of %zu bytes (at least %d)", attr_sz, PERF_ATTR_SIZE_VER0);
	if (nr_ids > PD_MAX_IDS - f->nr_ids)
		return pd_set_err(f, "more than %u event ids", PD_MAX_IDS);
	f->attrs = realloc(f->attrs, (f->nr_attrs + 1) * sizeof(*f->attrs));
	if (!f->attrs)
		return pd_set_err(f, "out of memory");
	a = &f->attrs[f->nr_attrs++];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr_sz < sizeof(a->attr) ? attr_sz : sizeof(a->attr));
	a->cap_id = (uint32_t)f->nr_attrs;
	for (size_t i = 0; i < nr_ids; i++)
		pp_u64map_put(&f->ids, pd_u64(ids + 8 * i), (void *)(uintptr_t)f->nr_attrs);
	f->nr_ids += nr_ids;
	f->last_ok = false;
	if (f->nr_attrs == 1) {
		f->sample_type = a->attr.sample_type;
		f->sample_id_all = a->attr.sample_id_all;
		id_positions(f);
	}
	return 0;
}

struct pd_attr *pd_attr_of_id(struct pd_file *f, uint64_t id)
{
	uintptr_t i;

	/* a run of samples mostly comes from one event: its id asked again */
	if (f->last_ok && id == f->last_id) {
		i = f->last_idx;
	} else {
		i = (uintptr_t)pp_u64map_get(&f->ids, id);
		f->last_id = id;
		f->last_idx = i;
		f->last_ok = true;
	}
	if (i && i <= f->nr_attrs)
		return &f->attrs[i - 1];
	return f->nr_attrs == 1 ? &f->attrs[0] : NULL;
}

/* A feature string at @*p (of @*left bytes) into @out. Return: 0 or -1. */
static int feat_str(const uint8_t **p, size_t *left, char *out, size_t outsz)
{
	uint32_t len;
	size_t n;

	if (*left < 4)
		return -1;
	len = pd_u32(*p);
	if (len > *left - 4)
		return -1;
	n = strnlen((const char *)*p + 4, len);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, *p + 4, n);
	out[n] = '\0';
	*p += 4 + len;
	*left -= 4 + len;
	return 0;
}

/* CMDLINE: a string list, joined by spaces. */
static int feat_cmdline(struct pd_file *f, const uint8_t *p, size_t sz)
{
	uint32_t nr;
	char arg[512];

	if (sz < 4)
		return pd_set_err(f, "feature cmdline: %zu bytes", sz);
	nr = pd_u32(p);
	p += 4;
	sz -= 4;
	f->cmdline[0] = '\0';
	for (uint32_t i = 0; i < nr; i++) {
		size_t n = strlen(f->cmdline);

		if (feat_str(&p, &sz, arg, sizeof(arg)))
			return pd_set_err(f, "feature cmdline: argument %u runs past its section", i);
		snprintf(f->cmdline + n, sizeof(f->cmdline) - n, "%s%s", n ? " " : "", arg);
	}
	return 0;
}

/* EVENT_DESC: {u32 nr, u32 attr_size; nr x {attr, u32 nr_ids, string name, u64 ids[]}} */
static int feat_event_desc(struct pd_file *f, const uint8_t *p, size_t sz)
{
	uint32_t nr, asz;

	if (sz < 8)
		return pd_set_err(f, "feature event_desc: %zu bytes", sz);
	nr = pd_u32(p);
	asz = pd_u32(p + 4);
	p += 8;
	sz -= 8;
	for (uint32_t i = 0; i < nr; i++) {
		char name[256];
		uint32_t nids;

		if (asz < PERF_ATTR_SIZE_VER0 || sz < (size_t)asz + 4)
			return pd_set_err(f, "feature event_desc: event %u runs past its section", i);
		nids = pd_u32(p + asz);
		p += asz + 4;
		sz -= asz + 4;
		if (feat_str(&p, &sz, name, sizeof(name)) || nids > sz / 8)
			return pd_set_err(f, "feature event_desc: event %u runs past its section", i);
		/* the name goes to the event of its first id (pipe mode: of the same index) */
		struct pd_attr *a = nids ? pd_attr_of_id(f, pd_u64(p)) : NULL;
		if (!a && i < f->nr_attrs)
			a = &f->attrs[i];
		if (a && !a->name[0])
			snprintf(a->name, sizeof(a->name), "%s", name);
		p += 8 * (size_t)nids;
		sz -= 8 * (size_t)nids;
	}
	return 0;
}

/* BUILD_ID: build_id_event records {header; pid; u8 id[20]; u8 size; u8 pad[3]; filename} */
static int feat_build_ids(struct pd_file *f, const uint8_t *p, size_t sz)
{
	while (sz >= 8 && f->nr_bids < PD_MAX_BUILD_IDS) {
		uint16_t misc, rsz;
		struct pd_build_id *b;

		memcpy(&misc, p + 4, 2);
		memcpy(&rsz, p + 6, 2);
		if (rsz < 8 + 4 + 24 || rsz > sz)
			break;	/* the rest of the table is not trusted */
		f->bids = realloc(f->bids, (f->nr_bids + 1) * sizeof(*f->bids));
		if (!f->bids)
			return pd_set_err(f, "out of memory");
		b = &f->bids[f->nr_bids++];
		memcpy(b->id, p + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size is given, else 20 */
		b->sz = (misc & (1 << 15)) && p[32] <= 20 ? p[32] : 20;
		b->kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
		b->path = strndup((const char *)p + 36, rsz - 36u);
		if (!b->path)
			return pd_set_err(f, "out of memory");
		p += rsz;
		sz -= rsz;
	}
	return 0;
}

const struct pd_build_id *pd_build_id_of(const struct pd_file *f, const char *path)
{
	for (size_t i = 0; i < f->nr_bids; i++)
		if (!strcmp(f->bids[i].path, path))
			return &f->bids[i];
	return NULL;
}

int pd_feature(struct pd_file *f, unsigned feat, const uint8_t *p, size_t sz)
{
	const uint8_t *q = p;
	size_t left = sz;

	switch (feat) {
	case PD_FEAT_TRACING_DATA:
		return pd_tracing_data(f, p, sz);
	case PD_FEAT_BUILD_ID:
		return feat_build_ids(f, p, sz);
	case PD_FEAT_HOSTNAME:
	case PD_FEAT_OSRELEASE:
	case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: {
		/* one string each, into its field */
		char *const to[] = { f->hostname, f->osrelease, f->version, f->arch };
		const size_t tosz[] = { sizeof(f->hostname), sizeof(f->osrelease),
					sizeof(f->version), sizeof(f->arch) };
		unsigned k = feat - PD_FEAT_HOSTNAME;

		return feat_str(&q, &left, to[k], tosz[k]) ?
		       pd_set_err(f, "feature %u: bad string", feat) : 0;
	}
	case PD_FEAT_NRCPUS:
		if (sz < 8)
			return pd_set_err(f, "feature nrcpus: %zu bytes", sz);
		f->nr_cpus_avail = pd_u32(p);
		f->nr_cpus_online = pd_u32(p + 4);
		return 0;
	case PD_FEAT_CMDLINE:
		return feat_cmdline(f, p, sz);
	case PD_FEAT_EVENT_DESC:
		return feat_event_desc(f, p, sz);
	case PD_FEAT_CLOCKID:
		if (sz >= 8)
			f->clockid = (int)pd_u64(p);
		return 0;
	case PD_FEAT_CLOCK_DATA:
		/* {u32 version, u32 clockid, u64 wall clock ns, u64 clockid ns} */
		if (sz >= 24 && pd_u32(p) >= 1) {
			f->clockid = (int)pd_u32(p + 4);
			f->tod_ns = pd_u64(p + 8);
			f->clock_ns = pd_u64(p + 16);
			f->have_clock_data = true;
		}
		return 0;
	default:
		return 0;
	}
}

/* The feature sections after the data: one {offset, size} per bit set, in bit order. */
static void read_features(struct pd_file *f, const uint8_t *bits, uint64_t at)
{
	char lost[200] = "";
	size_t n = 0;

	for (unsigned feat = 1; feat < PD_FEAT_MAX; feat++) {
		uint64_t off = 0, sz = 0;

		if (!(bits[feat / 8] & (1u << (feat % 8))))
			continue;
		if (at <= f->map_sz && f->map_sz - at >= 16) {
			off = pd_u64(f->map + at);
			sz = pd_u64(f->map + at + 16 - 8);
		}
		at += 16;
		if (at > f->map_sz || off > f->map_sz || sz > f->map_sz - off) {
			/* cut off or lying: one line for all of them */
			if (n < sizeof(lost) - 8)
				n += (size_t)snprintf(lost + n, sizeof(lost) - n, "%s%u", n ? "," : "", feat);
			continue;
		}
		if (pd_feature(f, feat, f->map + off, (size_t)sz)) {
			ana_import_lack(f->info, "feature %u unreadable (%s): skipped", feat, f->err);
			f->err[0] = '\0';
		}
	}
	if (n)
		ana_import_lack(f->info, "feature sections %s outside the file (cut off?): their "
				"facts are missing", lost);
}

int pd_read_file_header(struct pd_file *f, uint64_t *data_off, uint64_t *data_sz)
{
	const uint8_t *h = f->map;
	uint64_t hsz, attr_sz, a_off, a_sz, d_off, d_sz;

	if (f->map_sz < 104)
		return pd_set_err(f, "file header cut off at %zu bytes (104)", f->map_sz);
	hsz = pd_u64(h + 8);
	attr_sz = pd_u64(h + 16);
	a_off = pd_u64(h + 24);
	a_sz = pd_u64(h + 32);
	d_off = pd_u64(h + 40);
	d_sz = pd_u64(h + 48);
	if (hsz < 104 || hsz > f->map_sz)
		return pd_set_err(f, "file header size %llu", (unsigned long long)hsz);
	if (attr_sz < PERF_ATTR_SIZE_VER0 + 16 || attr_sz > 4096)
		return pd_set_err(f, "attr entries of %llu bytes", (unsigned long long)attr_sz);
	if (a_off > f->map_sz || a_sz > f->map_sz - a_off)
		return pd_set_err(f, "attrs section [%llu, +%llu) outside the file (%zu bytes)",
				  (unsigned long long)a_off, (unsigned long long)a_sz, f->map_sz);
	for (uint64_t at = a_off; at + attr_sz <= a_off + a_sz; at += attr_sz) {
		const uint8_t *e = f->map + at;
		uint64_t ids_off = pd_u64(e + attr_sz - 16), ids_sz = pd_u64(e + attr_sz - 8);

		if (ids_off > f->map_sz || ids_sz > f->map_sz - ids_off)
			return pd_set_err(f, "event %zu: ids outside the file", f->nr_attrs);
		if (pd_add_attr(f, e, attr_sz - 16, f->map + ids_off, ids_sz / 8))
			return -1;
	}
	if (!f->nr_attrs)
		return pd_set_err(f, "no events in the attrs section");
	if (d_off > f->map_sz)
		return pd_set_err(f, "data section at %llu, past the end of the file (%zu bytes)",
				  (unsigned long long)d_off, f->map_sz);
	if (!d_sz) {	/* perf did not finish the file: its records run to the end */
		ana_import_lack(f->info, "perf did not finish the file (data size 0): its records "
				"read to the end, no feature sections");
		d_sz = f->map_sz - d_off;
	} else if (d_sz > f->map_sz - d_off) {
		snprintf(f->info->stopped, sizeof(f->info->stopped), "data section cut off: %llu of "
			 "%llu bytes in the file", (unsigned long long)(f->map_sz - d_off),
			 (unsigned long long)d_sz);
		d_sz = f->map_sz - d_off;
	} else {
		read_features(f, h + 72, d_off + d_sz);
	}
	*data_off = d_off;
	*data_sz = d_sz;
	return 0;
}
