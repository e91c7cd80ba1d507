/* SPDX-License-Identifier: MIT */
/*
 * misc.c - the kernel's side-band records: ksymbol, bpf_event, cgroup, text_poke.
 *
 * perf-prof's misc, one line per record as it comes:
 *   misc:ksymbol: bpf reg ffffffffc0a01234/312 bpf_prog_6deef7357e7b4530_sd_fw_egress
 *   misc:bpf_event: prog load id 42 tag 6deef7357e7b4530
 *   misc:cgroup: id 1234 /system.slice/foo.service
 *   misc:text_poke: ffffffff81234567 0f 1f 44 00 00 => e8 11 22 33 44  func+0x17
 * after the wall-clock time, the thread that caused it (comm and tid, when
 * the capture has them), the CPU and the capture time.  pp-record keeps
 * them raw (PPF_REC_SIDEBAND) when the plan asks for side band.  --format json prints one object per
 * record.  The record layouts are the perf ABI (uapi linux/perf_event.h).
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/buf.h"

/* PERF_RECORD_* numbers of the side-band records shown */
#define MISC_KSYMBOL 17
#define MISC_BPF_EVENT 18
#define MISC_CGROUP 19
#define MISC_TEXT_POKE 20

struct misc_priv {
	struct pp_buf line;
	uint64_t nr[4];			/* records seen, by type - MISC_KSYMBOL */
};

static int misc_init(struct pp_az *az)
{
	(void)az;
	return 0;
}

static void misc_event(struct pp_az *az, const struct pp_event *ev)
{
	(void)az;
	(void)ev;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t get_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* Text and JSON of one record; false for a record misc does not show or a short one. */
static bool describe(struct pp_az *az, const struct pp_sideband_ev *sb, struct pp_buf *txt,
		     struct pp_buf *js)
{
	const uint8_t *d = sb->data, *end = sb->data + sb->size;
	char str[4096];

	switch (sb->type) {
	case MISC_KSYMBOL: {
		if (sb->size < 16)
			return false;
		uint64_t addr = get_u64(d);
		uint32_t len = get_u32(d + 8);
		uint16_t type = get_u16(d + 12), flags = get_u16(d + 14);
		const char *t = type == 1 ? "bpf" : type == 2 ? "kprobe/ftrace" : "";
		const char *reg = flags & 1 ? "unreg" : "reg";

		pp_str_copy(str, sizeof(str), (const char *)d + 16, (const char *)end);
		pp_buf_addf(txt, "misc:ksymbol: %s %s %016llx/%u %s", t, reg,
			    (unsigned long long)addr, len, str);
		pp_buf_addf(js, "\"type\":\"ksymbol\",\"ksym_type\":\"%s\",\"%s\":true,"
			    "\"addr\":\"0x%llx\",\"len\":%u,\"name\":", t, reg,
			    (unsigned long long)addr, len);
		pp_buf_add_json_str(js, str);
		return true;
	}
	case MISC_BPF_EVENT: {
		if (sb->size < 16)
			return false;
		uint16_t type = get_u16(d);
		uint32_t id = get_u32(d + 4);
		const char *t = type == 1 ? "prog load" : type == 2 ? "prog unload" : "unknown";
		char tag[17];

		for (int i = 0; i < 8; i++)
			snprintf(tag + 2 * i, 3, "%02x", d[8 + i]);
		pp_buf_addf(txt, "misc:bpf_event: %s id %u tag %s", t, id, tag);
		pp_buf_addf(js, "\"type\":\"bpf_event\",\"event\":\"%s\",\"id\":%u,"
			    "\"tag\":\"%s\"", t, id, tag);
		return true;
	}
	case MISC_CGROUP: {
		if (sb->size < 8)
			return false;
		uint64_t id = get_u64(d);

		pp_str_copy(str, sizeof(str), (const char *)d + 8, (const char *)end);
		pp_buf_addf(txt, "misc:cgroup: id %llu %s", (unsigned long long)id, str);
		pp_buf_addf(js, "\"type\":\"cgroup\",\"id\":%llu,\"path\":",
			    (unsigned long long)id);
		pp_buf_add_json_str(js, str);
		return true;
	}
	case MISC_TEXT_POKE: {
		if (sb->size < 12)
			return false;
		uint64_t addr = get_u64(d), off = 0;
		uint16_t old_len = get_u16(d + 8), new_len = get_u16(d + 10);
		const char *fn;

		if ((size_t)12 + old_len + new_len > sb->size)
			return false;
		pp_buf_addf(txt, "misc:text_poke: %016llx", (unsigned long long)addr);
		pp_buf_addf(js, "\"type\":\"text_poke\",\"addr\":\"0x%llx\",\"old\":\"",
			    (unsigned long long)addr);
		for (unsigned i = 0; i < old_len; i++) {
			pp_buf_addf(txt, " %02x", d[12 + i]);
			pp_buf_addf(js, "%02x", d[12 + i]);
		}
		pp_buf_adds(txt, " =>");
		pp_buf_adds(js, "\",\"new\":\"");
		for (unsigned i = 0; i < new_len; i++) {
			pp_buf_addf(txt, " %02x", d[12 + old_len + i]);
			pp_buf_addf(js, "%02x", d[12 + old_len + i]);
		}
		pp_buf_adds(js, "\"");
		fn = ana_ksym(az->s, addr, &off);
		pp_buf_addf(txt, "  %s+0x%llx", fn ? fn : "[unknown]", (unsigned long long)off);
		if (fn) {
			pp_buf_adds(js, ",\"symbol\":");
			pp_buf_add_json_str(js, fn);
			pp_buf_addf(js, ",\"offset\":%llu", (unsigned long long)off);
		}
		return true;
	}
	default:
		return false;
	}
}

static void misc_sideband(struct pp_az *az, const struct pp_sideband_ev *sb)
{
	struct misc_priv *p = az->priv;
	struct pp_buf txt = PP_BUF_INIT, js = PP_BUF_INIT;
	char when[64], ts[32];

	if (az->nr_cpus) {
		bool hit = false;

		for (size_t i = 0; i < az->nr_cpus && !hit; i++)
			hit = (uint32_t)az->cpus[i] == sb->cpu;
		if (!hit)
			return;
	}
	if (describe(az, sb, &txt, &js)) {
		p->nr[sb->type - MISC_KSYMBOL]++;
		pp_buf_reset(&p->line);
		bool task = sb->tid != UINT32_MAX;
		const char *comm = task ? ana_comm(az->s, sb->tid) : NULL;

		if (az->out.format == ANA_FMT_JSON) {
			ana_json_head(az->s, sb->time_ns, sb->cpu, sb->pid, sb->tid,
				      task ? ANA_JSON_TASK | ANA_JSON_COMM : 0, &p->line);
			pp_buf_addf(&p->line, ",%s}\n", pp_buf_str(&js));
		} else {
			pp_buf_addf(&p->line, "%s ", ana_time_str(az->s, sb->time_ns, when, sizeof(when)));
			if (task)
				pp_buf_addf(&p->line, "%16s %6u ", comm, sb->tid);
			pp_buf_addf(&p->line, "[%03u] %s: %s\n", sb->cpu,
				    ana_ts_str(sb->time_ns, ts, sizeof(ts)), pp_buf_str(&txt));
		}
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	}
	pp_buf_release(&txt);
	pp_buf_release(&js);
}

static int misc_finish(struct pp_az *az)
{
	struct misc_priv *p = az->priv;

	if (az->out.format == ANA_FMT_TEXT && az->opt.verbose)
		fprintf(az->out.fp,
			"misc: ksymbol %llu bpf_event %llu cgroup %llu text_poke %llu\n",
			(unsigned long long)p->nr[0], (unsigned long long)p->nr[1],
			(unsigned long long)p->nr[2], (unsigned long long)p->nr[3]);
	return 0;
}

static void misc_release(struct pp_az *az)
{
	struct misc_priv *p = az->priv;

	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_misc_ops = {
	.summary = "side-band records: BPF and ftrace symbols, BPF programs, cgroups, text pokes",
	.usage = "pp-analyze FILE misc [-C CPUS] [--format json]",
	.examples = "  pp-record --for misc -a --duration 60\n"
		    "  pp-analyze pp.capture misc\n"
		    "  pp misc                                  # live; Ctrl-C prints what was seen\n",
	.priv_size = sizeof(struct misc_priv),
	.flags = PP_AZ_NO_EVENTS,
	.init = misc_init,
	.event = misc_event,
	.sideband = misc_sideband,
	.finish = misc_finish,
	.release = misc_release,
};
