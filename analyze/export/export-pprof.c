/* SPDX-License-Identifier: MIT */
/*
 * export-pprof.c - a pprof profile (perftools.profiles.Profile, gzip-compressed), for
 * `go tool pprof`, pprof's web UI, speedscope and the other readers of profile.proto.
 *
 * Events are aggregated into one Sample per distinct (event, pid, tid, comm, stack),
 * with sample values [samples/count] plus, with --value period or by default for
 * cpu-clock/task-clock, [cpu/nanoseconds] (the period), or [EXPR/count] for an
 * expression.  Labels: pid, tid (numbers), comm and event (strings).  The stack's
 * frames become Locations, each with one Line of a Function (name, mangled name, the
 * binary as file name) when the symbol is known.  Binaries become Mappings with their
 * build ids: a user binary's locations are keyed by file offset, so the same code in
 * two processes is one location, and each binary gets its own synthetic address range
 * (bit 62 set, out of the way of user and kernel addresses) with memory_start mapping
 * to file offset 0, so pprof can still symbolize it from the file; kernel, module and
 * JIT frames keep their addresses.  Memory grows with distinct stacks and frames,
 * never with the number of events; the profile is encoded and compressed at the end.
 * Field numbers: docs/exports.md (profile.proto).
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "analyze/export/internal.h"
#include "analyze/internal.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/protobuf.h"

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VT_TYPE = 1, VT_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAP_ID = 1, MAP_START = 2, MAP_LIMIT = 3, MAP_OFFSET = 4, MAP_FILENAME = 5,
	MAP_BUILD_ID = 6, MAP_HAS_FUNCTIONS = 7,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4,
};

#define SYNTH_BASE 0x4000000000000000ull
#define SYNTH_ALIGN (1ull << 20)

struct mapping {
	bool by_offset;		/* a user binary: locations keyed by file offset */
	bool all_functions;	/* every location has a function */
	uint64_t lo, hi;	/* addresses (or offsets) seen */
	uint64_t base;		/* by_offset: synthetic memory_start, set at the end */
	uint32_t filename, build_id;	/* string indexes */
};

struct location {
	uint32_t mapping;	/* index + 1, 0: none */
	uint32_t function;	/* index + 1, 0: unknown */
	uint64_t addr;		/* address, or file offset when the mapping is by_offset */
};

struct function {
	uint32_t name, system_name, filename;
};

struct loc_key {
	uint32_t mapping, pid;	/* pid only for user addresses outside binaries */
	uint64_t addr;		/* file offset in binaries, else the address */
};

struct frame_key {
	uint32_t pid, comm_hash;	/* 0 for kernel frames */
	uint64_t addr;
};

struct sample_head {
	uint32_t type, pid, tid, comm, nr;
};

#define VEC_GROW(v, nr, alloc)                                                     \
	do {                                                                       \
		if ((nr) >= (alloc)) {                                             \
			(alloc) = (alloc) ? 2 * (alloc) : 256;                     \
			(v) = pp_xrealloc((v), (alloc) * sizeof(*(v)));            \
		}                                                                  \
	} while (0)

struct pprof_priv {
	struct ana_export_value value;
	bool second_value;		/* a value besides the sample count */
	bool clock;			/* every matched type is a clock event */
	struct pp_intern *strings, *maps_k, *funcs_k, *locs_k, *frames_k, *samples_k;
	struct mapping *maps;
	size_t alloc_maps;
	struct function *funcs;
	size_t alloc_funcs;
	struct location *locs;
	size_t alloc_locs;
	uint32_t *frame_loc;		/* frames_k index -> location index */
	size_t alloc_frames;
	uint64_t (*sums)[2];		/* samples_k index -> values */
	size_t alloc_sums;
	uint64_t first_ns, last_ns, period;
	struct ana_frame stack[ANA_EXPORT_MAX_FRAMES];
	struct pp_buf key;
	uint32_t s_pid, s_tid, s_comm, s_event;	/* label keys */
};

static uint32_t str_idx(struct pprof_priv *p, const char *s)
{
	return pp_intern_put_str(p->strings, s ? s : "", NULL);
}

/* The index of the NUL-joined strings @parts (NULL: "") in @set; *@added: new there. */
static uint32_t key_put(struct pprof_priv *p, struct pp_intern *set, const char *const *parts,
			size_t nr, bool *added)
{
	struct pp_buf *k = &p->key;

	pp_buf_reset(k);
	for (size_t i = 0; i < nr; i++) {
		if (i)
			pp_buf_addch(k, '\0');
		pp_buf_adds(k, parts[i] ? parts[i] : "");
	}
	return pp_intern_put(set, k->data, k->len, added);
}

static uint32_t mapping_get(struct pprof_priv *p, const struct ana_frame_info *fi, bool kernel)
{
	const char *parts[] = { fi->dso, fi->build_id };
	bool added;
	uint32_t i = key_put(p, p->maps_k, parts, PP_ARRAY_SIZE(parts), &added);

	if (added) {
		VEC_GROW(p->maps, i, p->alloc_maps);
		p->maps[i] = (struct mapping){
			.by_offset = !kernel && !fi->jit && fi->dso[0] == '/',
			.all_functions = true,
			.lo = UINT64_MAX,
			.filename = str_idx(p, fi->dso),
			.build_id = str_idx(p, fi->build_id),
		};
	}
	return i;
}

static uint32_t function_get(struct pprof_priv *p, const struct ana_frame_info *fi)
{
	const char *parts[] = { fi->name, fi->mangled, fi->dso };
	bool added;
	uint32_t i = key_put(p, p->funcs_k, parts, PP_ARRAY_SIZE(parts), &added);

	if (added) {
		VEC_GROW(p->funcs, i, p->alloc_funcs);
		p->funcs[i] = (struct function){
			.name = str_idx(p, fi->name),
			.system_name = str_idx(p, fi->mangled ? fi->mangled : fi->name),
			.filename = str_idx(p, fi->dso),
		};
	}
	return i;
}

/* The location of one frame, resolved once per (process, address). */
static uint32_t location_of(struct ana_export *x, struct pprof_priv *p, const struct pp_event *ev,
			    const struct ana_frame *f, uint32_t comm_hash)
{
	struct frame_key fk = { f->kernel ? 0 : ev->pid, f->kernel ? 0 : comm_hash, f->addr };
	struct ana_frame_info fi;
	struct loc_key lk = { 0 };
	bool added;
	uint32_t fidx = pp_intern_put(p->frames_k, &fk, sizeof(fk), &added), l;

	if (!added)
		return p->frame_loc[fidx];
	ana_frame_resolve(x->s, ev, f->addr, f->kernel, &fi);
	lk.pid = f->kernel ? 0 : ev->pid;
	lk.addr = f->addr;
	if (fi.dso) {
		lk.mapping = mapping_get(p, &fi, f->kernel) + 1;
		if (p->maps[lk.mapping - 1].by_offset) {
			lk.addr = fi.dso_off;	/* the same code in every process */
			lk.pid = 0;
		}
	}
	l = pp_intern_put(p->locs_k, &lk, sizeof(lk), &added);
	if (added) {
		VEC_GROW(p->locs, l, p->alloc_locs);
		p->locs[l] = (struct location){
			lk.mapping, fi.name ? function_get(p, &fi) + 1 : 0, lk.addr,
		};
		if (lk.mapping) {
			struct mapping *m = &p->maps[lk.mapping - 1];
			if (lk.addr < m->lo)
				m->lo = lk.addr;
			if (lk.addr > m->hi)
				m->hi = lk.addr;
			if (!fi.name)
				m->all_functions = false;
		}
	}
	VEC_GROW(p->frame_loc, fidx, p->alloc_frames);
	p->frame_loc[fidx] = l;
	return l;
}

static int pprof_begin(struct ana_export *x)
{
	struct pprof_priv *p = x->priv;
	struct pp_az *az = x->az;

	p->strings = pp_intern_new();
	pp_intern_put_str(p->strings, "", NULL);	/* string_table[0] must be "" */
	p->maps_k = pp_intern_new();
	p->funcs_k = pp_intern_new();
	p->locs_k = pp_intern_new();
	p->frames_k = pp_intern_new();
	p->samples_k = pp_intern_new();
	p->clock = az->nr_sels > 0;
	for (size_t i = 0; i < az->nr_sels; i++)
		p->clock &= ana_export_is_clock(az->sels[i].type);
	p->s_pid = str_idx(p, "pid");
	p->s_tid = str_idx(p, "tid");
	p->s_comm = str_idx(p, "comm");
	p->s_event = str_idx(p, "event");
	if (ana_export_value_init(x, &p->value, p->clock ? ANA_VAL_PERIOD : ANA_VAL_COUNT))
		return PP_EUSAGE;
	p->second_value = p->value.kind != ANA_VAL_COUNT;
	return 0;
}

static void pprof_event(struct ana_export *x, const struct pp_event *ev)
{
	struct pprof_priv *p = x->priv;
	const char *comm = ana_comm(x->s, ev->tid), *pcomm = ana_comm(x->s, ev->pid);
	const char *name = ev->sel && ev->sel->sel->alias ? ev->sel->sel->alias : ev->type->name;
	uint32_t comm_hash = (uint32_t)pp_intern_hash(pcomm, strlen(pcomm));
	size_t n = ana_stack_frames(ev, p->stack, ANA_EXPORT_MAX_FRAMES);
	struct sample_head h;
	struct pp_buf *k = &p->key;
	uint32_t locs[ANA_EXPORT_MAX_FRAMES], si;
	bool added;

	if (!n && ev->ip) {
		p->stack[0] = (struct ana_frame){ ev->ip, ev->ip >= 0xffff000000000000ull };
		n = 1;
	}
	for (size_t i = 0; i < n; i++)
		locs[i] = location_of(x, p, ev, &p->stack[i], comm_hash);
	h = (struct sample_head){
		str_idx(p, name), ev->pid, ev->tid, str_idx(p, comm), (uint32_t)n,
	};
	pp_buf_reset(k);
	pp_buf_add(k, &h, sizeof(h));
	pp_buf_add(k, locs, n * sizeof(locs[0]));
	si = pp_intern_put(p->samples_k, k->data, k->len, &added);
	if (added) {
		VEC_GROW(p->sums, si, p->alloc_sums);
		p->sums[si][0] = p->sums[si][1] = 0;
	}
	p->sums[si][0]++;
	if (p->second_value)
		p->sums[si][1] += ana_export_value_get(x, &p->value, ev);
	if (!p->first_ns) {
		p->first_ns = ev->time_ns;
		p->period = ev->period;
	}
	p->last_ns = ev->time_ns;
}

/* ---- encoding ------------------------------------------------------------- */

static void value_type(struct pp_pb *pb, uint32_t field, uint32_t type, uint32_t unit)
{
	pp_pb_begin(pb, field);
	pp_pb_varint(pb, VT_TYPE, type);
	pp_pb_varint(pb, VT_UNIT, unit);
	pp_pb_end(pb);
}

static void label(struct pp_pb *pb, uint32_t key, bool is_num, uint64_t v)
{
	pp_pb_begin(pb, SAMPLE_LABEL);
	pp_pb_varint(pb, LABEL_KEY, key);
	pp_pb_varint(pb, is_num ? LABEL_NUM : LABEL_STR, v);
	pp_pb_end(pb);
}

static uint64_t loc_address(const struct pprof_priv *p, const struct location *l)
{
	if (l->mapping && p->maps[l->mapping - 1].by_offset)
		return p->maps[l->mapping - 1].base + l->addr;
	return l->addr;
}

/* The binaries keyed by offset get their synthetic address ranges, one after the other. */
static void place_mappings(struct pprof_priv *p)
{
	size_t nr_maps = pp_intern_count(p->maps_k);
	uint64_t base = SYNTH_BASE;

	for (size_t i = 0; i < nr_maps; i++) {
		struct mapping *m = &p->maps[i];
		if (!m->by_offset || m->lo == UINT64_MAX)
			continue;
		m->base = base;
		m->lo = 0;
		base += (m->hi + SYNTH_ALIGN) & ~(SYNTH_ALIGN - 1);
	}
}

/* [samples/count] and the second value's type. Return: the default sample type. */
static uint32_t encode_sample_types(struct pprof_priv *p, struct pp_pb *pb)
{
	uint32_t t_samples = str_idx(p, "samples"), u_count = str_idx(p, "count");
	uint32_t t_value, u_value;

	if (p->clock && p->value.kind == ANA_VAL_PERIOD) {
		t_value = str_idx(p, "cpu");
		u_value = str_idx(p, "nanoseconds");
	} else {
		t_value = str_idx(p, p->value.name);
		u_value = u_count;
	}
	value_type(pb, PROFILE_SAMPLE_TYPE, t_samples, u_count);
	if (p->second_value)
		value_type(pb, PROFILE_SAMPLE_TYPE, t_value, u_value);
	return p->second_value ? t_value : t_samples;
}

static void encode_samples(struct pprof_priv *p, struct pp_pb *pb)
{
	size_t nr_samples = pp_intern_count(p->samples_k);

	for (size_t i = 0; i < nr_samples; i++) {
		size_t sz;
		const uint8_t *k = pp_intern_key(p->samples_k, (uint32_t)i, &sz);
		struct sample_head h;

		memcpy(&h, k, sizeof(h));
		pp_pb_begin(pb, PROFILE_SAMPLE);
		pp_pb_begin(pb, SAMPLE_LOCATION_ID);
		for (uint32_t j = 0; j < h.nr; j++) {
			uint32_t l;
			memcpy(&l, k + sizeof(h) + j * sizeof(l), sizeof(l));
			pp_pb_raw_varint(pb, l + 1);
		}
		pp_pb_end(pb);
		pp_pb_begin(pb, SAMPLE_VALUE);
		pp_pb_raw_varint(pb, p->sums[i][0]);
		if (p->second_value)
			pp_pb_raw_varint(pb, p->sums[i][1]);
		pp_pb_end(pb);
		label(pb, p->s_event, false, h.type);
		label(pb, p->s_pid, true, h.pid);
		label(pb, p->s_tid, true, h.tid);
		label(pb, p->s_comm, false, h.comm);
		pp_pb_end(pb);
	}
}

static void encode_mappings(struct pprof_priv *p, struct pp_pb *pb)
{
	size_t nr_maps = pp_intern_count(p->maps_k);

	for (size_t i = 0; i < nr_maps; i++) {
		const struct mapping *m = &p->maps[i];
		pp_pb_begin(pb, PROFILE_MAPPING);
		pp_pb_varint(pb, MAP_ID, i + 1);
		if (m->by_offset) {
			pp_pb_varint(pb, MAP_START, m->base);
			pp_pb_varint(pb, MAP_LIMIT,
				     m->base + ((m->hi + SYNTH_ALIGN) & ~(SYNTH_ALIGN - 1)));
			pp_pb_varint(pb, MAP_OFFSET, 0);
		} else {
			pp_pb_varint(pb, MAP_START, m->lo);
			pp_pb_varint(pb, MAP_LIMIT, m->hi + 1);
		}
		pp_pb_varint(pb, MAP_FILENAME, m->filename);
		if (m->build_id)
			pp_pb_varint(pb, MAP_BUILD_ID, m->build_id);
		pp_pb_varint(pb, MAP_HAS_FUNCTIONS, m->all_functions);
		pp_pb_end(pb);
	}
}

/* The locations, then the functions their lines name. */
static void encode_code(struct pprof_priv *p, struct pp_pb *pb)
{
	for (size_t i = 0; i < pp_intern_count(p->locs_k); i++) {
		const struct location *l = &p->locs[i];
		pp_pb_begin(pb, PROFILE_LOCATION);
		pp_pb_varint(pb, LOC_ID, i + 1);
		if (l->mapping)
			pp_pb_varint(pb, LOC_MAPPING_ID, l->mapping);
		pp_pb_varint(pb, LOC_ADDRESS, loc_address(p, l));
		if (l->function) {
			pp_pb_begin(pb, LOC_LINE);
			pp_pb_varint(pb, LINE_FUNCTION_ID, l->function);
			pp_pb_end(pb);
		}
		pp_pb_end(pb);
	}
	for (size_t i = 0; i < pp_intern_count(p->funcs_k); i++) {
		const struct function *f = &p->funcs[i];
		pp_pb_begin(pb, PROFILE_FUNCTION);
		pp_pb_varint(pb, FN_ID, i + 1);
		pp_pb_varint(pb, FN_NAME, f->name);
		pp_pb_varint(pb, FN_SYSTEM_NAME, f->system_name);
		pp_pb_varint(pb, FN_FILENAME, f->filename);
		pp_pb_end(pb);
	}
}

/* Time, duration, period, the comment and the default sample type @default_type. */
static void encode_info(struct ana_export *x, struct pprof_priv *p, struct pp_pb *pb,
			uint32_t default_type)
{
	uint64_t real;
	char comment[512];

	if (p->first_ns && ana_realtime_ns(x->s, p->first_ns, &real))
		pp_pb_int(pb, PROFILE_TIME_NANOS, (int64_t)real);
	pp_pb_int(pb, PROFILE_DURATION_NANOS, (int64_t)(p->last_ns - p->first_ns));
	if (p->clock) {
		value_type(pb, PROFILE_PERIOD_TYPE, str_idx(p, "cpu"), str_idx(p, "nanoseconds"));
		pp_pb_int(pb, PROFILE_PERIOD, (int64_t)p->period);
	}
	snprintf(comment, sizeof(comment), "pp-analyze export of %s (host %s, kernel %s)",
		 x->s->path, ana_host(x->s, "hostname") ? ana_host(x->s, "hostname") : "?",
		 ana_host(x->s, "release") ? ana_host(x->s, "release") : "?");
	pp_pb_int(pb, PROFILE_COMMENT, str_idx(p, comment));
	pp_pb_int(pb, PROFILE_DEFAULT_SAMPLE_TYPE, default_type);
}

/* The string table, last: every index is in it by now.  Proto3 strings must be UTF-8. */
static void encode_strings(struct pprof_priv *p, struct pp_pb *pb)
{
	struct pp_buf u = PP_BUF_INIT;

	for (size_t i = 0; i < pp_intern_count(p->strings); i++) {
		size_t sz;
		const char *s = pp_intern_key(p->strings, (uint32_t)i, &sz);
		if (ana_utf8_valid(s, sz)) {
			pp_pb_bytes(pb, PROFILE_STRING_TABLE, s, sz);
			continue;
		}
		pp_buf_reset(&u);
		ana_buf_add_utf8(&u, s, sz);	/* protoc and pprof refuse the profile otherwise */
		pp_pb_bytes(pb, PROFILE_STRING_TABLE, u.data, u.len);
	}
	pp_buf_release(&u);
}

/* The Profile message; the string table last, when every string has its index. */
static void encode(struct ana_export *x, struct pprof_priv *p, struct pp_pb *pb)
{
	uint32_t default_type;

	place_mappings(p);
	default_type = encode_sample_types(p, pb);
	encode_samples(p, pb);
	encode_mappings(p, pb);
	encode_code(p, pb);
	encode_info(x, p, pb, default_type);
	encode_strings(p, pb);
}

static int gzip_write(struct ana_export *x, const struct pp_buf *b)
{
	unsigned char out[64 << 10];
	z_stream z = { 0 };
	int zrc;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(x->errmsg, sizeof(x->errmsg), "zlib: cannot initialize");
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)(b->data ? b->data : "");
	z.avail_in = (uInt)b->len;	/* a profile stays far below 4 GiB */
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zrc = deflate(&z, Z_FINISH);
		if (zrc == Z_STREAM_ERROR)
			break;
		size_t n = sizeof(out) - z.avail_out;
		if (n && fwrite(out, 1, n, x->fp) != n) {
			deflateEnd(&z);
			snprintf(x->errmsg, sizeof(x->errmsg), "write: %s", strerror(errno));
			return -EIO;
		}
	} while (zrc != Z_STREAM_END);
	deflateEnd(&z);
	if (zrc != Z_STREAM_END) {
		snprintf(x->errmsg, sizeof(x->errmsg), "zlib: compression failed");
		return -EIO;
	}
	return 0;
}

static int pprof_end(struct ana_export *x)
{
	struct pprof_priv *p = x->priv;
	struct pp_pb pb = PP_PB_INIT;
	int rc;

	encode(x, p, &pb);
	rc = gzip_write(x, &pb.buf);
	if (x->az->opt.verbose)
		pp_info("export: %zu samples, %zu locations, %zu functions, %zu mappings, "
			"%zu bytes",
			pp_intern_count(p->samples_k), pp_intern_count(p->locs_k),
			pp_intern_count(p->funcs_k), pp_intern_count(p->maps_k), pb.buf.len);
	pp_pb_release(&pb);
	return rc;
}

static void pprof_release(struct ana_export *x)
{
	struct pprof_priv *p = x->priv;

	ana_export_value_release(&p->value);
	pp_intern_free(p->strings);
	pp_intern_free(p->maps_k);
	pp_intern_free(p->funcs_k);
	pp_intern_free(p->locs_k);
	pp_intern_free(p->frames_k);
	pp_intern_free(p->samples_k);
	free(p->maps);
	free(p->funcs);
	free(p->locs);
	free(p->frame_loc);
	free(p->sums);
	pp_buf_release(&p->key);
}

const struct ana_export_ops ana_export_pprof = {
	.name = "pprof",
	.summary = "pprof profile.proto (gzip): samples by stack, functions, mappings, build ids",
	.binary = true,
	.profile = true,
	.priv_size = sizeof(struct pprof_priv),
	.begin = pprof_begin,
	.event = pprof_event,
	.end = pprof_end,
	.release = pprof_release,
};
