/* SPDX-License-Identifier: MIT */
/*
 * perfdata.h - the perf.data reader's shared state (analyze/import/perfdata*.c).
 *
 * perf.data (tools/perf/Documentation/perf.data-file-format.txt in the kernel tree):
 * file mode is a header naming three sections (attrs, data, event types) and a bitmap
 * of feature sections stored after the data; pipe mode is a 16-byte header and a
 * stream of records, the attrs and features among them as records of their own.
 * Records are perf_event_header-framed, little-endian here (a big-endian file is
 * refused by name).  Every size is checked against what holds it before it is used.
 *
 * The files: perfdata.c (the converter: file or pipe, the metadata it writes),
 * perfdata-header.c (header, attrs, feature sections), perfdata-tracing.c (the
 * tracing data: event formats), perfdata-records.c (records: parsing, the
 * ordered-events queue, capture records), perfdata-syms.c (kernel and user symbols
 * from this machine, when they match).
 */
#ifndef PP_ANALYZE_IMPORT_PERFDATA_H
#define PP_ANALYZE_IMPORT_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/import/import.h"
#include "common/u64map.h"
#include "format/format.h"

/* Little-endian words at any alignment (records need not be 8-byte aligned). */
static inline uint32_t pd_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, sizeof(v)); return v; }
static inline uint64_t pd_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, sizeof(v)); return v; }

/* Bounds on what a file may claim (lying sizes allocate nothing beyond them). */
#define PD_MAX_ATTRS 4096		/* events */
#define PD_MAX_IDS (1u << 20)		/* event ids, all events together */
#define PD_MAX_FORMATS 65536		/* tracepoint formats in the tracing data */
#define PD_MAX_TRACING (256u << 20)	/* bytes of tracing data */
#define PD_MAX_BUILD_IDS 65536
#define PD_MAX_QUEUE (256u << 20)	/* bytes held by the ordered-events queue */
#define PD_MAX_QUEUED (1u << 20)	/* records in it (32 bytes each, twice while sorting) */
#define PD_MAX_RECORD (1u << 20)	/* a record read from a pipe (perf's are < 64 KiB) */

/* perf's record types of the tool (>= 64), as the file format documents them */
enum {
	PD_HEADER_ATTR = 64, PD_HEADER_EVENT_TYPE = 65, PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67, PD_FINISHED_ROUND = 68, PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70, PD_AUXTRACE = 71, PD_AUXTRACE_ERROR = 72,
	PD_THREAD_MAP = 73, PD_CPU_MAP = 74, PD_STAT_CONFIG = 75, PD_STAT = 76,
	PD_STAT_ROUND = 77, PD_EVENT_UPDATE = 78, PD_TIME_CONV = 79, PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81, PD_FINISHED_INIT = 82, PD_COMPRESSED2 = 83,
};

/* feature bits of the file header's bitmap */
enum {
	PD_FEAT_TRACING_DATA = 1, PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4, PD_FEAT_VERSION = 5, PD_FEAT_ARCH = 6, PD_FEAT_NRCPUS = 7,
	PD_FEAT_CMDLINE = 11, PD_FEAT_EVENT_DESC = 12, PD_FEAT_CLOCKID = 23,
	PD_FEAT_COMPRESSED = 27, PD_FEAT_CLOCK_DATA = 29, PD_FEAT_MAX = 256,
};

/* One event of the file. */
struct pd_attr {
	struct perf_event_attr attr;	/* as stored, zero-extended to this build's size */
	uint32_t cap_id;		/* its EVENT_DESC id in the capture (1, 2, ...) */
	char name[256];			/* "sched:sched_switch", "cycles"; "" until known */
	bool written;			/* its EVENT_DESC is in the capture */
	uint64_t nr_samples;
};

/* One tracepoint format of the tracing data. */
struct pd_format {
	uint32_t id;			/* tracefs id: attr.config of its events */
	char name[160];			/* "sched:sched_switch" */
	char *text;			/* the format file, NUL-terminated */
};

struct pd_build_id {
	uint8_t id[20];
	uint8_t sz;
	bool kernel;
	char *path;
};

/* A record waiting in the ordered-events queue. */
struct pd_qent {
	uint64_t time_ns;
	uint64_t seq;			/* arrival order: equal times keep it */
	const uint8_t *rec;		/* the record (owned when @owned) */
	uint32_t sz;
	bool owned;
};

struct pd_file {
	const char *path;
	struct ppf_writer *w;
	struct ana_import_info *info;
	int fd;
	bool pipe;
	const uint8_t *map;		/* file mode: the whole file */
	size_t map_sz;
	/* events */
	struct pd_attr *attrs;
	size_t nr_attrs;
	struct pp_u64map ids;		/* perf sample id -> attr index + 1 */
	struct ppf_sample out;		/* emit_sample()'s, zero but for what it sets */
	uint64_t last_id;		/* pd_attr_of_id()'s last answer, when last_ok */
	uintptr_t last_idx;
	bool last_ok;
	size_t nr_ids;
	uint64_t sample_type;		/* of the first event: where ids are (perf requires it) */
	bool sample_id_all;
	int id_pos, is_pos;		/* u64 index of the id in a sample, from the end in a trailer */
	/* features */
	char hostname[128], osrelease[128], version[64], arch[32], cpudesc[128];
	char cmdline[512];
	uint32_t nr_cpus_online, nr_cpus_avail;
	int clockid;			/* -1: perf's default clock */
	bool have_clock_data;
	uint64_t tod_ns, clock_ns;	/* CLOCK_DATA: wall clock and the event clock at one instant */
	uint32_t page_size;
	bool have_tracing;		/* the file has tracing data (formats: its own only) */
	char *header_page;		/* from the tracing data, or NULL */
	struct pd_format *formats;
	size_t nr_formats;
	struct pd_build_id *bids;
	size_t nr_bids;
	/* records */
	struct pd_qent *q;
	size_t nr_q, cap_q;
	struct pd_qent *q2;		/* scratch: the records not yet due, while the due are sorted */
	size_t cap_q2;
	uint64_t q_bytes;		/* owned bytes held */
	uint64_t seq, max_ts, next_flush, last_emit_ns;
	bool meta_written;
	uint64_t kernel_text;		/* pgoff of the [kernel.kallsyms]_text mmap, 0: none */
	void *zstd;			/* ZSTD_DStream of PERF_RECORD_COMPRESSED, NULL until one */
	uint8_t *zbuf;			/* decompressed bytes not yet parsed */
	size_t zlen, zcap;
	uint64_t nr_lost_recs;		/* PERF_RECORD_LOST seen */
	uint64_t nr_unknown, nr_bad, nr_unordered, nr_nocpu;
	bool want_usyms;		/* some event samples user addresses: binaries are read */
	struct pp_u64map dsos_seen;	/* user binaries whose symbols were looked for (path hash) */
	uint64_t nr_dsos, nr_dsos_matched, nr_dsos_nobid, nr_dsos_unwind;
	char err[256];			/* the first error, "" if none */
};

/* perfdata-header.c */
/** pd_read_file_header() - file mode: header, attrs and ids, feature sections. Return: 0 or -1 (@f->err). */
int pd_read_file_header(struct pd_file *f, uint64_t *data_off, uint64_t *data_sz);
/** pd_feature() - one feature section's payload (both modes). Return: 0 or -1 (@f->err). */
int pd_feature(struct pd_file *f, unsigned feat, const uint8_t *p, size_t sz);
/** pd_add_attr() - a new event and its ids. Return: 0 or -1 (@f->err). */
int pd_add_attr(struct pd_file *f, const uint8_t *attr, size_t attr_sz, const uint8_t *ids,
		size_t nr_ids);
/** pd_attr_of_id() - the event of a perf id; NULL if none (one event: that one). */
struct pd_attr *pd_attr_of_id(struct pd_file *f, uint64_t id);
/** pd_set_err() - the first error of @f (printf format). Return: -1. */
int pd_set_err(struct pd_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** pd_build_id_of() - the build id the file gives for @path, or NULL. */
const struct pd_build_id *pd_build_id_of(const struct pd_file *f, const char *path);

/* perfdata-tracing.c */
/** pd_tracing_data() - the tracing data (event formats). Return: 0 or -1 (@f->err). */
int pd_tracing_data(struct pd_file *f, const uint8_t *p, size_t sz);
/**
 * pd_local_format() - a file without tracing data (cut off before its features): the
 * format of @id from this machine's tracefs, unless the file names another kernel
 * release (said in the file's lacks)
 * Return: the format added, or NULL.
 */
const struct pd_format *pd_local_format(struct pd_file *f, uint32_t id);
/** pd_format_of() - the format of tracefs id @id, or NULL. */
const struct pd_format *pd_format_of(const struct pd_file *f, uint32_t id);

/* perfdata-records.c */
/**
 * pd_record() - one record of the data: metadata records folded in, the others queued
 * in time order and written out at each round's end
 * @stable: @rec stays valid until the conversion ends (file mode), else it is copied
 * Return: 0 or -1 (@f->err).
 */
int pd_record(struct pd_file *f, const uint8_t *rec, size_t sz, bool stable);
/** pd_flush() - write out every queued record (end of data). Return: 0 or -1 (@f->err). */
int pd_flush(struct pd_file *f);
void pd_records_release(struct pd_file *f);

/* perfdata.c */
/** pd_write_meta() - the metadata, before the first timed record. Return: 0 or a negative code. */
int pd_write_meta(struct pd_file *f);
/** pd_write_event_desc() - @a's EVENT_DESC, once. Return: 0 or a negative code. */
int pd_write_event_desc(struct pd_file *f, struct pd_attr *a);

/* perfdata-syms.c */
/** pd_write_ksyms() - this machine's kallsyms, when its kernel is the file's. Return: 0 or a negative code. */
int pd_write_ksyms(struct pd_file *f);
/**
 * pd_user_dso() - before the first MMAP of @path: its symbols from this machine's binary
 * when it matches the file's build id (or the file has none)
 * Return: 0 or a negative code (a writer error; a binary that cannot be read is not one).
 */
int pd_user_dso(struct pd_file *f, const char *path, const uint8_t *bid, size_t bid_sz);

#endif
