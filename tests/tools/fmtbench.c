/* SPDX-License-Identifier: MIT */
/*
 * fmtbench.c - capture writer and reader throughput, for `make bench`.
 *
 * usage: fmtbench [-n EVENTS] [-l LEVEL] [-o DIR] [-r REPEAT] [-D SEGS] [CAPTURE]
 *
 * Without CAPTURE it writes a synthetic scheduler trace (sched_switch-like
 * records: a small set of tasks on 2 CPUs, 64-byte raw payloads, varying
 * deltas); with CAPTURE it re-writes that capture's events (then the
 * writer's time is the re-write's less the time to read CAPTURE alone,
 * measured the same way; recode_s and src_read_s give both).  It measures
 * (1) the writer: encode + compress + checksum + write to a file, and
 * (2) the reader: read + verify + decompress + decode every record, both
 * in MB/s of raw event payload (the segments' uncompressed bytes).  The
 * reader is timed twice: as pp-analyze reads a file (PPF_READ_AHEAD: the
 * next segment decompressed on a second thread; read_s, read_mbs, and its
 * CPU time of both threads read_cpu_s) and on one thread (read1_*); both
 * must hand out the same records.  -D: a side-band digest every SEGS events
 * segments (0: none; the writer's default otherwise).  It
 * also leaves DIR/raw.bin (the concatenated uncompressed segment
 * payloads), so the harness can time the zstd CLI on the very same bytes.
 * Each phase is timed REPEAT times (default 3) and the best time is
 * kept, as the bench harness does for the zstd CLI.  Prints one JSON line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/format.h"
#include "tests/tools/tp-format.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sched:sched_switch as this kernel describes it, so pp-analyze can replay the capture */
static const char sched_switch_format[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	TP_COMMON_FIELDS
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n"
;

static void synth_raw(uint8_t raw[64], unsigned i, uint32_t *pid)
{
	static const char *const comms[] = { "swapper/0", "kworker/0:1", "java", "nginx", "postgres",
					     "bash", "sshd", "ctxsw" };
	unsigned a = (i * 7) % 8, b = (i * 13 + 3) % 8;

	memset(raw, 0, 64);
	raw[0] = 372 & 0xff; raw[1] = 372 >> 8;	/* common_type */
	raw[2] = (uint8_t)(i & 1);			/* common_flags */
	memcpy(raw + 4, &(uint32_t){ 1000 + a }, 4);	/* common_pid */
	strncpy((char *)raw + 8, comms[a], 16);		/* prev_comm */
	memcpy(raw + 24, &(uint32_t){ 1000 + a }, 4);	/* prev_pid */
	memcpy(raw + 28, &(uint32_t){ 120 }, 4);	/* prev_prio */
	memcpy(raw + 32, &(uint64_t){ (i % 3) ? 1 : 0 }, 8);	/* prev_state */
	strncpy((char *)raw + 40, comms[b], 16);	/* next_comm */
	memcpy(raw + 56, &(uint32_t){ 1000 + b }, 4);	/* next_pid */
	memcpy(raw + 60, &(uint32_t){ 120 }, 4);	/* next_prio */
	*pid = 1000 + a;
}

/*
 * Copy every record of @path into @w (up to @max samples), as pp-record would
 * have written them with this writer's options: the writer's encoding can be
 * compared on real captures, byte for byte the same input.
 * Return: the number of samples copied, or -1.
 */
static long recode(const char *path, struct ppf_writer *w, unsigned long max)
{
	struct ppf_reader *r;
	struct ppf_record rec;
	long n = 0;
	int rc;

	if (ppf_reader_open(path, 0, &r)) {
		fprintf(stderr, "%s: %s\n", path, ppf_reader_errmsg(r));
		ppf_reader_close(r);
		return -1;
	}
	while ((unsigned long)n < max && (rc = ppf_reader_next(r, &rec, NULL)) == 0) {
		if (ppf_write_record(w, &rec)) {
			fprintf(stderr, "write: %s\n", ppf_writer_errmsg(w));
			ppf_reader_close(r);
			return -1;
		}
		n += rec.type == PPF_REC_SAMPLE;
	}
	ppf_reader_close(r);
	return n;
}

/*
 * synth_raw() repeats every 24 events (i % 8 picks the tasks, i % 3 the
 * state): those 24 payloads are made before the clock starts, so the timed
 * loop measures the writer, not the generator (zstd is timed on a file it
 * did not have to make either).
 */
static uint8_t raws[24][64];
static uint32_t pids[24];

/* Write the capture; return its wall time in seconds, or -1. */
static double write_capture(const char *path, int level, const char *src, unsigned long *n,
			    long digest)
{
	struct ppf_writer_opts o = { .zstd_level = level, .no_digest = digest == 0,
				     .digest_segs = digest > 0 ? (uint32_t)digest : 0 };
	struct ppf_writer *w;
	uint64_t t = 1000000000ull;
	double t0 = now();

	if (ppf_writer_open(path, &o, &w)) {
		perror(path);
		return -1;
	}
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_TRACEPOINT, .tp_id = 372,
				    .name = "sched:sched_switch", .selector = "sched:sched_switch",
				    .filter = "", .format = sched_switch_format };
	if (!src && (ppf_write_kv(w, "hostname", "fmtbench") || ppf_write_event_desc(w, &d) ||
		     ppf_write_task(w, &(struct ppf_task){ 1000, 1000, 1, "swapper/0", "" })))
		return -1;
	if (src) {
		long c = recode(src, w, *n);
		if (c < 0)
			return -1;
		*n = (unsigned long)c;
	}
	for (unsigned long i = 0; !src && i < *n; i++) {
		struct ppf_sample s = { 0 };
		t += 500 + (i * 2654435761u) % 3000;
		s.pid = pids[i % 24];
		s.time_ns = t;
		s.id = 1;
		s.cpu = (uint32_t)(i & 1);
		s.tid = s.pid;
		s.period = 1;
		s.raw = raws[i % 24];
		s.raw_sz = 64;
		if (ppf_write_sample(w, &s)) {
			fprintf(stderr, "write: %s\n", ppf_writer_errmsg(w));
			return -1;
		}
	}
	if (ppf_writer_close(w)) {
		fprintf(stderr, "close failed\n");
		return -1;
	}
	return now() - t0;
}

/* CPU time (user + system) of the whole process, both threads, in seconds */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Read every record back with reader @flags (0: one thread; PPF_READ_AHEAD: as pp-analyze
 * reads a file); return the wall time in seconds, or -1, and the CPU time in *@cpu.
 */
static double read_capture(const char *path, unsigned flags, unsigned long *got, uint64_t *sum,
			   uint64_t *raw_bytes, uint64_t *comp_bytes, double *cpu)
{
	struct ppf_reader *r;
	struct ppf_record rec;
	double t0 = now(), c0 = cpu_now();

	*got = 0;
	*sum = 0;
	if (ppf_reader_open(path, flags, &r)) {
		fprintf(stderr, "open: %s\n", ppf_reader_errmsg(r));
		ppf_reader_close(r);
		return -1;
	}
	while (ppf_reader_next(r, &rec, NULL) == 0)
		if (rec.type == PPF_REC_SAMPLE) {
			(*got)++;
			*sum += rec.u.sample.raw_sz > 24 ? rec.u.sample.raw[24] : 0;
		}
	double t = now() - t0;
	*cpu = cpu_now() - c0;
	*raw_bytes = ppf_reader_stats(r)->raw_bytes;
	*comp_bytes = ppf_reader_stats(r)->comp_bytes;
	ppf_reader_close(r);
	return t;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;
	int level = 3, repeat = 3, opt;
	long digest = -1;
	const char *dir = "/tmp";
	char path[512], rawpath[512];

	while ((opt = getopt(argc, argv, "n:l:o:r:D:")) != -1) {
		switch (opt) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'l': level = atoi(optarg); break;
		case 'o': dir = optarg; break;
		case 'r': repeat = atoi(optarg); break;
		case 'D': digest = atol(optarg); break;
		default:
			fprintf(stderr, "usage: fmtbench [-n EVENTS] [-l LEVEL] [-o DIR] [-r REPEAT] "
				"[-D SEGS] [CAPTURE]\n");
			return 2;
		}
	}
	const char *src = optind < argc ? argv[optind] : NULL;
	if (!n)
		n = src ? ~0ul : 2000000;
	if (repeat < 1)
		repeat = 1;
	snprintf(path, sizeof(path), "%s/fmtbench.ppcap", dir);
	snprintf(rawpath, sizeof(rawpath), "%s/raw.bin", dir);
	for (unsigned i = 0; i < 24; i++)
		synth_raw(raws[i], i, &pids[i]);

	/* best of @repeat (the harness runs -r 1 in turn with the zstd CLI: bench.py) */
	double tw = 0, tr = 0, tr1 = 0, cr = 0, cr1 = 0;
	unsigned long got = 0, got1 = 0;
	uint64_t sum = 0, sum1 = 0, raw_bytes = 0, comp_bytes = 0;
	for (int k = 0; k < repeat; k++) {
		unsigned long nk = n;
		double w = write_capture(path, level, src, &nk, digest);
		if (w < 0)
			return 1;
		double c, c1;
		double r = read_capture(path, PPF_READ_AHEAD, &got, &sum, &raw_bytes, &comp_bytes, &c);
		double r1 = read_capture(path, 0, &got1, &sum1, &raw_bytes, &comp_bytes, &c1);
		if (r < 0 || r1 < 0)
			return 1;
		if (got1 != got || sum1 != sum) {
			fprintf(stderr, "read-ahead read %lu records (sum %llu), one thread %lu (%llu)\n",
				got, (unsigned long long)sum, got1, (unsigned long long)sum1);
			return 1;
		}
		n = nk;
		tw = k && tw < w ? tw : w;
		if (!k || r < tr)
			tr = r, cr = c;
		if (!k || r1 < tr1)
			tr1 = r1, cr1 = c1;
	}

	/* re-writing a capture: the writer's share is what reading the source alone does not take */
	double tsrc = 0, recode_s = tw;
	for (int k = 0; src && k < repeat; k++) {
		unsigned long g;
		uint64_t sm, rb, cb;
		double c, t = read_capture(src, 0, &g, &sm, &rb, &cb, &c);
		if (t < 0)
			return 1;
		tsrc = k && tsrc < t ? tsrc : t;
	}
	if (src && tw > tsrc)
		tw -= tsrc;

	/* keep the raw segment bytes for the zstd comparison */
	struct ppf_reader *r;
	FILE *rf = fopen(rawpath, "w");
	const struct ppf_segment *seg;
	if (!rf || ppf_reader_open(path, 0, &r))
		return 1;
	while (ppf_reader_next_segment(r, &seg) == 0)
		if (seg->kind == PPF_SEG_EVENTS)
			fwrite(seg->data, 1, seg->usize, rf);
	fclose(rf);
	ppf_reader_close(r);

	printf("{\"events\":%lu,\"read_events\":%lu,\"level\":%d,\"raw_bytes\":%llu,\"comp_bytes\":%llu,"
	       "\"write_s\":%.4f,\"read_s\":%.4f,\"read_cpu_s\":%.4f,\"read1_s\":%.4f,"
	       "\"read1_cpu_s\":%.4f,\"write_mbs\":%.1f,\"read_mbs\":%.1f,\"read1_mbs\":%.1f,"
	       "\"bytes_per_event\":%.3f,\"recode_s\":%.4f,\"src_read_s\":%.4f,\"checksum\":%llu,"
	       "\"capture\":\"%s\",\"raw_file\":\"%s\"}\n",
	       n, got, level, (unsigned long long)raw_bytes, (unsigned long long)comp_bytes, tw, tr,
	       cr, tr1, cr1, (double)raw_bytes / tw / 1e6, (double)raw_bytes / tr / 1e6,
	       (double)raw_bytes / tr1 / 1e6,
	       (double)comp_bytes / (double)n, src ? recode_s : 0.0, tsrc, (unsigned long long)sum,
	       path, rawpath);
	return got == n ? 0 : 1;
}
