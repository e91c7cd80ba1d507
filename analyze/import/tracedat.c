/* SPDX-License-Identifier: MIT */
/*
 * tracedat.c - a trace.dat read through libtracecmd and written as a capture.
 *
 * libtracecmd opens the file (versions 6 and 7, compressed sections included), parses its
 * formats, kallsyms, printk formats and cmdlines into a tep handle, and iterates the top
 * instance's per-CPU buffers merged in time order.  The capture gets, in this order: KVs
 * saying where it came from, one EVENT_DESC per event format (the text written back by
 * tdformat.c), TASK records from the saved cmdlines, SYSCALL names when the file's machine
 * is this build's, KSYM records walked out of the function map, then one SAMPLE per record.
 * A kernel_stack record (trace-cmd record -T) becomes the call stack of the sample before
 * it on its CPU, which is held back one record for that.  The writer wants time that never
 * goes back: a record older than the last one written (a damaged page) is written at the
 * last time and counted.  Before libtracecmd sees the file, its magic and version are
 * checked and its layout's sizes and counts (tdguard.c); a record is checked against its
 * page before a field is read from it.  A version 6 file cut short is read through a padded
 * copy (td_open()).  The headers are parsed first in a child (tdprobe.c) unless the whole
 * conversion runs in one (impchild.h).  Not here: recognising the file (import.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "analyze/import/import.h"
#include "analyze/import/tdfile.h"
#include "analyze/import/tdformat.h"
#include "analyze/import/tdguard.h"
#include "analyze/import/tdpage.h"
#include "analyze/import/tdzdata.h"
#include "analyze/import/tdprobe.h"
#include "analyze/import/tracedat.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "format/format.h"

/*
 * libtracecmd exports these and trace-cmd uses them, but its installed header does not
 * declare them (they are in its private header): their ABI, as libtracecmd 3.x defines it.
 */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
int tracecmd_long_size(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);
void *tracecmd_record_page(struct tracecmd_input *handle, struct tep_record *record);
void tracecmd_record_ref(struct tep_record *record);
struct tep_record *tracecmd_read_at(struct tracecmd_input *handle, unsigned long long offset,
				    int *cpu);

#define TD_MAGIC "\x17\x08\x44tracing"
#define TD_MAGIC_SZ 10
#define TD_COMMON_SZ 8u			/* common_type, flags, preempt_count, pid */
#define TD_MAX_TYPES 65536u		/* common_type is 16 bits */
#define TD_MAX_PID (1u << 22)		/* the kernel's PID_MAX_LIMIT */
#define TD_MAX_KSTACK 128u		/* frames taken from one kernel_stack */
#define TD_PID_FIELDS 4			/* an event's "...pid" fields asked about */
#define PERF_CONTEXT_KERNEL_MARK ((uint64_t)-128)

struct td_conv {
	struct tracecmd_input *h;
	struct tep_handle *tep;
	struct ppf_writer *w;
	struct ana_import_info *info;
	uint64_t nr_events, nr_lost, nr_stacks;
	uint32_t *cid;			/* common_type -> EVENT_DESC id, 0: none */
	int kstack_type;		/* ftrace:kernel_stack's common_type, -1 */
	int kstack_size_off, kstack_caller_off;
	uint64_t last_ns;
	uint64_t nr_back;		/* records older than the last written */
	uint64_t nr_unknown;		/* records of no known format, or too short */
	uint64_t nr_damaged;		/* records larger than their page */
	uint64_t page_sz;		/* the buffers' page size, 0 if unknown */
	uint64_t cut_at;		/* the size of a file cut short, else 0 */
	bool hold_pages;		/* compressed: keep every page referenced (hold_page()) */
	void **cpu_page;		/* per CPU: the page its last record came from */
	uint8_t *pid_seen;		/* a bit per pid below TD_MAX_PID: name_task() asked */
	uint8_t *nr_pidf;		/* common_type -> how many pid fields (pid_fields()) */
	uint16_t (*pidf)[TD_PID_FIELDS];	/* ... and their offsets */
	int nr_cpus;
	struct ana_td_zlayout zl;	/* a zstd file's chunks, read by tdzdata.c */
	const uint8_t *map;		/* the file mapped for them, @map_sz bytes; or NULL */
	uint64_t map_sz;
	struct ppf_sample held;		/* the last sample, waiting for its kernel_stack */
	bool holding;
	const void *held_page;		/* the page the held raw lies in, NULL: in held_raw */
	struct pp_buf held_raw;
	uint64_t stack[TD_MAX_KSTACK + 1];
	int rc;
};

/* One record of the file, as libtracecmd or the page walk (walk_pages()) hands it over. */
struct td_ev {
	uint64_t ts;			/* libtracecmd's time of it */
	const uint8_t *data;
	int size;			/* bytes at @data */
	int idx;			/* the buffer's index among the file's CPUs */
	int cpu;			/* the CPU it names */
	long long missed;		/* events lost before it (-1: some) */
	uint64_t offset;		/* where libtracecmd places it, header included */
	int record_size;		/* its size with its header */
	const void *page;		/* its page, there until keep_held(); NULL: copy it */
};

static int conv_fail(struct td_conv *c, int rc, const char *fmt, ...) PP_PRINTF(3, 4);
static int conv_fail(struct td_conv *c, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->info->stopped, sizeof(c->info->stopped), fmt, ap);
	va_end(ap);
	c->rc = rc;
	return rc;
}

static int write_fail(struct td_conv *c, int rc)
{
	return conv_fail(c, rc, "cannot write the capture: %s", ppf_writer_errmsg(c->w));
}

static bool td_magic(const void *head, size_t sz)
{
	return sz >= TD_MAGIC_SZ && !memcmp(head, TD_MAGIC, TD_MAGIC_SZ);
}

/*
 * The file checked before libtracecmd reads it: the magic, a version it knows ("6", "7"),
 * and every size and count of its headers within the file (tdguard.c).  Return: the
 * version, or a negative code.
 */
static int check_head(struct td_conv *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	char why[160];
	struct stat st;
	const uint8_t *head;

	if (fd < 0)
		return conv_fail(c, -errno, "cannot open it: %s", strerror(errno));
	if (fstat(fd, &st) || st.st_size < TD_MAGIC_SZ + 8) {
		close(fd);
		return conv_fail(c, PP_EBAD_MAGIC, "not a trace.dat (no trace-cmd magic)");
	}
	head = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (head == MAP_FAILED)
		return conv_fail(c, -errno, "cannot map it: %s", strerror(errno));
	if (!td_magic(head, (size_t)st.st_size))
		rc = conv_fail(c, PP_EBAD_MAGIC, "not a trace.dat (no trace-cmd magic)");
	else if ((head[TD_MAGIC_SZ] != '6' && head[TD_MAGIC_SZ] != '7') || head[TD_MAGIC_SZ + 1])
		rc = conv_fail(c, PP_EVERSION, "trace.dat version '%.2s' is not 6 or 7",
			       (const char *)head + TD_MAGIC_SZ);
	else if (ana_td_guard_z(head, (uint64_t)st.st_size, &c->zl, why, sizeof(why)))
		rc = conv_fail(c, PP_EBAD_LENGTH, "not handed to libtracecmd: %s", why);
	else
		rc = head[TD_MAGIC_SZ] - '0';
	if (rc > 0 && c->zl.nr_cpus) {	/* kept for tdzdata.c */
		c->map = head;
		c->map_sz = (uint64_t)st.st_size;
	} else {
		munmap((void *)head, (size_t)st.st_size);
	}
	return rc;
}

/* --- what the file was ------------------------------------------------------ */

static bool is_compressed(struct tracecmd_input *h)
{
	const char *name = NULL, *ver = NULL;

	return !tracecmd_get_file_compress_proto(h, &name, &ver) && name && strcmp(name, "none");
}

static int write_kvs(struct td_conv *c)
{
	struct ana_import_info *in = c->info;
	const char *clock = tracecmd_get_trace_clock(c->h);
	const char *uname = tracecmd_get_uname(c->h);
	const char *ver = tracecmd_get_version(c->h);
	const char *zname = NULL, *zver = NULL;
	char cpus[16];
	int rc;

	if (tracecmd_get_file_compress_proto(c->h, &zname, &zver) || !zname)
		zname = "not compressed";
	snprintf(in->tool, sizeof(in->tool), "trace-cmd");
	/* "3.1.6 not-a-git-repo": the release alone */
	snprintf(in->version, sizeof(in->version), "%.*s, trace.dat version %lu (%s)",
		 ver ? (int)strcspn(ver, " ") : 7, ver ? ver : "unknown",
		 tracecmd_get_in_file_version(c->h), zname);
	/* "Linux HOST RELEASE MACHINE" (uname -s -n -r -m) */
	if (uname)
		sscanf(uname, "%*s %127s %127s %31s", in->host, in->release, in->arch);
	in->nr_cpus = tracecmd_cpus(c->h) > 0 ? (uint32_t)tracecmd_cpus(c->h) : 0;
	snprintf(cpus, sizeof(cpus), "%u", in->nr_cpus);
	rc = ppf_write_kv(c->w, "clock", clock ? clock : "unknown");
	if (!rc && *in->host)
		rc = ppf_write_kv(c->w, "hostname", in->host);
	if (!rc && *in->release)
		rc = ppf_write_kv(c->w, "release", in->release);
	if (!rc && *in->arch)
		rc = ppf_write_kv(c->w, "machine", in->arch);
	if (!rc && in->nr_cpus)
		rc = ppf_write_kv(c->w, "nr_cpus_online", cpus);
	return rc ? write_fail(c, rc) : 0;
}

/* --- formats, tasks, syscalls, kallsyms --------------------------------------- */

static bool is_kstack(const struct tep_event *ev)
{
	return !strcmp(ev->system, "ftrace") && !strcmp(ev->name, "kernel_stack");
}

static void note_kstack(struct td_conv *c, struct tep_event *ev)
{
	struct tep_format_field *sz = tep_find_field(ev, "size");
	struct tep_format_field *cl = tep_find_field(ev, "caller");

	if (sz && cl && sz->size == 4 && cl->offset >= (int)TD_COMMON_SZ && sz->offset >= 0) {
		c->kstack_type = ev->id;
		c->kstack_size_off = sz->offset;
		c->kstack_caller_off = cl->offset;
	}
}

/*
 * The fields of @ev that name a task ("pid", "next_pid", "child_pid" ...: an int whose name
 * ends in "pid"): the saved cmdlines name those tasks too (name_task()), as they named every
 * task when they were written whole.
 */
static void pid_fields(struct td_conv *c, const struct tep_event *ev)
{
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		size_t n = f->name ? strlen(f->name) : 0;

		if (c->nr_pidf[ev->id] >= TD_PID_FIELDS)
			break;
		if (n < 3 || strcmp(f->name + n - 3, "pid") || f->size != 4 || f->offset < 0 ||
		    f->offset > UINT16_MAX - 4 ||
		    (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
			continue;
		c->pidf[ev->id][c->nr_pidf[ev->id]++] = (uint16_t)f->offset;
	}
}

/* One EVENT_DESC per format but ftrace's own (function, print ...): those are not events. */
static int write_descs(struct td_conv *c)
{
	int n = tep_get_events_count(c->tep);
	struct tep_event **evs = tep_list_events(c->tep, TEP_EVENT_SORT_ID);
	struct pp_buf text = PP_BUF_INIT, name = PP_BUF_INIT;
	uint32_t next_id = 1;
	int rc = 0;

	for (int i = 0; evs && i < n && evs[i] && !rc; i++) {
		struct tep_event *ev = evs[i];

		if (!ev->name || !ev->system || ev->id < 0 || (unsigned)ev->id >= TD_MAX_TYPES)
			continue;
		if (!strcmp(ev->system, "ftrace")) {
			if (is_kstack(ev))
				note_kstack(c, ev);
			continue;
		}
		pid_fields(c, ev);
		pp_buf_reset(&text);
		pp_buf_reset(&name);
		ana_td_format_text(ev, &text);
		pp_buf_addf(&name, "%s:%s", ev->system, ev->name);
		struct ppf_event_desc d = {
			.id = next_id, .kind = PPF_EV_TRACEPOINT, .tp_id = (uint32_t)ev->id,
			.name = pp_buf_str(&name), .selector = pp_buf_str(&name), .filter = "",
			.format = pp_buf_str(&text),
		};
		rc = ppf_write_event_desc(c->w, &d);
		c->cid[ev->id] = next_id++;
	}
	pp_buf_release(&text);
	pp_buf_release(&name);
	return rc ? write_fail(c, rc) : 0;
}

/* The build machine's syscall names, when the file comes from the same kind of machine. */
static int write_syscalls(struct td_conv *c)
{
	const char *un = tracecmd_get_uname(c->h);
	struct utsname u;
	int rc = 0;

	if (!un || uname(&u) || !strstr(un, u.machine))
		return 0;
	/* the build machine's <asm/unistd.h>, as REC_SYSCALL(nr, name) lines (Makefile) */
#define REC_SYSCALL(nr, name) \
	if (!rc) \
		rc = ppf_write_syscall(c->w, nr, #name);
#include "gen/syscalls.h"
#undef REC_SYSCALL
	return rc ? write_fail(c, rc) : 0;
}

static bool fn_at(struct tep_handle *tep, unsigned long long a)
{
	const char *name;
	unsigned long long start;
	unsigned long size;

	return tep_find_function_info(tep, a, &name, &start, &size) && name;
}

/*
 * The lowest address of libtraceevent's function map, or 0 when none is found.  Every
 * address from the first symbol to the last is inside one (a symbol runs to the next), so
 * a binary search finds the first once one address inside is known: the top of the
 * address space is probed for one, in 16 steps of each power of two below 2^64.
 */
static unsigned long long fn_lowest(struct tep_handle *tep)
{
	unsigned long long lo = 0, hi = 0;

	for (int k = 0; k < 64 && !hi; k++)
		for (unsigned long long m = 1; m < 16 && !hi; m++)
			if (fn_at(tep, 0ull - (m << k)))
				hi = 0ull - (m << k);
	if (!hi || fn_at(tep, 0))
		return 0;
	while (hi - lo > 1) {	/* found(hi), not found(lo) */
		unsigned long long mid = lo + (hi - lo) / 2;

		if (fn_at(tep, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * The kallsyms the file carried, out of libtraceevent's function map: it has no list, but
 * a lookup says the function around an address and its size (up to the next one), so the
 * map is walked from its lowest address.  Names sharing one address keep one; types are
 * not kept ('t' for all), nor modules.
 */
static int write_ksyms(struct td_conv *c)
{
	int count = tep_get_function_count(c->tep);
	unsigned long long addr = count > 0 ? fn_lowest(c->tep) : 0, start;
	unsigned long size;
	const char *name;
	int rc = 0;

	for (int i = 0; i < count && !rc; i++) {
		if (!tep_find_function_info(c->tep, addr, &name, &start, &size) || !name)
			break;
		if (start) {	/* symbols at 0: kptr_restrict or per-CPU data */
			struct ppf_ksym k = { .addr = start, .type = 't', .name = name,
					      .module = "" };
			rc = ppf_write_ksym(c->w, &k);
		}
		/* names at one address: size 0, the next address finds the last of them */
		unsigned long long next = size ? start + size : start + 1;

		if (next <= addr)
			break;	/* the last one */
		addr = next;
	}
	return rc ? write_fail(c, rc) : 0;
}

static int write_meta(struct td_conv *c)
{
	int rc = ppf_writer_begin(c->w, PPF_SEG_META);

	if (rc)
		return write_fail(c, rc);
	rc = write_kvs(c);
	if (!rc)
		rc = write_descs(c);
	if (!rc)
		rc = write_syscalls(c);
	if (!rc)
		rc = write_ksyms(c);
	if (!rc && ppf_writer_flush(c->w))
		rc = write_fail(c, -EIO);
	return rc;
}

/* --- the records ------------------------------------------------------------ */

/*
 * The saved cmdlines name a task where its first record is: a COMM record just before it.
 * libtraceevent looks a pid up but lists none, and asking every pid the kernel can give
 * (2^22 binary searches) cost more than reading the events (0.28 s); so only the pids the
 * records carry are asked, once each.  The file keeps no thread group: each thread is its
 * own process.
 */
static int __attribute__((noinline)) name_new_task(struct td_conv *c, uint32_t pid, uint64_t t)
{
	int rc;

	c->pid_seen[pid >> 3] |= (uint8_t)(1u << (pid & 7));
	if (!tep_is_pid_registered(c->tep, (int)pid))
		return 0;
	struct ppf_comm cm = { .time_ns = t, .pid = pid, .tid = pid,
			       .comm = tep_data_comm_from_pid(c->tep, (int)pid) };
	rc = ppf_write_comm(c->w, &cm);
	return rc ? write_fail(c, rc) : 0;
}

/* name_new_task() for a pid not asked about yet: the test inlined, three a record */
static inline int name_task(struct td_conv *c, uint32_t pid, uint64_t t)
{
	if (!pid || pid >= TD_MAX_PID || c->pid_seen[pid >> 3] & (1u << (pid & 7)))
		return 0;
	return name_new_task(c, pid, t);
}

static int flush_held(struct td_conv *c)
{
	int rc;

	if (!c->holding)
		return 0;
	c->holding = false;
	if (!c->held_page)
		c->held.raw = (const uint8_t *)c->held_raw.data;
	rc = ppf_write_sample(c->w, &c->held);
	if (rc)
		return write_fail(c, rc);
	c->nr_events++;
	return 0;
}

/* A kernel_stack record: the held sample of its CPU gets its frames. */
static int attach_stack(struct td_conv *c, const struct td_ev *r)
{
	const uint8_t *d = r->data;
	uint32_t n = 0;
	int32_t nr;

	if (!c->holding || c->held.cpu != (uint32_t)r->cpu ||
	    (size_t)r->size < (size_t)c->kstack_caller_off ||
	    (size_t)r->size < (size_t)c->kstack_size_off + 4)
		return flush_held(c);
	memcpy(&nr, d + c->kstack_size_off, 4);
	c->stack[n++] = PERF_CONTEXT_KERNEL_MARK;
	for (uint32_t i = 0; nr > 0 && i < (uint32_t)nr && n <= TD_MAX_KSTACK; i++) {
		size_t off = (size_t)c->kstack_caller_off + 8 * i;
		uint64_t ip;

		if (off + 8 > (size_t)r->size)
			break;
		memcpy(&ip, d + off, 8);
		if (!ip || ip == UINT64_MAX)
			break;
		c->stack[n++] = ip;
	}
	if (n > 1) {
		c->held.stack = c->stack;
		c->held.nr_stack = n;
		c->nr_stacks++;
	}
	return flush_held(c);
}

static int lost(struct td_conv *c, const struct td_ev *r, uint64_t t)
{
	struct ppf_lost l = { .time_ns = t, .cpu = (uint32_t)r->cpu,
			      .count = r->missed > 0 ? (uint64_t)r->missed : 1 };
	int rc = ppf_write_lost(c->w, &l);

	c->nr_lost += l.count;
	return rc ? write_fail(c, rc) : 0;
}

/*
 * In a compressed file libtracecmd 3.1.6 keeps every chunk it decompressed (its
 * free_zpage() never finds one to release), and walks that whole list each time a page's
 * last record is freed: a cost that grows with the square of the file (1.0 of the 1.6 s
 * its iteration took on a 9.5 MB version 7 file).  A reference on the first record of each
 * page keeps the page from being freed, so the walk never runs; the chunks stay in memory
 * as they would anyway, the pages and records (a few MiB) go with the process.
 */
static void hold_page(struct td_conv *c, struct tracecmd_input *h, struct tep_record *r,
		      int cpu)
{
	void *page;

	if (!c->hold_pages || cpu < 0 || cpu >= c->nr_cpus)
		return;
	page = tracecmd_record_page(h, r);
	if (page && page != c->cpu_page[cpu]) {
		c->cpu_page[cpu] = page;
		tracecmd_record_ref(r);
	}
}

/* One record into the capture.  Return: 0, or 1 to stop (c->rc says why). */
static int on_event(struct td_conv *c, const struct td_ev *r)
{
	static const struct ppf_sample zero_sample;
	const uint8_t *d = r->data;
	uint16_t type;
	int32_t pid;
	uint64_t t = r->ts;

	/* a cut file's zeros, or a record the cut went through: not in the file */
	if (c->cut_at && r->offset + (uint64_t)(r->record_size > 0 ? r->record_size : 0) >
	    c->cut_at)
		return 0;
	if (t < c->last_ns) {
		t = c->last_ns;
		c->nr_back++;
	}
	c->last_ns = t;
	if (r->missed && (flush_held(c) || lost(c, r, t)))
		return 1;
	if (!d || r->size < (int)TD_COMMON_SZ) {
		c->nr_unknown++;
		return 0;
	}
	/* a damaged page's record may claim more than the page holds (fuzz-tracedat) */
	if (c->page_sz && r->offset % c->page_sz + (uint64_t)r->size > c->page_sz) {
		c->nr_damaged++;
		return 0;
	}
	memcpy(&type, d, 2);
	if (c->kstack_type >= 0 && type == c->kstack_type)
		return attach_stack(c, r) ? 1 : 0;
	if (!c->cid[type]) {
		c->nr_unknown++;
		return 0;
	}
	if (flush_held(c))
		return 1;
	memcpy(&pid, d + 4, 4);
	if (name_task(c, (uint32_t)pid, t))
		return 1;
	for (unsigned i = 0; i < c->nr_pidf[type]; i++) {
		int32_t other;

		if ((size_t)c->pidf[type][i] + 4 > (size_t)r->size)
			continue;
		memcpy(&other, d + c->pidf[type][i], 4);
		if (name_task(c, (uint32_t)other, t))
			return 1;
	}
	c->held = zero_sample;	/* a copy, not the rep stos a zeroing compiles to */
	c->held.time_ns = t;
	c->held.flags = PPF_SF_RAW;
	c->held.id = c->cid[type];
	c->held.cpu = (uint32_t)r->idx;
	c->held.pid = c->held.tid = (uint32_t)pid;
	c->held.period = 1;
	c->held.raw_sz = (uint32_t)r->size;
	if (c->kstack_type < 0) {	/* no stacks to wait for: straight out */
		c->held.raw = d;
		int rc = ppf_write_sample(c->w, &c->held);

		if (rc) {
			write_fail(c, rc);
			return 1;
		}
		c->nr_events++;
		return 0;
	}
	c->held_page = r->page;
	c->held.raw = d;
	if (!r->page) {
		pp_buf_reset(&c->held_raw);
		pp_buf_add(&c->held_raw, d, (size_t)r->size);
	}
	c->holding = true;
	return 0;
}

/* tracecmd_iterate_events()'s callback: the path for clocks walk_pages() does not take */
static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
	struct td_conv *c = arg;
	struct td_ev e = { .ts = r->ts, .data = r->data, .size = r->size, .idx = cpu,
			   .cpu = r->cpu, .missed = r->missed_events, .offset = r->offset,
			   .record_size = r->record_size };

	if (c->rc)
		return 1;
	hold_page(c, h, r, cpu);
	return on_event(c, &e);
}

/*
 * The records without one malloc()ed tep_record each: libtracecmd still maps or
 * decompresses every page and hands over the first record of each (tracecmd_read_at(),
 * which finds the page's CPU and checks its header), and the rest of the page is walked as
 * libtracecmd's own iteration walks it with kbuffer (tdpage.c); the CPUs are merged here, the
 * earliest time first and the lower CPU on a tie, as tracecmd_iterate_events() merges them.
 * libtracecmd's time of an event is the page's own plus a constant (the file's time
 * offset), read off the page's first record; a clock it scales (x86-tsc with tsc2nsec)
 * takes the record path instead.  This halves the conversion of a version 6 file.
 */
struct td_cur {
	struct tep_record *rec;		/* libtracecmd's first record of the page: holds it */
	struct ana_td_page pg;
	struct ana_td_zcpu *z;		/* its pages decompressed here (own_first()), or NULL */
	uint64_t page_off;		/* the page's offset in libtracecmd's terms */
	uint64_t adj;			/* libtracecmd's time minus the page's (mod 2^64) */
	struct td_ev ev;		/* the next record, when !done */
	bool done;
};

/* @page is about to go: a held sample whose raw lies in it gets a copy. */
static void keep_held(struct td_conv *c, const void *page)
{
	if (!c->holding || !c->held_page || c->held_page != page)
		return;
	pp_buf_reset(&c->held_raw);
	pp_buf_add(&c->held_raw, c->held.raw, c->held.raw_sz);
	c->held_page = NULL;
}

static void cur_release(struct td_conv *c, struct td_cur *k)
{
	if (k->rec || k->z)
		keep_held(c, k->ev.page);
	if (k->rec && !c->hold_pages)	/* held: see hold_page() */
		tracecmd_free_record(k->rec);
	k->rec = NULL;
}

/*
 * The record @d (time @ts) under @k's page walk into k->ev; false when there is none (the
 * end of the page).  @first: the first one read of its page; kbuffer counts missed events
 * only before a page's first record, and says 0 of any it reached by kbuffer_next_event().
 */
static bool cur_fill(struct td_cur *k, void *d, unsigned long long ts, bool first)
{
	if (!d)
		return false;
	k->ev.ts = ts + k->adj;
	k->ev.data = d;
	k->ev.size = ana_td_page_event_size(&k->pg);
	k->ev.missed = first ? ana_td_page_missed(&k->pg) : 0;
	k->ev.offset = k->page_off + (uint64_t)ana_td_page_offset(&k->pg);
	k->ev.record_size = ana_td_page_record_size(&k->pg);
	return true;
}

/* @r (of buffer @idx) starts @k's page; false when it is not the page after @k's last. */
static bool cur_page(struct td_conv *c, struct td_cur *k, struct tep_record *r, int idx)
{
	uint64_t off = r->offset & ~(c->page_sz - 1);
	void *page = tracecmd_record_page(c->h, r);
	unsigned long long ts;

	if (!page || (k->rec && off <= k->page_off) || r->cpu != k->ev.cpu ||
	    ana_td_page_load(&k->pg, page, (uint32_t)c->page_sz) < 0) {
		tracecmd_free_record(r);
		return false;
	}
	cur_release(c, k);
	k->rec = r;
	k->ev.page = page;
	k->page_off = off;
	/* the records before @r on its page: none, libtracecmd gives a page's first */
	while (ana_td_page_read(&k->pg, &ts) &&
	       off + (uint64_t)ana_td_page_offset(&k->pg) < r->offset)
		ana_td_page_next(&k->pg, NULL);
	if (off + (uint64_t)ana_td_page_offset(&k->pg) != r->offset)
		return false;
	k->adj = r->ts - ts;
	k->ev.idx = idx;
	void *d = ana_td_page_read(&k->pg, &ts);

	return cur_fill(k, d, ts, true);
}

/* @k's next page decompressed here with a record on it.  Return: false at the end. */
static bool own_page(struct td_conv *c, struct td_cur *k)
{
	unsigned long long ts = 0;
	uint64_t off;
	void *page, *d;

	while ((page = ana_td_z_next(k->z, &off))) {
		keep_held(c, k->ev.page);	/* it stays there until the chunk after next */
		if (ana_td_page_load(&k->pg, page, (uint32_t)c->page_sz) < 0)
			return false;
		k->ev.page = page;
		k->page_off = off;
		d = ana_td_page_read(&k->pg, &ts);
		if (cur_fill(k, d, ts, true))
			return true;
	}
	return false;
}

/*
 * CPU @idx's pages read here (tdzdata.c) rather than by libtracecmd, when the first record
 * found here is @r, libtracecmd's first: at the same place in a page, of the same sizes (its
 * bytes are not compared: libtracecmd's buffer may be shorter than a page in a damaged
 * file).  libtracecmd's time is then the page's plus a constant (walk_fits()'s clocks, no
 * time shift: tdguard.c).  Return: whether @k reads them (@r freed); else @r is cur_page()'s.
 */
static bool own_first(struct td_conv *c, struct td_cur *k, struct tep_record *r, int idx)
{
	k->ev.idx = idx;
	k->z = ana_td_z_open(c->map, c->map_sz, c->zl.off[idx], c->zl.size[idx], c->zl.plain,
			     (uint32_t)c->page_sz);
	if (k->z && own_page(c, k) && k->ev.size == r->size &&
	    k->ev.record_size == r->record_size &&
	    k->ev.offset % c->page_sz == r->offset % c->page_sz) {
		k->adj = r->ts - k->ev.ts;
		k->ev.ts = r->ts;
		tracecmd_free_record(r);
		return true;
	}
	ana_td_z_free(k->z);
	k->z = NULL;
	k->ev.page = NULL;
	return false;
}

/* @k's next record: on its page, else on the next page libtracecmd has for its CPU. */
static void cur_next(struct td_conv *c, struct td_cur *k)
{
	int idx = k->ev.idx, rcpu = -1;
	unsigned long long ts;
	void *d = ana_td_page_next(&k->pg, &ts);
	struct tep_record *r;

	if (cur_fill(k, d, ts, false))
		return;
	if (k->z) {
		k->done = !own_page(c, k);
		return;
	}
	r = tracecmd_read_at(c->h, k->page_off + c->page_sz, &rcpu);
	if (!r || rcpu != idx || !cur_page(c, k, r, idx)) {
		if (r && rcpu != idx)
			tracecmd_free_record(r);
		k->done = true;
	}
}

static int walk_merge(struct td_conv *c, struct td_cur *cur, int n)
{
	for (;;) {
		struct td_cur *best = NULL;

		for (int i = 0; i < n; i++)
			if (!cur[i].done && (!best || cur[i].ev.ts < best->ev.ts))
				best = &cur[i];
		if (!best)
			return 0;
		if (on_event(c, &best->ev))
			return c->rc;
		cur_next(c, best);
	}
}

static int walk_pages(struct td_conv *c)
{
	int n = c->nr_cpus, rc;
	struct td_cur *cur = pp_xcalloc((size_t)n + 1, sizeof(*cur));
	bool long8 = tracecmd_long_size(c->h) == 8, big = tep_is_file_bigendian(c->tep);

	for (int i = 0; i < n; i++) {
		struct tep_record *r = tracecmd_read_cpu_first(c->h, i);

		cur[i].done = true;
		if (ana_td_page_init(&cur[i].pg, long8, big, tep_is_old_format(c->tep))) {
			if (r)
				tracecmd_free_record(r);
			continue;
		}
		if (!r)
			continue;
		cur[i].ev.cpu = r->cpu;
		if (c->map && c->zl.nr_cpus == (unsigned)n && cur[i].pg.own && !c->cut_at &&
		    own_first(c, &cur[i], r, i))
			cur[i].done = false;
		else
			cur[i].done = !cur_page(c, &cur[i], r, i);
	}
	rc = walk_merge(c, cur, n);
	for (int i = 0; i < n; i++) {
		cur_release(c, &cur[i]);
		ana_td_page_free(&cur[i].pg);
		ana_td_z_free(cur[i].z);
	}
	free(cur);
	return rc;
}

/* Whether walk_pages() reads @c's file as libtracecmd would: a clock it does not scale. */
static bool walk_fits(struct td_conv *c)
{
	const char *clock = tracecmd_get_trace_clock(c->h);

	return c->page_sz && !(c->page_sz & (c->page_sz - 1)) && c->nr_cpus > 0 &&
	       tracecmd_page_size(c->h) > 0 && clock && strcmp(clock, "x86-tsc") &&
	       strcmp(clock, "counter") && !getenv("PP_TRACEDAT_RECORDS");
}

/* --- what the file lacked, said once each ------------------------------------- */

static void note_instances(struct td_conv *c)
{
	int n = tracecmd_buffer_instances(c->h);
	char line[ANA_IMPORT_LINE];
	size_t len = 0;

	for (int i = 0; i < n && len + 1 < sizeof(line); i++) {
		const char *name = tracecmd_buffer_instance_name(c->h, i);

		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
					len ? ", " : "instances skipped (the top one is read): ",
					name ? name : "?");
	}
	if (len)
		ana_import_lack(c->info, "%s", line);
}

static void note_lacks(struct td_conv *c)
{
	const char *clock = tracecmd_get_trace_clock(c->h);

	ana_import_lack(c->info, "no user stacks, mmaps or thread groups (a thread is its own"
			" process)%s; printk formats not carried (a capture has no place for them)",
			c->nr_stacks ? "" : ", no kernel stacks (trace-cmd record -T has them)");
	if (clock && strcmp(clock, "mono") && strcmp(clock, "boot"))
		ana_import_lack(c->info, "times are trace clock '%s', not CLOCK_MONOTONIC: do not"
				" line them up with a pp-record capture's", clock);
	note_instances(c);
	if (c->nr_lost)
		ana_import_lack(c->info, "%llu events lost: the kernel's buffers overran",
				(unsigned long long)c->nr_lost);
	if (c->nr_back)
		ana_import_lack(c->info, "%llu records went back in time (written at the time"
				" before them)", (unsigned long long)c->nr_back);
	if (c->nr_damaged)
		ana_import_lack(c->info, "%llu records larger than their buffer page skipped"
				" (damaged pages)", (unsigned long long)c->nr_damaged);
	if (c->nr_unknown)
		ana_import_lack(c->info, "%llu records of no known event format skipped",
				(unsigned long long)c->nr_unknown);
	if (c->cut_at)
		snprintf(c->info->stopped, sizeof(c->info->stopped), "the file ends at byte %llu"
			 " inside its event data: read up to its last whole record, at %llu.%06llu",
			 (unsigned long long)c->cut_at,
			 (unsigned long long)(c->last_ns / 1000000000u),
			 (unsigned long long)(c->last_ns % 1000000000u / 1000u));
}

/*
 * libtracecmd's handle on @path with its event data ready.  libtracecmd refuses a file
 * whose CPU data runs past its end, and its tracecmd_open() then crashes freeing the half
 * made handle (3.1.6): so the headers are read first, the data readied apart, and a handle
 * that failed is left alone (a few MiB not freed, once).  A version 6 file cut short is
 * then offered again with zeros after its end, which read as empty buffer pages: what the
 * file holds reads up to its last whole record.  Return: the handle or NULL (errmsg set).
 */
__attribute__((noinline))	/* named in tests/lsan.supp: kept out of its callers */
static struct tracecmd_input *td_open(struct td_conv *c, const char *path, int version)
{
	static const int grow[] = { 2, 16 };
	const int flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
	struct tracecmd_input *h = NULL;
	struct stat st;
	char why[160];
	/* in a child of its own, a crash is the child's: no probe first (impchild.h) */
	int rc = c->info->in_child ? 0 : ana_td_probe(path, flags, why, sizeof(why));

	if (rc && rc != ANA_TD_REFUSED) {
		conv_fail(c, rc, "%s", why);
		return NULL;
	}
	if (c->info->in_child)
		alarm(ANA_TD_ALARM_S);	/* the probe's limit: a hang parsing them is refused */
	/* refused in the probe: not again here (what it allocated may stay: tdprobe.h) */
	h = rc ? NULL : tracecmd_open_head(path, flags);
	if (c->info->in_child)
		alarm(0);
	if (!h) {
		conv_fail(c, PP_EBAD_RECORD, "libtracecmd cannot read its headers%s",
			  version == 7 ? " (version 7 keeps them at the end: a cut file lost"
			  " them)" : "");
		return NULL;
	}
	if (ana_td_init_data_quiet(h) >= 0)
		return h;
	if (version != 6 || stat(path, &st) || st.st_size <= 0)
		goto fail;
	c->cut_at = (uint64_t)st.st_size;
	for (size_t i = 0; i < PP_ARRAY_SIZE(grow); i++) {
		char fdpath[64];
		int in = open(path, O_RDONLY | O_CLOEXEC);
		int fd = in < 0 ? -errno : ana_td_memfd(in, st.st_size * grow[i] + (1 << 20));

		if (in >= 0)
			close(in);
		if (fd < 0)
			break;
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		h = tracecmd_open_head(fdpath, flags);
		close(fd);	/* libtracecmd opened its own */
		if (h && ana_td_init_data_quiet(h) >= 0)
			return h;
	}
fail:
	conv_fail(c, PP_ETRUNCATED, "libtracecmd cannot read its event data (the file is cut"
		  " short or damaged)");
	return NULL;
}

static int convert(struct td_conv *c, const char *path)
{
	struct stat st;
	int version = check_head(c, path), rc;

	if (version < 0)
		return version;
	if (!stat(path, &st))
		c->info->total_bytes = (uint64_t)st.st_size;
	c->h = td_open(c, path, version);
	if (!c->h)
		return c->rc;
	c->tep = tracecmd_get_tep(c->h);
	c->page_sz = tracecmd_page_size(c->h) > 0 ? (uint64_t)tracecmd_page_size(c->h) : 0;
	c->cid = pp_xcalloc(TD_MAX_TYPES, sizeof(*c->cid));
	c->nr_cpus = tracecmd_cpus(c->h) > 0 ? tracecmd_cpus(c->h) : 0;
	c->cpu_page = pp_xcalloc((size_t)c->nr_cpus + 1, sizeof(*c->cpu_page));
	c->pid_seen = pp_xcalloc(TD_MAX_PID / 8, 1);
	c->nr_pidf = pp_xcalloc(TD_MAX_TYPES, 1);
	c->pidf = pp_xcalloc(TD_MAX_TYPES, sizeof(*c->pidf));
	c->hold_pages = version == 7 && is_compressed(c->h);
	rc = c->tep ? write_meta(c) : conv_fail(c, PP_EBAD_RECORD, "no event formats");
	if (!rc) {
		if (walk_fits(c))
			walk_pages(c);
		else
			tracecmd_iterate_events(c->h, NULL, 0, on_record, c);
		rc = c->rc ? c->rc : flush_held(c);
	}
	if (!rc) {
		c->info->records = c->nr_events;
		c->info->bytes = c->info->total_bytes;
		note_lacks(c);
	}
	free(c->cid);
	free(c->cpu_page);
	free(c->pid_seen);
	free(c->nr_pidf);
	free(c->pidf);
	pp_buf_release(&c->held_raw);
	tracecmd_close(c->h);
	return rc;
}

int ana_import_tracedat(const char *path, struct ppf_writer *w, struct ana_import_info *info)
{
	struct td_conv c = { .w = w, .info = info, .kstack_type = -1 };
	char fdpath[64];
	int fd = -1, rc;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if (!strcmp(path, "-")) {
		fd = ana_td_memfd(STDIN_FILENO, 0);
		if (fd < 0)
			return conv_fail(&c, fd, "cannot read standard input: %s", strerror(-fd));
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		path = fdpath;
	}
	rc = convert(&c, path);
	if (c.map)
		munmap((void *)c.map, (size_t)c.map_sz);
	if (fd >= 0)
		close(fd);
	return rc;
}
