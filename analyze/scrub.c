/* SPDX-License-Identifier: MIT */
/*
 * scrub.c - a copy of a capture with its names replaced by stable hashes.
 *
 * Names are cut into tokens at " \t/=:,;@" (a path's components, a command
 * line's words and their option values) and each token is replaced by a
 * token of the same length: SipHash-2-4 of the token under a key made from
 * the salt, written in [a-z0-9] with a letter first.  A table of the tokens
 * seen keeps the mapping a function (the same comm in a COMM record and in a
 * sched_switch field gets the same hash) and one to one (a collision takes
 * the next hash), so analyzers group and count the copy as they do the
 * original.  Same lengths mean a tracepoint's char[16] and __data_loc strings
 * are rewritten in place: the records keep their layout.
 *
 * Kept: numbers, options (a token that starts with '-'), the names of kernel
 * threads (tasks 0 and 2 and the children of 2: "kworker", "migration" ...;
 * the watchdog analyzer looks for its stopper threads by name), pseudo-paths
 * ("[vdso]", "//anon"), JIT map paths (their pid is read from the name),
 * kernel module paths, and what is not a name: symbols, build ids, event
 * names and formats, kernel strings of tracepoints, times, addresses.
 * Not here: the options and the report (cmd-scrub.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "analyze/internal.h"
#include "analyze/share.h"
#include "analyze/unwind.h"
#include "common/expr.h"
#include "common/intern.h"
#include "common/quote.h"
#include "common/symbolize.h"

/* --- SipHash-2-4 (Aumasson and Bernstein), for keyed hashes of names ---------- */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                            \
	do {                                                                                \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                   \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                      \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                      \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                   \
	} while (0)

static uint64_t siphash(const uint64_t key[2], const uint8_t *in, size_t n)
{
	uint64_t v0 = 0x736f6d6570736575ull ^ key[0], v1 = 0x646f72616e646f6dull ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ key[0], v3 = 0x7465646279746573ull ^ key[1];
	uint64_t b = (uint64_t)n << 56, m;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&m, in + i, 8);	/* little-endian hosts */
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t k = 0; i + k < n; k++)
		b |= (uint64_t)in[i + k] << (8 * k);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* --- The scrubber --------------------------------------------------------------- */

/* How one string field of a tracepoint is treated. */
struct field_plan {
	const struct pp_field *f;
	int cls;			/* enum ana_scrub_class, or -1: kept */
	char *where;			/* "sched:sched_switch.prev_comm" */
};

struct type_plan {
	struct field_plan *v;
	size_t nr;
};

struct scrub {
	struct ana_session *s;
	const struct ana_scrub_opts *o;
	struct ana_scrub_report *rep;
	uint64_t key[2];
	struct pp_intern *orig;		/* tokens seen, in order */
	int64_t *repl;			/* by token: index in @used, or -1 (kept) */
	size_t cap_repl;
	struct pp_intern *used;		/* replacements handed out */
	struct pp_intern *keep;		/* tokens never replaced: kernel thread names */
	struct pp_u64map kthreads;	/* tid -> (void *)1: children of kthreadd */
	struct pp_u64map plans;		/* event id -> struct type_plan * */
	struct pp_intern *where[ANA_SCRUB_NR_CLASSES];
	struct pp_intern *kept_fields, *kept_keys;
	struct pp_buf val[3];		/* mutable copies of a record's strings */
	uint8_t *raw;
	size_t raw_cap;
	bool changed;			/* the last scrub_*() call replaced something */
};

static const char *const class_names[] = { "comm", "cmdline", "paths", "host", "strings", "filters" };

const char *ana_scrub_class_name(enum ana_scrub_class c)
{
	return (unsigned)c < PP_ARRAY_SIZE(class_names) ? class_names[c] : "?";
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '/' || c == '=' || c == ':' || c == ',' || c == ';' ||
	       c == '@';
}

/* A replacement for token @t (@n bytes) not handed out yet: index in x->used. */
static int64_t new_replacement(struct scrub *x, const char *t, size_t n)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char *out = pp_xmalloc(n + 1);
	uint8_t *in = pp_xmalloc(n + 8);
	int64_t idx = -1;

	memcpy(in, t, n);
	for (uint32_t attempt = 0; idx < 0; attempt++) {
		uint64_t h = 0;

		for (size_t j = 0; j < n; j++) {
			if (j % 12 == 0) {	/* 36^12 < 2^64: twelve characters a hash */
				uint32_t blk = (uint32_t)(j / 12);
				memcpy(in + n, &attempt, 4);
				memcpy(in + n + 4, &blk, 4);
				h = siphash(x->key, in, n + 8);
			}
			unsigned base = j ? 36 : 26;	/* a letter first: never a number */
			out[j] = alnum[h % base];
			h /= base;
		}
		/* one to one: a hash already given, or a name that is kept, takes the next */
		if (attempt < 1000 && (pp_intern_find(x->used, out, n) >= 0 ||
				       pp_intern_find(x->keep, out, n) >= 0 ||
				       pp_intern_find(x->orig, out, n) >= 0))
			continue;
		idx = pp_intern_put(x->used, out, n, NULL);
	}
	if (x->o->map) {
		struct pp_buf q = PP_BUF_INIT;

		pp_buf_add_quoted(&q, t, n, PP_QUOTE_FIELD);
		fprintf(x->o->map, "%s\t%.*s\n", pp_buf_str(&q), (int)n, out);
		pp_buf_release(&q);
	}
	free(in);
	free(out);
	return idx;
}

/* A number, or "." and ".." (path components): not a name. */
static bool not_a_name(const char *t, size_t n)
{
	bool digits = true, dots = true;

	for (size_t i = 0; i < n; i++) {
		digits &= t[i] >= '0' && t[i] <= '9';
		dots &= t[i] == '.';
	}
	return digits || (dots && n <= 2);
}

/* Token @t (@n bytes), replaced in place unless it is kept. */
static void scrub_token(struct scrub *x, char *t, size_t n)
{
	bool added;
	uint32_t i;

	if (!n || not_a_name(t, n) || t[0] == '-')
		return;
	i = pp_intern_put(x->orig, t, n, &added);
	if (added) {
		if (i >= x->cap_repl) {
			x->cap_repl = x->cap_repl ? 2 * x->cap_repl : 256;
			x->repl = pp_xrealloc(x->repl, x->cap_repl * sizeof(*x->repl));
		}
		x->repl[i] = pp_intern_find(x->keep, t, n) >= 0 ? -1 : new_replacement(x, t, n);
		if (x->repl[i] >= 0)
			x->rep->nr_tokens++;
	}
	if (x->repl[i] < 0)
		return;
	memcpy(t, pp_intern_key(x->used, (uint32_t)x->repl[i], NULL), n);
	x->changed = true;
}

/* Every token of text @t (@n bytes), in place. */
static void scrub_text(struct scrub *x, char *t, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		if (is_sep(t[i])) {
			i++;
			continue;
		}
		while (j < n && !is_sep(t[j]))
			j++;
		scrub_token(x, t + i, j - i);
		i = j;
	}
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* A path, in place: pseudo-paths, JIT maps and (--keep system) system files stay. */
static void scrub_path(struct scrub *x, char *p, size_t n)
{
	static const char *const system[] = { "/usr/", "/lib/", "/lib32/", "/lib64/", "/bin/",
					      "/sbin/", "/etc/", "/boot/", "/dev/", "/proc/",
					      "/sys/", "/run/systemd/", "/opt/google/" };
	uint32_t pid;

	if (!n || p[0] == '[' || has_prefix(p, "//anon") || pp_sym_jitmap_pid(p, &pid))
		return;
	for (size_t i = 0; x->o->keep_system_paths && i < PP_ARRAY_SIZE(system); i++)
		if (has_prefix(p, system[i]))
			return;
	scrub_text(x, p, n);
}

/* The quoted literals of a selector or filter text, in place. */
static void scrub_literals(struct scrub *x, char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i] != '"' && t[i] != '\'')
			continue;
		char q = t[i];
		size_t j = i + 1;
		while (j < n && t[j] != q)
			j += t[j] == '\\' && j + 1 < n ? 2 : 1;
		scrub_text(x, t + i + 1, (j < n ? j : n) - i - 1);
		i = j;
	}
}

/*
 * pp-record's command line (the cmdline KV): its options and events stay for
 * whoever reads the report; the command after "--", paths (words after -o, or
 * starting with / . ~) and quoted literals in filters go.
 */
static void scrub_record_cmdline(struct scrub *x, char *t, size_t n)
{
	bool command = false, path_next = false;
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		while (j < n && t[j] != ' ')
			j++;
		size_t len = j - i;
		char *w = t + i;

		if (command) {
			scrub_text(x, w, len);
		} else if (len == 2 && !strncmp(w, "--", 2)) {
			command = true;
		} else if (path_next || w[0] == '/' || w[0] == '.' || w[0] == '~') {
			scrub_text(x, w, len);
		} else {
			scrub_literals(x, w, len);
		}
		path_next = (len == 2 && !strncmp(w, "-o", 2)) ||
			    (len == 8 && !strncmp(w, "--output", 8)) ||
			    (len == 6 && !strncmp(w, "--save", 6));
		i = j + 1;
	}
}

/* A mutable copy of @s (not empty) in scratch @k. */
static char *dup_val(struct scrub *x, int k, const char *s)
{
	pp_buf_reset(&x->val[k]);
	pp_buf_adds(&x->val[k], s);
	return x->val[k].data;
}

/* Count a changed value of class @c, seen at @where. */
static void note(struct scrub *x, enum ana_scrub_class c, const char *where)
{
	if (!x->changed)
		return;
	x->changed = false;
	x->rep->nr_values[c]++;
	pp_intern_put_str(x->where[c], where, NULL);
}

static bool keeps(const struct scrub *x, enum ana_scrub_class c)
{
	return x->o->keep & (1u << c);
}

/* A string value of class @c: @s itself when kept, else a scrubbed copy (scratch @k). */
static const char *value(struct scrub *x, int k, enum ana_scrub_class c, const char *s,
			 const char *where, void (*fn)(struct scrub *, char *, size_t))
{
	char *v;

	if (keeps(x, c) || !s || !*s)
		return s;
	v = dup_val(x, k, s);
	x->changed = false;
	fn(x, v, strlen(v));
	note(x, c, where);
	return v;
}

/* --- What each record holds ----------------------------------------------------- */

/* KV keys whose values are facts of the machine or the recording, never a name. */
static bool kv_known(const char *k)
{
	static const char *const exact[] = {
		"release", "version", "machine", "sysname", "nr_cpus_online", "nr_cpus_possible",
		"page_size", "clock", "clocksource", "pp_version", "start_realtime_ns",
		"start_time", "cpus_online", "tracefs", "tracefs.header_page",
	};
	static const char *const prefix[] = { "topology.", "blockdev.", "record.", "sysctl.",
					      "insn.", "slice.", "scrub." };

	for (size_t i = 0; i < PP_ARRAY_SIZE(exact); i++)
		if (!strcmp(k, exact[i]))
			return true;
	for (size_t i = 0; i < PP_ARRAY_SIZE(prefix); i++)
		if (has_prefix(k, prefix[i]))
			return true;
	return false;
}

static void scrub_kv(struct scrub *x, struct ppf_record *r)
{
	const char *k = r->u.kv.key;
	char where[300];

	snprintf(where, sizeof(where), "KV %s", k);
	if (!strcmp(k, "slice.source"))	/* the path of the capture a slice was cut from */
		r->u.kv.value = value(x, 0, ANA_SCRUB_PATHS, r->u.kv.value, where, scrub_path);
	else if (!strcmp(k, "cmdline"))
		r->u.kv.value = value(x, 0, ANA_SCRUB_CMDLINE, r->u.kv.value, where,
				      scrub_record_cmdline);
	else if (!strcmp(k, "hostname") || !kv_known(k))
		r->u.kv.value = value(x, 0, ANA_SCRUB_HOST, r->u.kv.value, where, scrub_text);
	else
		pp_intern_put_str(x->kept_keys, k, NULL);
}

static bool name_has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/* EVENT_DESC: its type parsed (the string fields to scrub), its literals scrubbed. */
static int scrub_event_desc(struct scrub *x, struct ppf_record *r)
{
	struct type_plan *tp = pp_xcalloc(1, sizeof(*tp));
	const struct ana_evtype *t;
	int rc = ana_session_meta(x->s, r);

	if (rc)
		return rc;
	t = ana_session_type(x->s, r->u.event.id);
	for (size_t i = 0; t && i < t->nr_fields; i++) {
		const struct pp_field *f = &t->fields[i];
		int cls = -1;

		if (!f->is_string || !strncmp(f->name, "common_", 7))
			continue;
		if (name_has(f->name, "comm"))
			cls = ANA_SCRUB_COMM;
		else if (x->o->all_strings || t->kind == PPF_EV_UPROBE || name_has(f->name, "file") ||
			 name_has(f->name, "path"))
			cls = ANA_SCRUB_STRINGS;
		tp->v = pp_xrealloc(tp->v, (tp->nr + 1) * sizeof(*tp->v));
		tp->v[tp->nr++] = (struct field_plan){ f, cls, pp_xasprintf("%s.%s", t->name, f->name) };
		if (cls < 0)
			pp_intern_put_str(x->kept_fields, tp->v[tp->nr - 1].where, NULL);
	}
	pp_u64map_put(&x->plans, r->u.event.id, tp);
	r->u.event.selector = value(x, 0, ANA_SCRUB_FILTERS, r->u.event.selector,
				    "EVENT selector", scrub_literals);
	r->u.event.filter = value(x, 1, ANA_SCRUB_FILTERS, r->u.event.filter, "EVENT filter",
				  scrub_literals);
	return 0;
}

/* A kernel thread's name is kept: its tokens join the keep set before they are first seen. */
static void keep_name(struct scrub *x, const char *comm)
{
	const char *p = comm;

	while (*p) {
		size_t n = 0;
		if (is_sep(*p)) {
			p++;
			continue;
		}
		while (p[n] && !is_sep(p[n]))
			n++;
		if (pp_intern_find(x->orig, p, n) < 0)
			pp_intern_put(x->keep, p, n, NULL);
		p += n;
	}
}

/* The string fields of a tracepoint sample, in a copy of its raw data. */
static void scrub_sample(struct scrub *x, struct ppf_record *r)
{
	struct ppf_sample *smp = &r->u.sample;
	struct type_plan *tp = pp_u64map_get(&x->plans, smp->id);
	bool copied = false;

	for (size_t i = 0; tp && smp->raw_sz && i < tp->nr; i++) {
		const struct field_plan *fp = &tp->v[i];
		const struct pp_field *f = fp->f;
		uint32_t off = f->offset, len = f->size;

		if (fp->cls < 0 || keeps(x, (enum ana_scrub_class)fp->cls))
			continue;
		if (f->is_data_loc) {
			uint32_t loc;
			if ((uint64_t)f->offset + 4 > smp->raw_sz)
				continue;
			memcpy(&loc, smp->raw + f->offset, 4);
			off = loc & 0xffff;
			len = loc >> 16;
		}
		if ((uint64_t)off + len > smp->raw_sz)
			continue;
		if (!copied) {
			if (smp->raw_sz > x->raw_cap) {
				x->raw_cap = smp->raw_sz;
				x->raw = pp_xrealloc(x->raw, x->raw_cap);
			}
			memcpy(x->raw, smp->raw, smp->raw_sz);
			smp->raw = x->raw;
			copied = true;
		}
		x->changed = false;
		scrub_text(x, (char *)x->raw + off, strnlen((char *)x->raw + off, len));
		note(x, (enum ana_scrub_class)fp->cls, fp->where);
	}
}

/* PERF_RECORD_CGROUP side-band records carry the cgroup's path after its id. */
#define SB_CGROUP 19

static void scrub_sideband(struct scrub *x, struct ppf_record *r)
{
	struct ppf_sideband *b = &r->u.sideband;

	if (b->perf_type != SB_CGROUP || b->size <= 8 || keeps(x, ANA_SCRUB_PATHS))
		return;
	if (b->size > x->raw_cap) {
		x->raw_cap = b->size;
		x->raw = pp_xrealloc(x->raw, x->raw_cap);
	}
	memcpy(x->raw, b->data, b->size);
	b->data = x->raw;
	x->changed = false;
	scrub_path(x, (char *)x->raw + 8, strnlen((char *)x->raw + 8, b->size - 8));
	note(x, ANA_SCRUB_PATHS, "SIDEBAND cgroup");
}

/*
 * A stack copy is user memory: strings, keys, whatever the program had on its stack.  The
 * copy gives way to the call chain it unwinds to (the tables are the session's: the side
 * band went to it unscrubbed), stored as any recorded chain.
 */
static void scrub_ustack(struct scrub *x, struct ppf_sample *smp)
{
	struct ana_evtype *t = ana_session_type(x->s, smp->id);
	struct pp_event ev = { 0 };

	if (t) {
		ana_session_sample(x->s, t, smp, &ev);
		smp->stack = ev.stack;
		smp->nr_stack = ev.nr_stack;
	}
	smp->flags &= ~(uint32_t)PPF_SF_USTACK;
	smp->nr_uregs = smp->ustack_sz = 0;
	smp->uregs = NULL;
	smp->ustack = NULL;
	x->changed = true;
	note(x, ANA_SCRUB_STRINGS, "SAMPLE stack copy");
}

static int scrub_record(struct scrub *x, struct ppf_record *r)
{
	if (ana_unwind_meta_type(r->type))	/* before its names are replaced */
		ana_session_meta(x->s, r);
	if (r->type == PPF_REC_SAMPLE && (r->u.sample.flags & PPF_SF_USTACK))
		scrub_ustack(x, &r->u.sample);
	switch (r->type) {
	case PPF_REC_KV:
		scrub_kv(x, r);
		break;
	case PPF_REC_EVENT_DESC:
		return scrub_event_desc(x, r);
	case PPF_REC_TASK:
		if (r->u.task.pid == 0 || r->u.task.pid == 2 || r->u.task.ppid == 2) {
			pp_u64map_put(&x->kthreads, r->u.task.tid, (void *)1);
			keep_name(x, r->u.task.comm);
		}
		r->u.task.comm = value(x, 0, ANA_SCRUB_COMM, r->u.task.comm, "TASK comm", scrub_text);
		r->u.task.cmdline = value(x, 1, ANA_SCRUB_CMDLINE, r->u.task.cmdline, "TASK cmdline",
					  scrub_text);
		break;
	case PPF_REC_FORK:
		if (r->u.task_event.ppid == 2 || pp_u64map_get(&x->kthreads, r->u.task_event.ptid))
			pp_u64map_put(&x->kthreads, r->u.task_event.tid, (void *)1);
		break;
	case PPF_REC_COMM:
		if (pp_u64map_get(&x->kthreads, r->u.comm.tid))
			keep_name(x, r->u.comm.comm);
		r->u.comm.comm = value(x, 0, ANA_SCRUB_COMM, r->u.comm.comm, "COMM", scrub_text);
		break;
	case PPF_REC_MMAP:
		r->u.mmap.path = value(x, 0, ANA_SCRUB_PATHS, r->u.mmap.path, "MMAP", scrub_path);
		break;
	case PPF_REC_DSO:
		if (!(r->u.dso.flags & PPF_DSO_KERNEL_MODULE))
			r->u.dso.path = value(x, 0, ANA_SCRUB_PATHS, r->u.dso.path, "DSO", scrub_path);
		break;
	case PPF_REC_SAMPLE:
		scrub_sample(x, r);
		break;
	case PPF_REC_SIDEBAND:
		scrub_sideband(x, r);
		break;
	}
	return 0;
}

/* The key of the hashes: the salt's own SipHash under two fixed keys, or random bytes. */
static void make_key(struct scrub *x)
{
	static const uint64_t k1[2] = { 0x7070736372756231ull, 0x0123456789abcdefull };
	static const uint64_t k2[2] = { 0x7070736372756232ull, 0xfedcba9876543210ull };

	if (x->o->salt) {
		x->key[0] = siphash(k1, (const uint8_t *)x->o->salt, strlen(x->o->salt));
		x->key[1] = siphash(k2, (const uint8_t *)x->o->salt, strlen(x->o->salt));
		return;
	}
	if (getrandom(x->key, sizeof(x->key), 0) != (ssize_t)sizeof(x->key)) {
		struct timespec ts;	/* no getrandom(): still unknown to whoever reads the copy */
		clock_gettime(CLOCK_REALTIME, &ts);
		x->key[0] ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
		x->key[1] ^= (uint64_t)ts.tv_sec * 0xc2b2ae3d27d4eb4full ^ (uint64_t)(uintptr_t)x;
	}
}

/* The copy says it is one, and what was replaced: KV scrub.replaced, first. */
static int write_origin(struct scrub *x, struct ppf_writer *w)
{
	struct pp_buf b = PP_BUF_INIT;
	int rc;

	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++)
		if (!keeps(x, (enum ana_scrub_class)c))
			pp_buf_addf(&b, "%s%s", b.len ? "," : "", class_names[c]);
	rc = ppf_write_kv(w, "scrub.replaced", b.len ? pp_buf_str(&b) : "nothing");
	pp_buf_release(&b);
	return rc;
}

static char *joined(const struct pp_intern *t)
{
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < pp_intern_count(t); i++) {
		pp_buf_adds(&b, i ? ", " : "");
		pp_buf_adds(&b, pp_intern_key(t, (uint32_t)i, NULL));
	}
	return pp_buf_detach(&b);
}

int ana_scrub(struct ana_session *s, const struct ana_scrub_opts *o, struct ana_scrub_report *rep,
	      char *err, size_t errsz)
{
	struct scrub x = { .s = s, .o = o, .rep = rep };
	struct ppf_writer *w;
	struct ppf_record r;
	int rc;

	memset(rep, 0, sizeof(*rep));
	err[0] = '\0';
	rc = ppf_writer_open(o->out_path, NULL, &w);
	if (rc) {
		snprintf(err, errsz, "cannot write '%s': %s", o->out_path, pp_strerror(rc));
		return rc;
	}
	make_key(&x);
	x.orig = pp_intern_new();
	x.used = pp_intern_new();
	x.keep = pp_intern_new();
	x.kept_fields = pp_intern_new();
	x.kept_keys = pp_intern_new();
	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++)
		x.where[c] = pp_intern_new();
	pp_intern_put_str(x.keep, "swapper", NULL);	/* the idle tasks, pid 0 on every CPU */
	rc = write_origin(&x, w);
	if (rc)
		snprintf(err, errsz, "writing '%s': %s", o->out_path, ppf_writer_errmsg(w));
	while (!rc && (rc = ppf_reader_next(s->r, &r, NULL)) == 0) {
		rep->nr_records++;
		rc = scrub_record(&x, &r);
		if (rc) {
			snprintf(err, errsz, "event description %u: %s", r.u.event.id, pp_strerror(rc));
			break;
		}
		rc = ppf_write_record(w, &r);
		if (rc) {
			snprintf(err, errsz, "writing '%s': %s", o->out_path, ppf_writer_errmsg(w));
			break;
		}
	}
	if (rc < 0 && !err[0])
		snprintf(err, errsz, "reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
	int crc = ppf_writer_close(w);
	if (crc && (rc == 0 || rc == PPF_END)) {
		rc = crc;
		snprintf(err, errsz, "writing '%s': %s", o->out_path, pp_strerror(crc));
	}
	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++) {
		rep->where[c] = joined(x.where[c]);
		pp_intern_free(x.where[c]);
	}
	rep->kept_fields = joined(x.kept_fields);
	rep->kept_keys = joined(x.kept_keys);
	size_t it = 0;
	uint64_t id;
	void *v;
	while (pp_u64map_next(&x.plans, &it, &id, &v)) {
		struct type_plan *tp = v;
		for (size_t i = 0; i < tp->nr; i++)
			free(tp->v[i].where);
		free(tp->v);
		free(tp);
	}
	pp_u64map_release(&x.plans);
	pp_u64map_release(&x.kthreads);
	pp_intern_free(x.orig);
	pp_intern_free(x.used);
	pp_intern_free(x.keep);
	pp_intern_free(x.kept_fields);
	pp_intern_free(x.kept_keys);
	for (size_t i = 0; i < PP_ARRAY_SIZE(x.val); i++)
		pp_buf_release(&x.val[i]);
	free(x.repl);
	free(x.raw);
	return rc == PPF_END ? 0 : rc;
}

void ana_scrub_report_release(struct ana_scrub_report *rep)
{
	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++)
		free(rep->where[c]);
	free(rep->kept_fields);
	free(rep->kept_keys);
	memset(rep, 0, sizeof(*rep));
}
