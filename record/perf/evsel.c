/* SPDX-License-Identifier: MIT */
/*
 * evsel.c - from -e selectors to perf_event_attr.
 *
 * Kinds: tracepoints (globs resolved against tracefs), software events,
 * hardware events - perf's generic names, its hardware-cache names
 * (dTLB-load-misses), raw rNNNN and Intel's PEBS memory events mem-loads and
 * mem-stores; refused in one line where there is no PMU - breakpoints
 * (mem:ADDR|SYMBOL[/LEN][:rwx]) and dynamic probes (created in uprobe.c and
 * then opened as tracepoints).  Unknown names get the closest known names as
 * suggestions.  mem: breakpoints are split off before the shared selector
 * parser sees the list, since their '/' and ':' mean something else.
 * perf-prof's push=/pull=/vm= (streams between live instances) are refused.
 * Not here: opening fds (evopen.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/selector.h"
#include "common/units.h"
#include "format/format.h"
#include "record/err.h"
#include "record/perf/counters.h"
#include "record/perf/filter.h"
#include "record/perf/regs.h"
#include "record/plans.h"
#include "record/session.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool sampling;			/* a clock or a counter: -F applies */
};

static const struct named_event sw_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, false },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false },	/* side band only */
};

static const struct named_event hw_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, true },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, true },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  true },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  true },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, true },
};

/*
 * perf's hardware-cache events, CACHE-OP[-misses]: dTLB-loads counts the
 * accesses, dTLB-load-misses the misses (config = cache | op << 8 | result << 16).
 */
static const struct {
	const char *name;
	unsigned id;
} hw_caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D },  { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },	   { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },	   { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

static const struct {
	const char *access, *miss;
	unsigned id;
} hw_cache_ops[] = {
	{ "loads", "load-misses", PERF_COUNT_HW_CACHE_OP_READ },
	{ "stores", "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetches", "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

/*
 * Intel's PEBS memory events, perf's cpu/mem-loads/ and cpu/mem-stores/:
 * precise samples with the data address, the latency (WEIGHT), where the data
 * came from (DATA_SRC) and its physical address (ldlat-loads, ldlat-stores).
 * mem-loads takes the load-latency threshold in cycles as "mem-loads/--ldlat N/"
 * (config1; default 3, the smallest the hardware takes).
 */
#define REC_MEM_SAMPLE (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | \
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR)
#define REC_LDLAT_DEFAULT 3

static const struct named_event mem_events[] = {
	{ "mem-loads", PERF_TYPE_RAW, 0x1cd, true },	/* MEM_TRANS_RETIRED.LOAD_LATENCY */
	{ "mem-stores", PERF_TYPE_RAW, 0x82d0, true },	/* MEM_INST_RETIRED.ALL_STORES */
};

bool rec_have_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

/* Whether this is an Intel CPU (/proc/cpuinfo's vendor_id): PEBS memory events are Intel's. */
static bool cpu_is_intel(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	bool intel = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "vendor_id", 9)) {
			intel = strstr(line, "GenuineIntel") != NULL;
			break;
		}
	fclose(f);
	return intel;
}

void rec_evsel_release(struct rec_evsel *e)
{
	free(e->name);
	free(e->selector);
	free(e->filter);
	free(e->format);
	memset(e, 0, sizeof(*e));
}

static struct rec_evsel *evsel_new(struct rec_session *s, uint32_t kind, const char *name,
				   const char *selector)
{
	struct rec_evsel *e;

	s->evsels = pp_xrealloc(s->evsels, (s->nr_evsels + 1) * sizeof(*s->evsels));
	e = &s->evsels[s->nr_evsels++];
	memset(e, 0, sizeof(*e));
	e->id = (uint32_t)s->nr_evsels;
	e->kind = kind;
	e->name = pp_xstrdup(name);
	e->selector = pp_xstrdup(selector);
	e->attr.size = sizeof(e->attr);
	e->attr.sample_period = 1;
	return e;
}

/* --- suggestions -------------------------------------------------------- */

/* Levenshtein distance, capped: returns cap + 1 when larger. */
static size_t edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b), row[256];

	if (lb >= PP_ARRAY_SIZE(row) || (la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0], best;

		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t v = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

struct suggest {
	const char *want;		/* "sys:name" or "name" */
	size_t cap;
	char best[3][160];
	size_t dist[3];
	size_t nr;
};

static void suggest_add(struct suggest *sg, const char *cand)
{
	size_t d = edit_distance(sg->want, cand, sg->cap);

	/* a candidate containing what was typed counts as close */
	if (d > sg->cap && strlen(sg->want) >= 4 && strstr(cand, sg->want))
		d = sg->cap;
	if (d > sg->cap)
		return;
	for (size_t i = 0; i < sg->nr; i++)
		if (!strcmp(sg->best[i], cand))
			return;
	size_t pos = sg->nr < 3 ? sg->nr : 3;

	while (pos > 0 && sg->dist[pos - 1] > d)
		pos--;
	if (pos >= 3)
		return;
	for (size_t i = (sg->nr < 3 ? sg->nr : 2); i > pos; i--) {
		memcpy(sg->best[i], sg->best[i - 1], sizeof(sg->best[i]));
		sg->dist[i] = sg->dist[i - 1];
	}
	snprintf(sg->best[pos], sizeof(sg->best[pos]), "%s", cand);
	sg->dist[pos] = d;
	if (sg->nr < 3)
		sg->nr++;
}

static int suggest_tp(const char *sys, const char *name, void *arg)
{
	char full[160];

	snprintf(full, sizeof(full), "%s:%s", sys, name);
	suggest_add(arg, full);
	return 0;
}

static int unknown_event(struct rec_session *s, const char *what, bool tracepoint, char *msg, size_t msg_sz)
{
	struct suggest sg = { .want = what };
	struct pp_buf b = PP_BUF_INIT;

	sg.cap = strlen(what) / 4 + 1;
	if (sg.cap > 4)
		sg.cap = 4;
	if (tracepoint && s->tfs.root) {
		int rc = rec_tracefs_for_each_event(&s->tfs, suggest_tp, &sg);

		(void)rc;
	} else {
		for (size_t i = 0; i < PP_ARRAY_SIZE(sw_events); i++)
			suggest_add(&sg, sw_events[i].name);
		for (size_t i = 0; i < PP_ARRAY_SIZE(hw_events); i++)
			suggest_add(&sg, hw_events[i].name);
		for (size_t i = 0; i < PP_ARRAY_SIZE(mem_events); i++)
			suggest_add(&sg, mem_events[i].name);
		for (size_t c = 0; c < PP_ARRAY_SIZE(hw_caches); c++)
			for (size_t o = 0; o < PP_ARRAY_SIZE(hw_cache_ops); o++) {
				char name[64];

				snprintf(name, sizeof(name), "%s-%s", hw_caches[c].name,
					 hw_cache_ops[o].access);
				suggest_add(&sg, name);
				snprintf(name, sizeof(name), "%s-%s", hw_caches[c].name,
					 hw_cache_ops[o].miss);
				suggest_add(&sg, name);
			}
	}
	pp_buf_addf(&b, "event '%s' does not exist", what);
	if (sg.nr) {
		pp_buf_adds(&b, "; did you mean ");
		for (size_t i = 0; i < sg.nr; i++)
			pp_buf_addf(&b, "%s%s", i ? (i + 1 == sg.nr ? " or " : ", ") : "",
				    sg.best[i]);
		pp_buf_adds(&b, "?");
	} else {
		pp_buf_adds(&b, " (see 'pp list')");
	}
	rec_errf(msg, msg_sz, PP_EUNKNOWN_EVENT, "%s", pp_buf_str(&b));
	pp_buf_release(&b);
	return PP_EUNKNOWN_EVENT;
}

/* --- tracepoints and probes -------------------------------------------- */

static int check_filter(struct rec_session *s, struct rec_evsel *e, const char *filter, char *msg, size_t msg_sz)
{
	char m[768];
	int rc;

	if (!filter || !*filter)
		return 0;
	rc = rec_filter_check(filter, e->format, m, sizeof(m));
	if (rc)
		return rec_errf(msg, msg_sz, rc, "%s: %s", e->name, m);
	e->filter = pp_xstrdup(filter);
	return 0;
}

static int add_tracepoint(struct rec_session *s, const struct pp_selector *sel, const char *sys,
			  const char *name, uint32_t kind, const char *cap_name, char *msg, size_t msg_sz)
{
	char rel[512], full[300];
	struct rec_evsel *e;
	uint32_t id;
	int rc;

	rc = rec_tracefs_event_id(&s->tfs, sys, name, &id);
	if (rc) {
		snprintf(full, sizeof(full), "%s:%s", sys, name);
		if (rc == -ENOENT)
			return unknown_event(s, full, true, msg, msg_sz);
		return rec_errf(msg, msg_sz, rc, "cannot read the id of %s: %s", full,
					pp_strerror(rc));
	}
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	e = evsel_new(s, kind, cap_name ? cap_name : full, sel->text);
	e->tp_id = id;
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = id;
	e->attr.sample_type = PERF_SAMPLE_RAW;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	rc = rec_tracefs_read_dup(&s->tfs, rel, &e->format);
	if (rc)
		return rec_errf(msg, msg_sz, rc, "cannot read %s/%s: %s", s->tfs.root, rel,
					pp_strerror(rc));
	if (sel->stack)
		e->flags |= PPF_EVF_STACK;
	if (sel->max_stack)
		e->attr.sample_max_stack = (uint16_t)sel->max_stack;
	return check_filter(s, e, sel->filter, msg, msg_sz);
}

struct glob_match {
	const struct pp_selector *sel;
	char **names;			/* "sys\0name" pairs as "sys:name" */
	size_t nr;
};

static int glob_collect(const char *sys, const char *name, void *arg)
{
	struct glob_match *g = arg;

	if (!pp_glob_match(g->sel->sys, sys) || !pp_glob_match(g->sel->name, name))
		return 0;
	g->names = pp_xrealloc(g->names, (g->nr + 1) * sizeof(*g->names));
	g->names[g->nr++] = pp_xasprintf("%s:%s", sys, name);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_tracepoint_sel(struct rec_session *s, const struct pp_selector *sel, char *msg, size_t msg_sz)
{
	struct glob_match g = { .sel = sel };
	int rc;

	rc = rec_tracefs_need(&s->tfs, msg, msg_sz);
	if (rc)
		return rc;
	if (!pp_selector_is_glob(sel))
		return add_tracepoint(s, sel, sel->sys, sel->name, PPF_EV_TRACEPOINT, NULL, msg, msg_sz);
	rc = rec_tracefs_for_each_event(&s->tfs, glob_collect, &g);
	if (rc < 0)
		return rec_errf(msg, msg_sz, rc, "cannot list tracepoints in %s: %s", s->tfs.root,
					pp_strerror(rc));
	if (!g.nr) {
		char what[256];

		snprintf(what, sizeof(what), "%s:%s", sel->sys, sel->name);
		rec_errf(msg, msg_sz, PP_EUNKNOWN_EVENT, "no tracepoint matches '%s' (see 'pp list')",
				 what);
		return PP_EUNKNOWN_EVENT;
	}
	qsort(g.names, g.nr, sizeof(*g.names), cmp_str);
	for (size_t i = 0; i < g.nr && !rc; i++) {
		char *c = strchr(g.names[i], ':');

		*c = '\0';
		rc = add_tracepoint(s, sel, g.names[i], c + 1, PPF_EV_TRACEPOINT, NULL, msg, msg_sz);
	}
	for (size_t i = 0; i < g.nr; i++)
		free(g.names[i]);
	free(g.names);
	return rc;
}

static int add_probe(struct rec_session *s, const struct pp_selector *sel, char *msg, size_t msg_sz)
{
	bool kprobe = sel->kind == PP_SEL_KPROBE || sel->kind == PP_SEL_KRETPROBE;
	bool ret = sel->kind == PP_SEL_KRETPROBE || sel->kind == PP_SEL_URETPROBE;
	char m[900], cap[300];
	size_t idx;
	int rc;

	rc = rec_tracefs_need(&s->tfs, msg, msg_sz);
	if (rc)
		return rc;
	if (!s->stale_probes_checked) {
		int n = rec_probes_clean_stale(&s->tfs);

		if (n > 0)
			pp_info("removed %d probe%s left by a pp-record that no longer runs", n,
				n > 1 ? "s" : "");
		s->stale_probes_checked = true;
	}
	rc = rec_probe_create(&s->tfs, &s->probes, sel, &idx, m, sizeof(m));
	if (rc)
		return rec_errf(msg, msg_sz, rc, "%s", m);
	snprintf(cap, sizeof(cap), "%s:%s", kprobe ? "kprobes" : "uprobes",
		 s->probes.v[idx].event);
	rc = add_tracepoint(s, sel, s->probes.v[idx].group, s->probes.v[idx].event,
			    kprobe ? PPF_EV_KPROBE : PPF_EV_UPROBE, cap, msg, msg_sz);
	if (!rc && ret)
		s->evsels[s->nr_evsels - 1].flags |= PPF_EVF_RETPROBE;
	return rc;
}

/* --- software, hardware ------------------------------------------------- */

static const struct named_event *find_named(const struct named_event *t, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* A hardware-cache name (dTLB-load-misses) as its config.  Return: false if it is none. */
static bool hw_cache_find(const char *name, uint64_t *config)
{
	for (size_t c = 0; c < PP_ARRAY_SIZE(hw_caches); c++) {
		size_t n = strlen(hw_caches[c].name);

		if (strncmp(name, hw_caches[c].name, n) || name[n] != '-')
			continue;
		for (size_t o = 0; o < PP_ARRAY_SIZE(hw_cache_ops); o++) {
			uint64_t base = hw_caches[c].id | (uint64_t)hw_cache_ops[o].id << 8;

			if (!strcmp(name + n + 1, hw_cache_ops[o].access)) {
				*config = base | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16;
				return true;
			}
			if (!strcmp(name + n + 1, hw_cache_ops[o].miss)) {
				*config = base | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
				return true;
			}
		}
	}
	return false;
}

/* perf's raw event rNNNN: NNNN is the config in hex, given to the CPU's PMU as is. */
static bool raw_find(const char *name, uint64_t *config)
{
	size_t n = strlen(name);

	if (name[0] != 'r' || n < 2 || n > 17 ||
	    strspn(name + 1, "0123456789abcdefABCDEF") != n - 1)
		return false;
	*config = strtoull(name + 1, NULL, 16);
	return true;
}

/* mem-loads' option string "--ldlat N" (or --ldlat=N): the latency threshold in cycles. */
static int ldlat_option(struct rec_session *s, const struct pp_selector *sel, uint64_t *ldlat, char *msg, size_t msg_sz)
{
	const char *o = sel->options;
	char *end;
	unsigned long long v;

	if (strncmp(o, "--ldlat", 7) || (o[7] != ' ' && o[7] != '='))
		return rec_errf(msg, msg_sz, PP_ESYNTAX, "%s: '%s': mem-loads takes --ldlat CYCLES only",
					sel->text, o);
	o += 8;
	v = strtoull(o, &end, 0);
	while (*end == ' ')
		end++;
	if (end == o || *end || !v || v > 0xffff)
		return rec_errf(msg, msg_sz, PP_ESYNTAX,
					"%s: --ldlat '%s': expected a latency of 1 to 65535 cycles",
					sel->text, o);
	*ldlat = v;
	return 0;
}

/*
 * The named hardware events that are not in a table of names: hardware
 * caches and raw events.  @ne is filled in.  Return: true when @name is one.
 */
static bool hw_other_find(const char *name, struct named_event *ne)
{
	uint64_t config;

	if (hw_cache_find(name, &config)) {
		*ne = (struct named_event){ name, PERF_TYPE_HW_CACHE, config, true };
		return true;
	}
	if (raw_find(name, &config)) {
		*ne = (struct named_event){ name, PERF_TYPE_RAW, config, true };
		return true;
	}
	return false;
}

/*
 * An analyzer named as an event: the events of its plan, built from the options
 * between the slashes, with the plan's rate and stacks on them alone (a source
 * at -F 5000 beside a page-faults source with a period).  The source runs on
 * the recording's targets.
 */
static int add_source(struct rec_session *s, const struct pp_selector *sel, char *msg, size_t msg_sz)
{
	const struct pp_plan_ops *ops = rec_plan_find(sel->name);
	struct pp_plan p = { 0 };
	char **argv = NULL, err[512] = "";
	int argc = 0, rc;
	size_t first = s->nr_evsels;

	if (pp_argv_split(sel->options ? sel->options : "", &argv, &argc))
		return rec_errf(msg, msg_sz, PP_ESYNTAX, "'%s': unbalanced quotes", sel->text);
	const char **args = pp_xcalloc((size_t)argc + 1, sizeof(*args));

	memcpy(args, argv, (size_t)argc * sizeof(*args));
	rc = pp_plan_build(sel->name, ops, argc, args, &p, err, sizeof(err));
	free(args);
	pp_argv_free(argv);
	if (rc) {
		pp_plan_release(&p);
		return rec_errf(msg, msg_sz, rc == PP_OPT_HELP ? PP_EUSAGE : rc, "'%s': %s", sel->text,
					rc == PP_OPT_HELP ? "help is not an event source" : err);
	}
	for (size_t i = 0; !rc && i < p.nr_events; i++)
		rc = rec_evsels_add(s, p.events[i], msg, msg_sz);
	for (size_t i = 0; !rc && i < p.nr_counters; i++)
		rc = rec_counters_add(s, p.counters[i], msg, msg_sz);
	for (size_t i = first; !rc && i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];

		e->own_period = p.period;
		e->own_freq = p.period ? 0 : p.freq;
		if (p.callchain)
			e->flags |= PPF_EVF_STACK;
	}
	if (!rc) {
		s->opts.sideband |= p.sideband;
		s->opts.regs |= p.regs;
		if (p.mmap_pages > 0 && p.mmap_pages > s->opts.mmap_pages)
			s->opts.mmap_pages = p.mmap_pages;
	}
	pp_plan_release(&p);
	return rc;
}

static int add_plain(struct rec_session *s, const struct pp_selector *sel, char *msg, size_t msg_sz)
{
	const struct named_event *ne, *mem = NULL;
	struct named_event other;
	uint64_t ldlat = REC_LDLAT_DEFAULT;
	struct rec_evsel *e;
	bool hw = false;
	int rc;

	ne = find_named(sw_events, PP_ARRAY_SIZE(sw_events), sel->name);
	/*
	 * perf-prof's analyzer as an event source ('profile/-F 99/', 'task-state',
	 * 'page-faults/-N 10/'): what that analyzer would record, as --for records it
	 */
	if (rec_plan_find(sel->name) && (sel->options || !ne))
		return add_source(s, sel, msg, msg_sz);
	if (!ne) {
		ne = find_named(hw_events, PP_ARRAY_SIZE(hw_events), sel->name);
		if (!ne)
			ne = mem = find_named(mem_events, PP_ARRAY_SIZE(mem_events), sel->name);
		if (!ne && hw_other_find(sel->name, &other))
			ne = &other;
		hw = ne != NULL;
	}
	if (!ne)
		return unknown_event(s, sel->name, false, msg, msg_sz);
	if (hw && !rec_have_pmu())
		return rec_errf(msg, msg_sz, PP_ENO_PMU,
					"hardware event '%s' needs a hardware PMU and this machine has none (bare metal or a VM with a virtual PMU has one; to sample without, try cpu-clock)",
					sel->name);
	if (mem && !cpu_is_intel())
		return rec_errf(msg, msg_sz, PP_ENOTSUP,
					"%s: PEBS memory sampling (data source, latency) exists on Intel CPUs only",
					sel->name);
	if (sel->options && mem == &mem_events[0]) {
		rc = ldlat_option(s, sel, &ldlat, msg, msg_sz);
		if (rc)
			return rc;
	} else if (sel->options) {
		return rec_errf(msg, msg_sz, PP_ESYNTAX, "%s: '%s' is not a filter or attribute",
					sel->text, sel->options);
	}
	e = evsel_new(s, hw ? PPF_EV_HARDWARE : PPF_EV_SOFTWARE, ne->name, sel->text);
	e->attr.type = ne->type;
	e->attr.config = ne->config;
	e->attr.sample_type = PERF_SAMPLE_IP;
	if (!hw && (ne->config == PERF_COUNT_SW_PAGE_FAULTS ||
		    ne->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		    ne->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ))
		e->attr.sample_type |= PERF_SAMPLE_ADDR;
	if (mem) {
		e->attr.sample_type = REC_MEM_SAMPLE;
		e->attr.precise_ip = 3;		/* PEBS: the sample is the access itself */
		if (mem == &mem_events[0])
			e->attr.config1 = ldlat;	/* MSR_PEBS_LD_LAT_THRESHOLD */
	}
	if (ne->sampling) {
		e->attr.freq = 1;	/* rec_evsels_finish() sets the rate */
		e->attr.sample_freq = REC_DEFAULT_FREQ;
	}
	if (sel->stack)
		e->flags |= PPF_EVF_STACK;
	if (sel->max_stack)
		e->attr.sample_max_stack = (uint16_t)sel->max_stack;
	if (sel->filter)
		e->filter = pp_xstrdup(sel->filter);	/* only the analyzer can apply it */
	return 0;
}

/* --- breakpoints: mem:ADDR|SYMBOL[/LEN][:rwx] --------------------------- */

static int kallsyms_lookup(const char *name, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int rc = PP_ENOT_FOUND;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, sym[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || strcmp(sym, name))
			continue;
		*addr = a;
		rc = a ? 0 : -EPERM;
		break;
	}
	fclose(f);
	return rc;
}

static int add_breakpoint(struct rec_session *s, const char *text, char *msg, size_t msg_sz)
{
	const char *spec = text + 4, *end;
	char where[256], *slash, *colon;
	uint64_t addr, len = 0;
	unsigned type = 0;
	struct rec_evsel *e;
	int rc;

	end = spec + strlen(spec);
	if (end - spec >= (long)sizeof(where) || spec == end)
		return rec_errf(msg, msg_sz, PP_ESYNTAX,
					"bad breakpoint '%s': expected mem:ADDR[/LEN][:rwx]", text);
	memcpy(where, spec, (size_t)(end - spec) + 1);
	colon = strchr(where, ':');
	if (colon) {
		*colon = '\0';
		for (const char *t = colon + 1; *t; t++) {
			unsigned bit = *t == 'r' ? HW_BREAKPOINT_R : *t == 'w' ? HW_BREAKPOINT_W
				     : *t == 'x' ? HW_BREAKPOINT_X : 0;
			if (!bit || (type & bit))
				return rec_errf(msg, msg_sz, PP_ESYNTAX,
							"bad breakpoint '%s': access must be r, w, rw or x",
							text);
			type |= bit;
		}
		if ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X)
			return rec_errf(msg, msg_sz, PP_ESYNTAX,
						"bad breakpoint '%s': x cannot be combined with r or w",
						text);
	}
	if (!type)
		type = HW_BREAKPOINT_RW;
	slash = strchr(where, '/');
	if (slash) {
		*slash = '\0';
		if (pp_parse_u64(slash + 1, &len) || (len != 1 && len != 2 && len != 4 && len != 8))
			return rec_errf(msg, msg_sz, PP_ESYNTAX,
						"bad breakpoint '%s': length must be 1, 2, 4 or 8", text);
	}
	if (!len)
		len = type == HW_BREAKPOINT_X ? sizeof(long) : 4;
	if (isdigit((unsigned char)where[0])) {
		if (pp_parse_u64(where, &addr))
			return rec_errf(msg, msg_sz, PP_ESYNTAX, "bad breakpoint address '%s'",
						where);
	} else {
		rc = kallsyms_lookup(where, &addr);
		if (rc == -EPERM)
			return rec_errf(msg, msg_sz, rc, "breakpoint '%s': kernel addresses are hidden (kptr_restrict)",
						text);
		if (rc)
			return rec_errf(msg, msg_sz, PP_ENOT_FOUND,
						"breakpoint '%s': no kernel symbol '%s'", text, where);
	}
	e = evsel_new(s, PPF_EV_BREAKPOINT, text, text);
	e->attr.type = PERF_TYPE_BREAKPOINT;
	e->attr.bp_type = type;
	e->attr.bp_addr = addr;
	e->attr.bp_len = len;
	e->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	rec_regs_attr(&e->attr);
	return 0;
}

/* --- the -e argument ---------------------------------------------------- */

/* Split on commas outside quotes, (), {} and []. */
static char **split_list(const char *text, size_t *nr)
{
	char **v = NULL;
	const char *p = text, *start = text;
	int depth = 0;
	char quote = 0;

	*nr = 0;
	for (;; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			else if (!*p)
				break;
			continue;
		}
		if (*p == '"' || *p == '\'')
			quote = *p;
		else if (*p == '(' || *p == '{' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == '}' || *p == ']') && depth > 0)
			depth--;
		if (!*p || (*p == ',' && !depth)) {
			v = pp_xrealloc(v, (*nr + 1) * sizeof(*v));
			v[(*nr)++] = pp_xstrndup(start, (size_t)(p - start));
			if (!*p)
				break;
			start = p + 1;
		}
	}
	return v;
}

static int add_one(struct rec_session *s, const char *text, char *msg, size_t msg_sz)
{
	struct pp_parse_error perr = { .pos = -1 };
	struct pp_selector *sel = NULL;
	size_t nr = 0;
	int rc;

	if (!strncmp(text, "mem:", 4))
		return add_breakpoint(s, text, msg, msg_sz);
	rc = pp_selector_parse(text, &sel, &nr, &perr);
	if (rc) {
		if (perr.pos >= 0)
			return rec_errf(msg, msg_sz, rc, "bad event '%s' at column %d: %s", text,
						perr.pos + 1, perr.msg);
		return rec_errf(msg, msg_sz, rc, "bad event '%s': %s", text, perr.msg);
	}
	for (size_t i = 0; i < nr && !rc; i++) {
		const char *why = pp_selector_unsupported(&sel[i]);

		if (why) {
			rc = rec_errf(msg, msg_sz, PP_ENOTSUP, "%s: %s", sel[i].text, why);
			break;
		}
		switch (sel[i].kind) {
		case PP_SEL_TRACEPOINT:
			rc = add_tracepoint_sel(s, &sel[i], msg, msg_sz);
			break;
		case PP_SEL_KPROBE:
		case PP_SEL_KRETPROBE:
		case PP_SEL_UPROBE:
		case PP_SEL_URETPROBE:
			rc = add_probe(s, &sel[i], msg, msg_sz);
			break;
		case PP_SEL_PLAIN:
			rc = add_plain(s, &sel[i], msg, msg_sz);
			break;
		}
	}
	pp_selector_free_array(sel, nr);
	return rc;
}

int rec_evsels_add(struct rec_session *s, const char *text, char *msg, size_t msg_sz)
{
	size_t nr;
	char **v = split_list(text, &nr);
	int rc = 0;

	for (size_t i = 0; i < nr; i++) {
		if (!rc && !*v[i])
			rc = rec_errf(msg, msg_sz, PP_ESYNTAX, "empty event in '%s'", text);
		if (!rc)
			rc = add_one(s, v[i], msg, msg_sz);
		free(v[i]);
	}
	free(v);
	return rc;
}

/* --- finishing the attrs ------------------------------------------------ */

static void common_attr(const struct rec_session *s, struct perf_event_attr *a)
{
	size_t ring = (size_t)s->opts.mmap_pages * (size_t)sysconf(_SC_PAGESIZE);

	a->size = sizeof(*a);
	a->sample_type |= REC_SAMPLE_ID_ALL;
	a->read_format = PERF_FORMAT_LOST;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring * (size_t)s->opts.watermark / 100);
	if (!a->wakeup_watermark)
		a->wakeup_watermark = 1;
	if (s->tgt.kind == REC_TGT_THREADS || s->tgt.kind == REC_TGT_WORKLOAD)
		a->inherit = 1;
	if (s->tgt.kind == REC_TGT_WORKLOAD)
		a->enable_on_exec = 1;
}

int rec_evsels_finish(struct rec_session *s)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		struct rec_evsel *e = &s->evsels[i];
		struct perf_event_attr *a = &e->attr;

		common_attr(s, a);
		/* the registers at the fault: the user's for a fault in user space */
		if (s->opts.regs && e->kind == PPF_EV_SOFTWARE &&
		    (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		     a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		     a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ))
			rec_regs_attr(a);
		if (s->opts.callgraph)
			e->flags |= PPF_EVF_STACK;
		if (e->flags & PPF_EVF_STACK) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			a->exclude_callchain_user = !s->opts.user_callchain;
			a->exclude_callchain_kernel = !s->opts.kernel_callchain;
			if (s->opts.dwarf_sz)
				rec_regs_user_attr(a, s->opts.dwarf_sz);
		}
		if (e->kind == PPF_EV_SOFTWARE || e->kind == PPF_EV_HARDWARE ||
		    e->kind == PPF_EV_BREAKPOINT) {
			a->exclude_user = s->opts.exclude_user;
			a->exclude_kernel = s->opts.exclude_kernel;
			a->exclude_host = s->opts.exclude_host;
			a->exclude_guest = s->opts.exclude_guest;
		}
		if (e->own_period) {	/* an analyzer source's own rate */
			a->freq = 0;
			a->sample_period = e->own_period;
		} else if (e->own_freq) {
			a->freq = 1;
			a->sample_freq = e->own_freq;
		} else if (a->freq) {
			if (s->opts.period) {
				a->freq = 0;
				a->sample_period = s->opts.period;
			} else if (s->opts.freq) {
				a->sample_freq = s->opts.freq;
			}
		} else if (s->opts.period && e->kind != PPF_EV_TRACEPOINT &&
			   e->kind != PPF_EV_UPROBE && e->kind != PPF_EV_KPROBE) {
			a->sample_period = s->opts.period;
		}
		/*
		 * Every event carries its period, tracepoints too: a tracepoint
		 * with a count (sched_stat_runtime counts nanoseconds) otherwise
		 * makes the kernel emit one sample per unit of the count, up to
		 * the throttle (400 copies of each event at HZ=250).  The
		 * capture stores a period only when it is not 1.
		 */
		rec_counters_attr(s, e);
		a->sample_type |= PERF_SAMPLE_PERIOD;
		e->time_off = (uint32_t)(sizeof(struct perf_event_header) + 8 +
					 ((a->sample_type & PERF_SAMPLE_IP) ? 8 : 0) + 8);
	}
	return 0;
}

void rec_tracking_attr(const struct rec_session *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	common_attr(s, a);
	a->comm = 1;
	a->comm_exec = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->task = 1;
	a->build_id = 1;
	if (s->opts.sideband) {
		a->ksymbol = 1;
		a->bpf_event = 1;
		a->cgroup = 1;
		a->text_poke = 1;
	}
}

int rec_evsels_write_descs(const struct rec_evsel *v, size_t n, struct ppf_writer *w)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		const struct rec_evsel *e = &v[i];
		struct ppf_event_desc d = {
			.id = e->id, .kind = e->kind, .flags = e->flags, .tp_id = e->tp_id,
			.name = e->name, .selector = e->selector,
			.filter = e->filter ? e->filter : "",
			.attr = &e->attr, .attr_sz = sizeof(e->attr),
			.format = e->format ? e->format : "",
		};
		rc = ppf_write_event_desc(w, &d);
	}
	return rc;
}
