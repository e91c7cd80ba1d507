/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - a perf.data (perf record, file or pipe mode) converted into a capture.
 *
 * File mode maps the file and walks its data section; pipe mode (perf record -o -,
 * or such a stream saved to a file) reads records one by one from the descriptor,
 * copying each.  Both hand every record to perfdata-records.c, which keeps the
 * metadata and writes the rest in time order.  Before the first timed record the
 * capture gets its metadata: the host facts as the KV keys pp-record writes, one
 * EVENT_DESC per event (tracepoints with their format text from the tracing data),
 * the syscall table when this machine has the file's architecture, kernel symbols
 * when its kernel is the file's.  What the file lacked is said in @info.
 * Not here: the header part, the records, the symbols (perfdata-*.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyze/import/perfdata.h"
#include "common/err.h"
#include "format/format.h"

/* The build machine's syscall names by number (gen/syscalls.h, as pp-record's). */
static const char *const syscall_names[] = {
#define REC_SYSCALL(nr, name) [nr] = #name,
#include "gen/syscalls.h"
#undef REC_SYSCALL
};

static uint32_t ev_kind(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_TRACEPOINT: return PPF_EV_TRACEPOINT;
	case PERF_TYPE_SOFTWARE: return PPF_EV_SOFTWARE;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW: return PPF_EV_HARDWARE;
	case PERF_TYPE_BREAKPOINT: return PPF_EV_BREAKPOINT;
	default: return PPF_EV_OTHER;
	}
}

int pd_write_event_desc(struct pd_file *f, struct pd_attr *a)
{
	const struct pd_format *fm = NULL;
	struct ppf_event_desc d = { 0 };

	a->written = true;
	if (a->attr.type == PERF_TYPE_TRACEPOINT)
		fm = pd_format_of(f, (uint32_t)a->attr.config);
	if (a->attr.type == PERF_TYPE_TRACEPOINT && !fm)
		fm = pd_local_format(f, (uint32_t)a->attr.config);
	if (!a->name[0] && fm)
		snprintf(a->name, sizeof(a->name), "%s", fm->name);
	if (!a->name[0])
		snprintf(a->name, sizeof(a->name), "perf-type%u/config=0x%llx", a->attr.type,
			 (unsigned long long)a->attr.config);
	/* perf's names carry modifiers ("cycles:u", "sched:sched_switch:pp"): the attr has them */
	if (fm && strncmp(a->name, fm->name, strlen(fm->name)) == 0)
		a->name[strlen(fm->name)] = '\0';
	char *mod = strrchr(a->name, ':');
	if (!fm && mod && mod[1] && strspn(mod + 1, "ukhIGHpPSDWe") == strlen(mod + 1))
		*mod = '\0';
	if (a->attr.type == PERF_TYPE_TRACEPOINT && !fm)
		ana_import_lack(f->info, "no format for tracepoint %s (no tracing data): its fields "
				"do not decode", a->name);
	d.id = a->cap_id;
	d.kind = ev_kind(&a->attr);
	d.flags = (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ? PPF_EVF_STACK : 0;
	d.tp_id = fm ? fm->id : 0;
	d.name = a->name;
	d.selector = a->name;
	d.filter = "";
	d.attr = &a->attr;
	d.attr_sz = sizeof(a->attr);
	d.format = fm ? fm->text : "";
	return ppf_write_event_desc(f->w, &d);
}

static int write_kv(struct pd_file *f, const char *k, const char *v)
{
	return v && *v ? ppf_write_kv(f->w, k, v) : 0;
}

static int write_host(struct pd_file *f)
{
	char on[16], av[16], page[16], cpus[8192];
	const char *clock = f->clockid < 0 ? "perf" : f->clockid == 1 ? "monotonic" :
			    f->clockid == 4 ? "monotonic_raw" : f->clockid == 7 ? "boottime" :
			    f->clockid == 0 ? "realtime" : "other";
	size_t n = 0;
	int rc;

	snprintf(on, sizeof(on), "%u", f->nr_cpus_online);
	snprintf(av, sizeof(av), "%u", f->nr_cpus_avail);
	snprintf(page, sizeof(page), "%u", f->page_size ? f->page_size : 4096);
	cpus[0] = '\0';
	for (uint32_t c = 0; c < f->nr_cpus_online && c < 1024 && n < sizeof(cpus) - 8; c++)
		n += (size_t)snprintf(cpus + n, sizeof(cpus) - n, "%s%u", c ? "," : "", c);
	rc = write_kv(f, "hostname", f->hostname);
	if (!rc)
		rc = write_kv(f, "release", f->osrelease);
	if (!rc)
		rc = write_kv(f, "machine", f->arch);
	if (!rc && f->nr_cpus_online)
		rc = write_kv(f, "nr_cpus_online", on);
	if (!rc && f->nr_cpus_avail)
		rc = write_kv(f, "nr_cpus_possible", av);
	if (!rc)
		rc = write_kv(f, "page_size", page);
	if (!rc)
		rc = write_kv(f, "clock", clock);
	if (!rc)
		rc = write_kv(f, "cmdline", f->cmdline);
	if (!rc)
		rc = write_kv(f, "record.cpus", cpus);
	if (!rc && f->header_page)
		rc = write_kv(f, "tracefs.header_page", f->header_page);
	if (!rc && f->have_clock_data && f->clockid == 1) {
		struct ppf_time_sync ts = { f->clock_ns, f->tod_ns };
		rc = ppf_write_time_sync(f->w, &ts);
	}
	return rc;
}

/* The syscall numbers of this machine: the file's too when it is of the same architecture. */
static int write_syscalls(struct pd_file *f)
{
	struct utsname u;
	int rc = 0;

	uname(&u);
	if (f->arch[0] && strcmp(f->arch, u.machine)) {
		ana_import_lack(f->info, "no syscall table: the file is of %s, this machine %s "
				"(syscalls show as numbers)", f->arch, u.machine);
		return 0;
	}
	for (uint32_t nr = 0; nr < sizeof(syscall_names) / sizeof(syscall_names[0]) && !rc; nr++)
		if (syscall_names[nr])
			rc = ppf_write_syscall(f->w, nr, syscall_names[nr]);
	return rc;
}

/* Whether an event samples code addresses: callchains, or the ip of a non-tracepoint event. */
static bool samples_code(const struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_attrs; i++) {
		const struct perf_event_attr *a = &f->attrs[i].attr;

		if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
			continue;	/* perf's side-band event */
		if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) ||
		    ((a->sample_type & PERF_SAMPLE_IP) && a->type != PERF_TYPE_TRACEPOINT))
			return true;
	}
	return false;
}

/*
 * Whether kernel symbols can name anything: code addresses, or a tracepoint field printed
 * as a symbol (%ps, %pS, %pB ...).  Else reading this machine's 100,000 of them would cost
 * a replay of sched events a good part of its time for nothing.
 */
static bool needs_ksyms(const struct pd_file *f)
{
	if (samples_code(f))
		return true;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		const struct pd_format *fm = f->attrs[i].attr.type == PERF_TYPE_TRACEPOINT ?
					     pd_format_of(f, (uint32_t)f->attrs[i].attr.config) : NULL;

		for (const char *p = fm ? fm->text : ""; (p = strstr(p, "%p")); p += 2)
			if (strchr("sSfFB", p[2]) && p[2])
				return true;
	}
	return false;
}

int pd_write_meta(struct pd_file *f)
{
	int rc;

	f->meta_written = true;
	f->want_usyms = samples_code(f);
	rc = write_host(f);
	if (!rc)
		rc = write_syscalls(f);
	for (size_t i = 0; i < f->nr_attrs && !rc; i++) {
		struct pd_attr *a = &f->attrs[i];

		if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_DUMMY)
			continue;	/* perf's side-band event: no samples of its own */
		rc = pd_write_event_desc(f, a);
	}
	if (!rc && needs_ksyms(f))
		rc = pd_write_ksyms(f);
	else if (!rc)
		ana_import_lack(f->info, "no kernel symbol table in a perf.data (none needed: no "
				"event samples kernel code or prints a kernel symbol)");
	return rc;
}

/* --- the data ------------------------------------------------------------ */

/* Bytes a tool record carries after its header.size (pipe mode's tracing data, aux data). */
static int extra_bytes(const uint8_t *rec, size_t sz, uint64_t *extra)
{
	uint32_t type = pd_u32(rec);

	*extra = 0;
	if (type == PD_HEADER_TRACING_DATA && sz >= 12)
		*extra = ((uint64_t)pd_u32(rec + 8) + 7) & ~7ull;
	else if (type == PD_AUXTRACE && sz >= 16)
		*extra = pd_u64(rec + 8);
	return type == PD_HEADER_TRACING_DATA;
}

static void stopped_at(struct pd_file *f, uint64_t off, const char *why)
{
	char *s = f->info->stopped;
	size_t n = strlen(s);

	/* after what the header said of the data section, if it said anything */
	snprintf(s + n, sizeof(f->info->stopped) - n, "%sread up to offset %llu, where %s",
		 n ? "; " : "", (unsigned long long)off, why);
}

/* File mode: the records of the mapped data section. */
static int walk_map(struct pd_file *f, uint64_t at, uint64_t end)
{
	/* the header said the file ends before the data section does */
	bool cut = f->info->stopped[0] != '\0';

	while (end - at >= 8) {
		const uint8_t *rec = f->map + at;
		uint16_t sz;
		uint64_t extra;

		memcpy(&sz, rec + 6, 2);
		if (sz < 8) {
			stopped_at(f, at, "a record claims a size under 8 bytes");
			return 0;
		}
		if (sz > end - at) {
			stopped_at(f, at, "the file ends inside a record");
			return 0;
		}
		bool tracing = extra_bytes(rec, sz, &extra);
		if (extra > end - at - sz) {
			stopped_at(f, at, "the file ends inside a record's payload");
			return 0;
		}
		if (tracing && pd_tracing_data(f, rec + sz, (size_t)extra))
			ana_import_lack(f->info, "tracing data unreadable: %s", f->err);
		else if (!tracing && pd_record(f, rec, sz, true))
			return -1;
		f->err[0] = '\0';
		at += sz + extra;
		f->info->bytes = at;
		if ((f->info->records & 0xffff) == 0)
			ana_import_progress(f->info, at);
	}
	if (at != end)
		stopped_at(f, at, cut ? "the file ends inside a record header" :
					"the data section ends inside a record header");
	else if (cut)	/* on a record's edge: still where the reading stopped */
		stopped_at(f, at, "the file ends");
	return 0;
}

/* Exactly @n bytes from the fd. Return: n, fewer at the end, or -1. */
static ssize_t read_full(int fd, uint8_t *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Pipe mode: records one by one (the 16-byte header already read). */
static int walk_fd(struct pd_file *f)
{
	uint8_t *buf = malloc(PD_MAX_RECORD);
	uint64_t off = 16;
	int rc = 0;

	if (!buf)
		return pd_set_err(f, "out of memory");
	for (;;) {
		ssize_t n = read_full(f->fd, buf, 8);
		uint16_t sz;
		uint64_t extra;

		if (n == 0)
			break;
		if (n < 8) {
			stopped_at(f, off, n < 0 ? "reading failed" : "the stream ends inside a record");
			break;
		}
		memcpy(&sz, buf + 6, 2);
		if (sz < 8) {
			stopped_at(f, off, "a record claims a size under 8 bytes");
			break;
		}
		if (read_full(f->fd, buf + 8, sz - 8u) != sz - 8) {
			stopped_at(f, off, "the stream ends inside a record");
			break;
		}
		bool tracing = extra_bytes(buf, sz, &extra);
		if (tracing && extra <= PD_MAX_TRACING) {
			uint8_t *t = malloc(extra ? (size_t)extra : 1);
			if (!t || read_full(f->fd, t, (size_t)extra) != (ssize_t)extra) {
				free(t);
				stopped_at(f, off, "the stream ends inside the tracing data");
				break;
			}
			if (pd_tracing_data(f, t, (size_t)extra))
				ana_import_lack(f->info, "tracing data unreadable: %s", f->err);
			f->err[0] = '\0';
			free(t);
		} else if (extra) {	/* aux data: skipped */
			uint64_t left = extra;
			while (left) {
				size_t k = left > PD_MAX_RECORD ? PD_MAX_RECORD : (size_t)left;
				if (read_full(f->fd, buf, k) != (ssize_t)k)
					break;
				left -= k;
			}
			if (left) {
				stopped_at(f, off, "the stream ends inside a record's payload");
				break;
			}
		} else if ((rc = pd_record(f, buf, sz, false))) {
			break;
		}
		off += sz + extra;
		f->info->bytes = off;
		if ((f->info->records & 0xffff) == 0)
			ana_import_progress(f->info, off);
	}
	free(buf);
	return rc;
}

/* What the file was and lacked, for @info. */
static void tell(struct pd_file *f)
{
	struct ana_import_info *in = f->info;

	snprintf(in->tool, sizeof(in->tool), "perf");
	snprintf(in->version, sizeof(in->version), "%.48s%s", f->version[0] ? f->version : "(version unknown)",
		 f->pipe ? " (pipe mode)" : "");
	snprintf(in->host, sizeof(in->host), "%s", f->hostname);
	snprintf(in->release, sizeof(in->release), "%s", f->osrelease);
	snprintf(in->arch, sizeof(in->arch), "%s", f->arch);
	snprintf(in->cmdline, sizeof(in->cmdline), "%s", f->cmdline);
	in->nr_cpus = f->nr_cpus_online;
	for (size_t i = 0; i < f->nr_attrs; i++) {
		uint64_t t = f->attrs[i].attr.sample_type;
		if (t & PERF_SAMPLE_BRANCH_STACK)
			ana_import_lack(in, "branch stacks (-b, -j) not carried over");
	}
	if (f->nr_nocpu)
		ana_import_lack(in, "%llu samples carry no CPU (perf record without -a): "
				"counted on CPU 0", (unsigned long long)f->nr_nocpu);
	if (f->nr_unordered)
		ana_import_lack(in, "%llu records carry no time: kept where they came",
				(unsigned long long)f->nr_unordered);
	if (f->nr_bad)
		ana_import_lack(in, "%llu samples malformed or of no known event: skipped",
				(unsigned long long)f->nr_bad);
	if (f->nr_dsos)
		ana_import_lack(in, "user symbols: %llu of %llu binaries found on this machine%s",
				(unsigned long long)f->nr_dsos_matched, (unsigned long long)f->nr_dsos,
				f->nr_dsos_nobid ? " (no build ids in the file: matched by path, "
				"unchecked)" : " with the file's build id; the others as addresses");
	for (size_t i = 0; i < f->nr_attrs; i++)
		if (f->attrs[i].attr.sample_type & PERF_SAMPLE_STACK_USER) {
			ana_import_lack(in, "stack copies (--call-graph dwarf): unwind tables of %llu "
					"of %llu binaries, from this machine's files (stacks stop in "
					"the others)", (unsigned long long)f->nr_dsos_unwind,
					(unsigned long long)f->nr_dsos);
			break;
		}
}

static void pd_release(struct pd_file *f)
{
	pd_records_release(f);
	if (f->map)
		munmap((void *)f->map, f->map_sz);
	if (f->fd > 0)
		close(f->fd);
	pp_u64map_release(&f->ids);
	pp_u64map_release(&f->dsos_seen);
	while (f->nr_formats)
		free(f->formats[--f->nr_formats].text);
	while (f->nr_bids)
		free(f->bids[--f->nr_bids].path);
	void *owned[] = { f->attrs, f->formats, f->bids, f->header_page, f };
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		free(owned[i]);
}

/* Open @path: map a file-mode file, or keep the fd of a pipe-mode stream. Return: 0 or -1. */
static int pd_open(struct pd_file *f, const char *path)
{
	uint8_t head[16];
	struct stat st;

	f->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (f->fd < 0)
		return pd_set_err(f, "cannot open: %s", strerror(errno));
	if (!fstat(f->fd, &st) && S_ISREG(st.st_mode) && st.st_size >= 16 &&
	    pread(f->fd, head, 16, 0) == 16 && pd_u64(head + 8) != 16) {
		f->map_sz = (size_t)st.st_size;
		f->map = mmap(NULL, f->map_sz, PROT_READ, MAP_PRIVATE, f->fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			return pd_set_err(f, "cannot map: %s", strerror(errno));
		}
		f->info->total_bytes = f->map_sz;
		return 0;
	}
	f->pipe = true;
	if (read_full(f->fd, head, 16) != 16)
		return pd_set_err(f, "the pipe header is cut off");
	if (pd_u64(head + 8) != 16)
		return pd_set_err(f, "a pipe header of size %llu (16)", (unsigned long long)pd_u64(head + 8));
	return 0;
}

int ana_import_perfdata(const char *path, struct ppf_writer *w, struct ana_import_info *info)
{
	struct pd_file *f = calloc(1, sizeof(*f));
	uint64_t off = 0, sz = 0;
	int rc;

	if (!f)
		return -ENOMEM;
	f->path = path;
	f->w = w;
	f->info = info;
	f->clockid = -1;
	f->fd = -1;
	rc = pd_open(f, path);
	if (!rc && f->map && !memcmp(f->map, "2ELIFREP", 8))
		rc = pd_set_err(f, "a big-endian perf.data: not supported");
	if (!rc && f->map)
		rc = pd_read_file_header(f, &off, &sz);
	if (!rc)
		rc = f->map ? walk_map(f, off, off + sz) : walk_fd(f);
	if (!rc)
		rc = pd_flush(f);
	if (!rc) {
		tell(f);
	} else {
		snprintf(info->stopped, sizeof(info->stopped), "%.190s", f->err);
	}
	pd_release(f);
	return rc ? PP_EBAD_RECORD : 0;
}
