/* SPDX-License-Identifier: MIT */
/*
 * capcheck.c - a test-only capture checker for the record integration tests.
 *
 * Reads a capture with format/ alone (no pp-analyze) and prints facts the
 * tests compare with ground truth:
 *
 *   capcheck FILE summary          key=value lines: records, samples, events.<name>,
 *                                  lost, late, order (ok/bad), truncated, segments ...
 *   capcheck FILE count NAME TIDS  samples of event NAME whose tid is in TIDS (1,2,3)
 *   capcheck FILE pcount NAME PID  samples of event NAME of process PID
 *   capcheck FILE stacks PID       folded stacks of PID's samples, symbolized from
 *                                  the capture only (MMAP + DSO/SYM + KSYM records),
 *                                  kernel frames suffixed "_[k]", one "stack count" a line
 *   capcheck FILE kframes          kernel frames of all samples: "frames=N unknown=M"
 *   capcheck FILE kv KEY           the value of a KV record
 *   capcheck FILE stat KEY         the value of a STAT record
 *   capcheck FILE segs             per segment kind: count, raw and compressed bytes
 *
 * Symbolization is streaming: each sample is resolved when it is read, with
 * the maps and symbol tables seen so far, as a live reader would.
 * Not here: anything pp-analyze does for users.  Exits 1 when the capture
 * cannot be read at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

struct sym {
	uint64_t start, size;
	char *name;
};

struct dso {
	char *path;
	uint8_t bid[64];
	uint32_t bid_sz;
	uint64_t text_vaddr, text_off;
	struct sym *syms;
	size_t nr;
};

struct map {
	uint32_t pid;
	uint64_t addr, len, pgoff;
	char *path;
	uint8_t bid[64];
	uint32_t bid_sz;
};

struct ksym {
	uint64_t addr;
	char *name;
};

struct folded {
	char *stack;
	uint64_t count;
};

static struct dso *dsos;
static size_t nr_dsos;
static struct map *maps;
static size_t nr_maps;
static struct ksym *ksyms;
static size_t nr_ksyms;
static int ksyms_sorted;
static struct folded *folds;
static size_t nr_folds;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("capcheck");
		exit(1);
	}
	return p;
}

/* Room for element @n of @p: capacity doubles, so adding n elements costs O(n). */
#define GROW(p, n)                                                                         \
	do {                                                                               \
		if (((n) & ((n) - 1)) == 0)                                                \
			(p) = xrealloc((p), ((n) ? 2 * (n) : 1) * sizeof(*(p)));           \
	} while (0)

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		exit(1);
	return d;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *ksym_name(uint64_t addr)
{
	size_t lo = 0, hi = nr_ksyms;

	if (!ksyms_sorted) {
		qsort(ksyms, nr_ksyms, sizeof(*ksyms), cmp_ksym);
		ksyms_sorted = 1;
	}
	if (!nr_ksyms || addr < ksyms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return ksyms[lo].name;
}

static const struct map *map_find(uint32_t pid, uint64_t addr)
{
	for (size_t i = nr_maps; i-- > 0;)
		if (maps[i].pid == pid && addr >= maps[i].addr && addr < maps[i].addr + maps[i].len)
			return &maps[i];
	return NULL;
}

static const char *usym_name(uint32_t pid, uint64_t addr)
{
	const struct map *m = map_find(pid, addr);
	const struct dso *d = NULL;
	const struct sym *best = NULL;
	uint64_t off, va;

	if (!m)
		return NULL;
	for (size_t i = 0; i < nr_dsos && !d; i++) {
		if (m->bid_sz && dsos[i].bid_sz == m->bid_sz &&
		    !memcmp(m->bid, dsos[i].bid, m->bid_sz))
			d = &dsos[i];
	}
	for (size_t i = 0; i < nr_dsos && !d; i++)
		if (!strcmp(dsos[i].path, m->path))
			d = &dsos[i];
	if (!d)
		return NULL;
	off = addr - m->addr + m->pgoff;
	va = off - d->text_off + d->text_vaddr;
	for (size_t i = 0; i < d->nr; i++) {
		const struct sym *s = &d->syms[i];

		if (va >= s->start && va < s->start + (s->size ? s->size : 1))
			return s->name;
		if (!s->size && s->start <= va && (!best || s->start > best->start))
			best = s;
	}
	return best ? best->name : NULL;
}

static uint64_t nr_kframes, nr_kunknown;

static void count_kframes(const struct ppf_sample *s)
{
	int kernel = 0;

	for (uint32_t i = 0; i < s->nr_stack; i++) {
		uint64_t ip = s->stack[i];

		if (ip >= (uint64_t)-4095) {
			kernel = ip == (uint64_t)-128;	/* PERF_CONTEXT_KERNEL */
			continue;
		}
		if (!kernel)
			continue;
		nr_kframes++;
		if (!ksym_name(ip))
			nr_kunknown++;
	}
}

static void fold_add(const char *stack)
{
	for (size_t i = 0; i < nr_folds; i++) {
		if (!strcmp(folds[i].stack, stack)) {
			folds[i].count++;
			return;
		}
	}
	GROW(folds, nr_folds);
	folds[nr_folds].stack = xstrdup(stack);
	folds[nr_folds++].count = 1;
}

static void fold_sample(const struct ppf_sample *s)
{
	char buf[16384];
	const char *names[512];
	size_t n = 0, len = 0;
	int kernel = 0;

	for (uint32_t i = 0; i < s->nr_stack && n < 512; i++) {
		uint64_t ip = s->stack[i];
		const char *nm;

		if (ip >= (uint64_t)-4095) {
			kernel = ip == (uint64_t)-128;	/* PERF_CONTEXT_KERNEL */
			continue;
		}
		nm = kernel ? ksym_name(ip) : usym_name(s->pid, ip);
		if (kernel) {
			static char kb[512][160];

			snprintf(kb[n], sizeof(kb[n]), "%s_[k]", nm ? nm : "[unknown]");
			names[n] = kb[n];
			n++;
		} else {
			names[n++] = nm ? nm : "[unknown]";
		}
	}
	buf[0] = '\0';
	for (size_t i = n; i-- > 0;)
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
					"%s%s", len ? ";" : "", names[i]);
	if (n)
		fold_add(buf);
}

static int in_list(const char *list, uint32_t v)
{
	const char *p = list;

	while (p && *p) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (x == v)
			return 1;
		p = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

/* The tables main() builds live in file scope or in its own locals; free them all at exit. */
static char **g_names;
static uint64_t g_nr_ids;
static char *g_found;
static uint64_t *g_counts;

static void free_all(void)
{
	for (size_t i = 0; i < nr_dsos; i++) {
		for (size_t k = 0; k < dsos[i].nr; k++)
			free(dsos[i].syms[k].name);
		free(dsos[i].syms);
		free(dsos[i].path);
	}
	free(dsos);
	for (size_t i = 0; i < nr_maps; i++)
		free(maps[i].path);
	free(maps);
	for (size_t i = 0; i < nr_ksyms; i++)
		free(ksyms[i].name);
	free(ksyms);
	for (size_t i = 0; i < nr_folds; i++)
		free(folds[i].stack);
	free(folds);
	for (uint64_t i = 0; i < g_nr_ids; i++)
		free(g_names[i]);
	free(g_names);
	free(g_counts);
	free(g_found);
}

static int capcheck_main(int argc, char **argv);

int main(int argc, char **argv)
{
	int rc = capcheck_main(argc, argv);

	free_all();
	return rc;
}

static int capcheck_main(int argc, char **argv)
{
	struct ppf_reader *r = NULL;
	struct ppf_record rec;
	const char *file, *cmd;
	char **names = NULL;
	uint64_t *counts = NULL, nr_records = 0, nr_samples = 0, nr_lost = 0, nr_late = 0;
	uint64_t last_t = 0, bad_order = 0, match = 0, nr_timed = 0, first_t = 0;
	uint64_t nr_ids = 0, nr_mmap = 0, nr_comm = 0, nr_dso = 0, nr_sync = 0, cpu_mask = 0;
	const char *want_name = NULL, *want_list = NULL, *want_key = NULL;
	uint32_t want_pid = 0;
	int have_pid = 0;
	char *found = NULL;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: capcheck FILE [summary | count NAME TIDS | pcount NAME PID | "
				"stacks PID | kv KEY | stat KEY]\n");
		return 2;
	}
	file = argv[1];
	cmd = argc > 2 ? argv[2] : "summary";
	if (!strcmp(cmd, "count") || !strcmp(cmd, "pcount")) {
		if (argc < 5)
			return 2;
		want_name = argv[3];
		want_list = argv[4];
	} else if (!strcmp(cmd, "stacks")) {
		if (argc < 4)
			return 2;
		want_pid = (uint32_t)strtoul(argv[3], NULL, 10);
		have_pid = 1;
	} else if (!strcmp(cmd, "kv") || !strcmp(cmd, "stat")) {
		if (argc < 4)
			return 2;
		want_key = argv[3];
	}
	rc = ppf_reader_open(file, 0, &r);
	if (rc) {
		fprintf(stderr, "capcheck: %s: %s\n", file,
			r ? ppf_reader_errmsg(r) : "cannot open");
		ppf_reader_close(r);
		return 1;
	}
	if (!strcmp(cmd, "segs")) {
		uint64_t cnt[16] = { 0 }, us[16] = { 0 }, cs[16] = { 0 };
		const struct ppf_segment *sg;

		while ((rc = ppf_reader_next_segment(r, &sg)) == 0) {
			uint32_t k = sg->kind < 16 ? sg->kind : 0;

			cnt[k]++;
			us[k] += sg->usize;
			cs[k] += sg->csize + PPF_SEG_HDR_SZ;
		}
		for (int k = 0; k < 16; k++)
			if (cnt[k])
				printf("%-8s segments=%llu raw=%llu comp=%llu\n",
				       ppf_kind_name((uint32_t)k),
				       (unsigned long long)cnt[k], (unsigned long long)us[k],
				       (unsigned long long)cs[k]);
		ppf_reader_close(r);
		return rc < 0 ? 1 : 0;
	}
	while ((rc = ppf_reader_next(r, &rec, NULL)) == 0) {
		nr_records++;
		if (rec.type >= PPF_REC_TIMED_FIRST && rec.type <= PPF_REC_TIMED_LAST) {
			if (!nr_timed++)
				first_t = rec.time_ns;
			if (rec.time_ns < last_t)
				bad_order++;
			last_t = rec.time_ns;
		}
		switch (rec.type) {
		case PPF_REC_EVENT_DESC:
			if (rec.u.event.id >= nr_ids) {
				uint64_t n = rec.u.event.id + 1;

				names = g_names = xrealloc(names, n * sizeof(*names));
				counts = g_counts = xrealloc(counts, n * sizeof(*counts));
				for (uint64_t i = nr_ids; i < n; i++) {
					names[i] = NULL;
					counts[i] = 0;
				}
				nr_ids = g_nr_ids = n;
			}
			free(names[rec.u.event.id]);
			names[rec.u.event.id] = xstrdup(rec.u.event.name);
			break;
		case PPF_REC_SAMPLE: {
			const struct ppf_sample *s = &rec.u.sample;

			nr_samples++;
			if (s->cpu < 64)
				cpu_mask |= 1ull << s->cpu;
			if (s->flags & PPF_SF_LATE)
				nr_late++;
			if (s->id < nr_ids)
				counts[s->id]++;
			if (want_name && s->id < nr_ids && names[s->id] &&
			    !strcmp(names[s->id], want_name)) {
				if (!strcmp(cmd, "count") && in_list(want_list, s->tid))
					match++;
				if (!strcmp(cmd, "pcount") && in_list(want_list, s->pid))
					match++;
			}
			if (have_pid && s->pid == want_pid && s->nr_stack)
				fold_sample(s);
			if (!strcmp(cmd, "kframes"))
				count_kframes(s);
			break;
		}
		case PPF_REC_LOST:
			nr_lost += rec.u.lost.count;
			break;
		case PPF_REC_KSYM:
			GROW(ksyms, nr_ksyms);
			ksyms[nr_ksyms].addr = rec.u.ksym.addr;
			ksyms[nr_ksyms++].name = xstrdup(rec.u.ksym.name);
			ksyms_sorted = 0;
			break;
		case PPF_REC_DSO: {
			struct dso *d;

			GROW(dsos, nr_dsos);
			d = &dsos[nr_dsos++];
			memset(d, 0, sizeof(*d));
			d->path = xstrdup(rec.u.dso.path);
			d->bid_sz = rec.u.dso.build_id_sz <= 64 ? rec.u.dso.build_id_sz : 0;
			memcpy(d->bid, rec.u.dso.build_id, d->bid_sz);
			d->text_vaddr = rec.u.dso.text_vaddr;
			d->text_off = rec.u.dso.text_offset;
			nr_dso++;
			break;
		}
		case PPF_REC_SYM: {
			struct dso *d = nr_dsos ? &dsos[nr_dsos - 1] : NULL;

			if (!d)
				break;
			GROW(d->syms, d->nr);
			d->syms[d->nr].start = rec.u.sym.start;
			d->syms[d->nr].size = rec.u.sym.size;
			d->syms[d->nr++].name = xstrdup(rec.u.sym.name);
			break;
		}
		case PPF_REC_MMAP: {
			struct map *m;

			GROW(maps, nr_maps);
			m = &maps[nr_maps++];
			m->pid = rec.u.mmap.pid;
			m->addr = rec.u.mmap.addr;
			m->len = rec.u.mmap.len;
			m->pgoff = rec.u.mmap.pgoff;
			m->path = xstrdup(rec.u.mmap.path);
			m->bid_sz = rec.u.mmap.build_id_sz <= 64 ? rec.u.mmap.build_id_sz : 0;
			memcpy(m->bid, rec.u.mmap.build_id, m->bid_sz);
			nr_mmap++;
			break;
		}
		case PPF_REC_COMM:
			nr_comm++;
			break;
		case PPF_REC_TIME_SYNC:
			nr_sync++;
			break;
		case PPF_REC_KV:
			if (!strcmp(cmd, "kv") && !strcmp(rec.u.kv.key, want_key)) {
				free(found);
				found = g_found = xstrdup(rec.u.kv.value);
			}
			break;
		case PPF_REC_STAT:
			if (!strcmp(cmd, "stat") && !strcmp(rec.u.stat.key, want_key)) {
				char v[32];

				snprintf(v, sizeof(v), "%llu",
					 (unsigned long long)rec.u.stat.value);
				free(found);
				found = g_found = xstrdup(v);
			}
			break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "capcheck: %s: %s\n", file, ppf_reader_errmsg(r));
		ppf_reader_close(r);
		return 1;
	}
	const struct ppf_read_stats *st = ppf_reader_stats(r);

	if (!strcmp(cmd, "summary")) {
		printf("records=%llu\nsamples=%llu\nlost=%llu\nlate=%llu\norder=%s\n",
		       (unsigned long long)nr_records, (unsigned long long)nr_samples,
		       (unsigned long long)nr_lost, (unsigned long long)nr_late,
		       bad_order ? "bad" : "ok");
		printf("bad_order=%llu\nsegments=%llu\ncorrupt=%llu\ntruncated=%d\n",
		       (unsigned long long)bad_order, (unsigned long long)st->nr_segments,
		       (unsigned long long)st->nr_corrupt, st->truncated ? 1 : 0);
		printf("first_ns=%llu\nlast_ns=%llu\nmmaps=%llu\ncomms=%llu\ndsos=%llu\nksyms=%zu\n"
		       "time_syncs=%llu\n",
		       (unsigned long long)first_t, (unsigned long long)last_t,
		       (unsigned long long)nr_mmap, (unsigned long long)nr_comm,
		       (unsigned long long)nr_dso, nr_ksyms, (unsigned long long)nr_sync);
		printf("cpus=");
		for (int c = 0, first = 1; c < 64; c++) {
			if (cpu_mask & (1ull << c)) {
				printf("%s%d", first ? "" : ",", c);
				first = 0;
			}
		}
		printf("\n");
		for (uint64_t i = 0; i < nr_ids; i++)
			if (names[i])
				printf("events.%s=%llu\n", names[i], (unsigned long long)counts[i]);
	} else if (!strcmp(cmd, "count") || !strcmp(cmd, "pcount")) {
		printf("%llu\n", (unsigned long long)match);
	} else if (!strcmp(cmd, "kframes")) {
		printf("frames=%llu unknown=%llu\n", (unsigned long long)nr_kframes,
		       (unsigned long long)nr_kunknown);
	} else if (!strcmp(cmd, "stacks")) {
		for (size_t i = 0; i < nr_folds; i++)
			printf("%s %llu\n", folds[i].stack, (unsigned long long)folds[i].count);
	} else if (found) {
		printf("%s\n", found);
	} else {
		ppf_reader_close(r);
		return 3;
	}
	ppf_reader_close(r);
	return 0;
}
