/* SPDX-License-Identifier: MIT */
/*
 * test-state-az.c - analyzer sections of docs/state-format.md against
 * hand-written bytes: profile's tree, the count engine's rounds (hwstat) and
 * kmemleak's stacks and live allocations.
 *
 * Each case writes a state file whose ANALYZER section is typed here field by
 * field as the spec's table gives it, loads it as `pp-analyze report` does,
 * prints the analyzer's report (the numbers in it are the hand-written ones),
 * writes it back (the same bytes: the layout is canonical), and merges it
 * with a copy from another capture (counts double).  Hostile sections -
 * out of order, sums that do not add up, counts larger than the bytes left -
 * are refused with a message, and allocate nothing beyond their bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/state/internal.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/unit/unit.h"

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

/* profile -g: cpu-clock samples, 3 of them in comm "burn": main->a (2) and main->b (1) */
static const char profile_sec[] =
	"\x03"			/* samples 3 */
	"\x01"			/* with call stacks */
	"\x01"			/* the root has one child */
	"\x04" "burn\0" "\x00" "\x01"	/* burn: self 0, one child */
	"\x04" "main\0" "\x00" "\x02"	/* main: self 0, two children */
	"\x01" "a\0" "\x02" "\x00"	/* a: self 2, leaf */
	"\x01" "b\0" "\x01" "\x00"	/* b: self 1, leaf */
	"\x01"			/* one process */
	"\x07" "\x03";		/* pid 7, 3 samples */

/* hwstat: one round of one 1 s slot, CPU 0: cycles 2000, instructions 3000, RUN% 50 */
static const char hwstat_sec[] =
	"\x01"			/* slots 1 */
	"\x80\x94\xeb\xdc\x03"	/* period 10^9 */
	"\x80\x94\xeb\xdc\x03"	/* interval 10^9 */
	"\x01" "\x80\xd0\xac\xf3\x0e"	/* origin 4 * 10^9: the counters' enable */
	"\x00"			/* no thread counters */
	"\x01"			/* one round */
	"\x00" "\x02"		/* round 0, two rows */
	"\x00" "\x00" "\x00" "\x80\x94\xeb\xdc\x03" "\x80\xca\xb5\xee\x01" "\xd0\x0f"
				/* CPU 0, cycles, enabled 10^9, running 5 * 10^8: 2000 */
	"\x00" "\x00" "\x01" "\x80\x94\xeb\xdc\x03" "\x80\x94\xeb\xdc\x03" "\xb8\x17";
				/* CPU 0, instructions, 3000 */

/* Tracepoint formats and event flags (bit 2: with stacks) of the next make_state(), or NULL. */
static const char *const *state_formats;
static const uint32_t *state_flags;
/* The --time range of the next make_state()'s source (0, 0: the whole capture). */
static uint64_t state_range[2];

/* A state of @analyzer (options @argv) over events @names, with @sec as its section. */
static void make_state(const char *path, const char *analyzer, const char *const *argv, int argc,
		       const char *const *names, uint32_t kind, uint64_t created,
		       const uint8_t *sec, size_t sec_sz)
{
	struct ana_state st = { 0 };
	struct pp_buf b = PP_BUF_INIT;
	char err[256];
	size_t nr = 0;

	while (names[nr])
		nr++;
	st.analyzer = (char *)analyzer;
	st.version = ana_analyzer_find(analyzer)->ops->state_version;
	st.argv = (char **)argv;
	st.argc = argc;
	st.options = ana_state_argv_str(argv, argc);
	st.matches = pp_xcalloc(nr, sizeof(*st.matches));
	st.ctx.events = pp_xcalloc(nr, sizeof(*st.ctx.events));
	for (size_t i = 0; i < nr; i++) {
		st.matches[i] = (struct ana_smatch){ (uint32_t)i, (char *)names[i] };
		st.ctx.events[i] = (struct ana_sevent){ .id = (uint32_t)i + 1, .kind = kind,
							.name = (char *)names[i],
							.selector = (char *)names[i], .filter = "",
							.format = state_formats ? (char *)state_formats[i]
										: "",
							.flags = state_flags ? state_flags[i] : 0 };
	}
	st.nr_matches = st.ctx.nr_events = nr;
	struct ana_ssrc src = { .created_ns = created, .fingerprint = 1, .host = "h", .path = "p",
				.first_ns = 4000000000ull, .last_ns = 4900000000ull,
				.range_start_ns = state_range[0], .range_end_ns = state_range[1] };

	if (state_range[0] > src.first_ns)
		src.first_ns = state_range[0];
	if (state_range[1] && state_range[1] < src.last_ns)
		src.last_ns = state_range[1];
	st.srcs = &src;
	st.nr_srcs = 1;
	ana_state_encode(&st, sec, sec_sz, &b);
	CU_ASSERT_EQUAL_FATAL(ana_state_write_file(path, &b, err, sizeof(err)), 0);
	free(st.options);
	free(st.matches);
	free(st.ctx.events);
	pp_buf_release(&b);
}

/*
 * `pp-analyze report PATHS` (@out_path NULL: `merge PATHS -o STATE`): the text of
 * the report, or of the merged state, in @out. Return: the exit status.
 */
static int run_states(const char *const *paths, size_t nr, const char *out_path,
		      struct pp_buf *out)
{
	struct ana_state **v = pp_xcalloc(nr, sizeof(*v));
	char tmp[] = "/tmp/pp-state-az-XXXXXX", err[512];
	struct ana_merge *m = NULL;
	struct pp_az *az = NULL;
	const char *const *argv;
	bool help = false;
	int argc, rc, fd = mkstemp(tmp);
	FILE *fp;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	for (size_t i = 0; i < nr; i++)
		CU_ASSERT_EQUAL_FATAL(ana_state_load(paths[i], &v[i], err, sizeof(err)), 0);
	rc = ana_merge_new(&ana_registry, v, nr, &m, err, sizeof(err));
	if (rc)
		goto out;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ana_merge_session(m));
	argv = ana_state_argv(v[0], &argc);
	az = ana_az_parse(argc, (const char **)argv, NULL, &help);
	az->opt.output = tmp;
	CU_ASSERT_EQUAL_FATAL(ana_out_open(&az->out, tmp, NULL, err, sizeof(err)), 0);
	rc = ana_merge_load(m, az);
	if (!rc)
		rc = out_path ? ana_merge_write(m, az, out_path) : ana_merge_report(m, az);
out:
	if (az)
		ana_az_free(az);
	ana_merge_free(m);
	fp = fopen(out_path ? out_path : tmp, "rb");
	pp_buf_reset(out);
	if (fp) {
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
			pp_buf_add(out, buf, n);
		fclose(fp);
	}
	unlink(tmp);
	return rc;
}

/* The ANALYZER section of the state in @file (its bytes). */
static void section_of(const struct pp_buf *file, struct pp_buf *sec)
{
	struct ana_state st = { 0 };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(ana_state_decode((const uint8_t *)file->data, file->len, &st, err,
					       sizeof(err)), 0);
	pp_buf_reset(sec);
	pp_buf_add(sec, st.az_data, st.az_size);
	ana_state_release(&st);
}

/* The state @paths[0] written back to @ab holds the analyzer section @want, byte for byte. */
static void written_back(const char *const *paths, const char *ab, const uint8_t *want,
			 size_t len)
{
	struct pp_buf out = PP_BUF_INIT, sec = PP_BUF_INIT;

	CU_ASSERT_EQUAL(run_states(paths, 1, ab, &out), 0);
	section_of(&out, &sec);
	CU_ASSERT_EQUAL(sec.len, len);
	CU_ASSERT(sec.len == len && !memcmp(sec.data, want, len));
	pp_buf_release(&out);
	pp_buf_release(&sec);
}

static const char *const prof_argv[] = { "profile", "-g" };
static const char *const prof_events[] = { "cpu-clock", NULL };

static void test_state_az__profile(void)
{
	const char *a = "/tmp/pp-state-az-a.state", *b = "/tmp/pp-state-az-b.state";
	const char *ab = "/tmp/pp-state-az-ab.state";
	struct pp_buf out = PP_BUF_INIT, sec = PP_BUF_INIT;
	const char *paths[2] = { a, b };

	make_state(a, "profile", prof_argv, 2, prof_events, PPF_EV_SOFTWARE, 5, S(profile_sec));
	CU_ASSERT_EQUAL(run_states(paths, 1, NULL, &out), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&out),
		"profile: 3 samples of cpu-clock, with call stacks\n"
		" Children     Self  Samples Symbol\n"
		"--------- -------- -------- ------\n"
		"   66.67%   66.67%        2 a\n"
		"   33.33%   33.33%        1 b\n"
		"  100.00%    0.00%        0 main\n"
		"\n"
		"   PID COMM              Samples    Share\n"
		"------ ---------------- -------- --------\n"
		"     7 <...>                   3  100.00%\n");
	/* written back: the same section, byte for byte */
	written_back(paths, ab, S(profile_sec));
	/* another capture's copy: every count doubles */
	make_state(b, "profile", prof_argv, 2, prof_events, PPF_EV_SOFTWARE, 6, S(profile_sec));
	CU_ASSERT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "profile: 6 samples of cpu-clock"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "   66.67%   66.67%        4 a\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "     7 <...>                   6  100.00%\n"));
	unlink(a);
	unlink(b);
	unlink(ab);
	pp_buf_release(&out);
	pp_buf_release(&sec);
}

/* The state @make writes of section @sec must be refused, saying @msg. */
static void refused(void (*make)(const char *path, const uint8_t *sec, size_t sz),
		    const uint8_t *sec, size_t sz, const char *msg)
{
	const char *a = "/tmp/pp-state-az-bad.state";
	struct pp_buf out = PP_BUF_INIT;
	FILE *saved = stderr, *err = tmpfile();
	char line[512] = "";

	make(a, sec, sz);
	stderr = err;
	CU_ASSERT_NOT_EQUAL(run_states(&a, 1, NULL, &out), 0);
	stderr = saved;
	rewind(err);
	if (!fgets(line, sizeof(line), err))
		line[0] = 0;
	fclose(err);
	if (!strstr(line, msg))
		fprintf(stderr, "\n  expected '%s' in: %s", msg, line);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, msg));
	unlink(a);
	pp_buf_release(&out);
}

static void profile_state(const char *path, const uint8_t *sec, size_t sz)
{
	make_state(path, "profile", prof_argv, 2, prof_events, PPF_EV_SOFTWARE, 5, sec, sz);
}

/* A profile section @sec must be refused, saying @msg. */
static void profile_refused(const uint8_t *sec, size_t sz, const char *msg)
{
	refused(profile_state, sec, sz, msg);
}

static void test_state_az__profile_hostile(void)
{
	/* b before a */
	profile_refused(S("\x03\x01\x01" "\x04" "burn\0\x00\x01" "\x04" "main\0\x00\x02"
			  "\x01" "b\0\x01\x00" "\x01" "a\0\x02\x00" "\x01\x07\x03"),
			"names out of order");
	/* the paths hold 3 samples, the header says 4 */
	profile_refused(S("\x04\x01\x01" "\x04" "burn\0\x00\x01" "\x04" "main\0\x00\x02"
			  "\x01" "a\0\x02\x00" "\x01" "b\0\x01\x00" "\x01\x07\x04"),
			"4 samples, 3 in the paths");
	/* 2^60 children in a few bytes: refused before any allocation */
	profile_refused(S("\x03\x01\x80\x80\x80\x80\x80\x80\x80\x80\x10" "\x01" "a\0\x03\x00"),
			"root's children");
	/* an empty frame name */
	profile_refused(S("\x01\x01\x01" "\x00\0\x01\x00" "\x01\x07\x01"), "an empty name");
	/* the process table out of order */
	profile_refused(S("\x02\x00\x01" "\x01" "a\0\x02\x00" "\x02\x07\x01\x05\x01"),
			"pids out of order");
	/* cut in the middle of the tree */
	profile_refused(S("\x03\x01\x01" "\x04" "burn\0\x00\x01" "\x04" "ma"), "");
	/* a bad flag */
	profile_refused(S("\x00\x02\x00\x00"), "stacks flag 2");
}

static const char *const hw_argv[] = { "hwstat" };
static const char *const hw_events[] = { "cycles", "instructions", NULL };

static void test_state_az__count_engine(void)
{
	const char *a = "/tmp/pp-state-az-hw.state", *b = "/tmp/pp-state-az-hw2.state";
	const char *ab = "/tmp/pp-state-az-hwab.state";
	const char *paths[2] = { a, b };
	struct pp_buf out = PP_BUF_INIT, sec = PP_BUF_INIT;

	make_state(a, "hwstat", hw_argv, 1, hw_events, PPF_EV_HARDWARE, 5, S(hwstat_sec));
	CU_ASSERT_EQUAL(run_states(paths, 1, NULL, &out), 0);
	/* the round ends at origin + interval: 5 s of capture time */
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&out),
		"5.000000 \n"
		"[CPU]     CYCLES      INSNS    IPC     RUN%\n"
		"[000]       2000       3000   1.50   50.00%\n");
	written_back(paths, ab, S(hwstat_sec));
	make_state(b, "hwstat", hw_argv, 1, hw_events, PPF_EV_HARDWARE, 6, S(hwstat_sec));
	CU_ASSERT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "[000]       4000       6000   1.50   50.00%\n"));
	unlink(a);
	unlink(b);
	unlink(ab);
	pp_buf_release(&out);
	pp_buf_release(&sec);
}

static void test_state_az__count_hostile(void)
{
	const char *a = "/tmp/pp-state-az-hwbad.state";
	struct pp_buf out = PP_BUF_INIT;
	static const struct {
		const uint8_t *sec;
		size_t sz;
	} bad[] = {
		/* event 2 of 2 */
		{ S("\x01\x01\x01\x00\x00\x00\x01\x00\x01\x00\x00\x02\x00\x00\x05") },
		/* rounds out of order */
		{ S("\x01\x01\x01\x00\x00\x00\x02\x03\x00\x01\x00") },
		/* other slots than -i / --period make */
		{ S("\x02\x01\x01\x00\x00\x00\x00") },
		/* 2^40 rows in a few bytes */
		{ S("\x01\x80\x94\xeb\xdc\x03\x80\x94\xeb\xdc\x03\x00\x00\x00\x01\x00"
		    "\x80\x80\x80\x80\x80\x20") },
	};
	FILE *saved = stderr, *err = tmpfile();

	stderr = err;
	for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++) {
		make_state(a, "hwstat", hw_argv, 1, hw_events, PPF_EV_HARDWARE, 5, bad[i].sec,
			   bad[i].sz);
		CU_ASSERT_NOT_EQUAL(run_states(&a, 1, NULL, &out), 0);
	}
	stderr = saved;
	fclose(err);
	unlink(a);
	pp_buf_release(&out);
}

/*
 * hrcount -e cpu-clock --period 100ms -i 200, events binned (no readings): origin byte 2,
 * the capture's grid from 4 s.  Range a (to 4.15 s) counted 5 and 7 in round 0's slots,
 * range b (from 4.15 s + 1 ns) 3 in round 1's first slot and 4 in round 0's second (the
 * cut is inside that slot: both ranges counted in it).
 */
#define HR_HEAD "\x02" "\x80\xc2\xd7\x2f" "\x80\x84\xaf\x5f"	/* 2 slots of 10^8, 2 * 10^8 */
#define HR_ROW(a, b) "\x00" "\xff\xff\xff\xff\x0f" "\x00" "\x00" "\x00" a b
						/* summed, cpu-clock, enabled 0, running 0 */
static const char hr_a_sec[] =
	HR_HEAD "\x02" "\x80\xd0\xac\xf3\x0e"	/* the grid, 4 * 10^9 */
	"\x00"				/* no thread counters */
	"\x01" "\x00" "\x01" HR_ROW("\x05", "\x07");	/* round 0: 5 | 7 */
static const char hr_b_sec[] =
	HR_HEAD "\x02" "\x80\xd0\xac\xf3\x0e" "\x00"
	"\x02" "\x00" "\x01" HR_ROW("\x00", "\x04")	/* round 0: 0 | 4 */
	"\x01" "\x01" HR_ROW("\x03", "\x00");		/* round 1: 3 | 0 */
/* b binned from 4.05 s (a grid 50 ms off a's) */
static const char hr_off_sec[] =
	HR_HEAD "\x02" "\x80\xb1\x98\x8b\x0f" "\x00"
	"\x01" "\x00" "\x01" HR_ROW("\x03", "\x00");
/* an origin byte beyond 2 */
static const char hr_bad_sec[] =
	HR_HEAD "\x03" "\x80\xd0\xac\xf3\x0e" "\x00" "\x00";
static const char *const hr_argv[] = { "hrcount", "--event=cpu-clock", "--interval=200000000ns",
				       "--period=100000000ns" };
static const char *const hr_events[] = { "cpu-clock", NULL };

static void test_state_az__count_origin(void)
{
	const char *a = "/tmp/pp-state-az-hra.state", *b = "/tmp/pp-state-az-hrb.state";
	const char *ab = "/tmp/pp-state-az-hrab.state", *paths[2] = { a, b };
	struct pp_buf out = PP_BUF_INIT, sec = PP_BUF_INIT;
	FILE *saved = stderr, *err = tmpfile();
	char line[512] = "";

	state_range[0] = 0;
	state_range[1] = 4150000000ull;
	make_state(a, "hrcount", hr_argv, 4, hr_events, PPF_EV_SOFTWARE, 5, S(hr_a_sec));
	state_range[0] = 4150000001ull;
	state_range[1] = 0;
	make_state(b, "hrcount", hr_argv, 4, hr_events, PPF_EV_SOFTWARE, 5, S(hr_b_sec));
	/* one grid: the rounds add by index, slot by slot; a round ends at origin + k * 200 ms */
	CU_ASSERT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&out),
		"4.200000 \n"
		"cpu-clock  5|11 | total 16\n"
		"4.400000 \n"
		"cpu-clock  3| 0 | total 3\n");
	CU_ASSERT_EQUAL(run_states(paths, 2, ab, &out), 0);
	section_of(&out, &sec);		/* joined: one range, the grid's origin kept */
	static const char joined[] = HR_HEAD "\x02" "\x80\xd0\xac\xf3\x0e" "\x00"
		"\x02" "\x00" "\x01" HR_ROW("\x05", "\x0b") "\x01" "\x01" HR_ROW("\x03", "\x00");
	CU_ASSERT(sec.len == sizeof(joined) - 1 && !memcmp(sec.data, joined, sec.len));

	/* another grid for a range of the same capture: refused, in one line naming both origins */
	make_state(b, "hrcount", hr_argv, 4, hr_events, PPF_EV_SOFTWARE, 5, S(hr_off_sec));
	stderr = err;
	CU_ASSERT_NOT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_NOT_EQUAL(run_states(paths, 2, ab, &out), 0);
	stderr = saved;
	rewind(err);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), err));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "slot 0 at 4050000000 ns, another range of its capture at "
					    "4000000000 ns"));
	/* ... but another capture has its own grid: rounds add by index, the latest's origin */
	make_state(b, "hrcount", hr_argv, 4, hr_events, PPF_EV_SOFTWARE, 6, S(hr_off_sec));
	CU_ASSERT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&out), "4.250000 \ncpu-clock  8| 7 | total 15\n");

	/* an origin byte beyond 2 */
	make_state(b, "hrcount", hr_argv, 4, hr_events, PPF_EV_SOFTWARE, 5, S(hr_bad_sec));
	stderr = err;
	CU_ASSERT_NOT_EQUAL(run_states(paths + 1, 1, NULL, &out), 0);
	stderr = saved;
	fclose(err);
	state_range[0] = state_range[1] = 0;
	unlink(a);
	unlink(b);
	unlink(ab);
	pp_buf_release(&out);
	pp_buf_release(&sec);
}

/* kmemleak: kmem:kmalloc (with stacks) and kmem:kfree; the layouts of the fields it reads */
static const char *const kl_argv[] = { "kmemleak", "--alloc=kmem:kmalloc", "--free=kmem:kfree" };
static const char *const kl_events[] = { "kmem:kmalloc", "kmem:kfree", NULL };
static const char *const kl_formats[] = {
	"name: kmalloc\nID: 1\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n",
	"name: kfree\nID: 2\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n",
};
static const uint32_t kl_flags[] = { 4, 0 };

/*
 * 3 allocations, 2 releases (1 unmatched); one stack; live at the end: 0x100 (64 bytes) and
 * 0x200 (32 bytes) from it; touched: 0x100, 0x200 allocated first, 0x180 released first.
 */
#define KL_LIVE(ptr, size) ptr size "\x05" "\x00\x07\x07" "\x00" "\x01" "\x00"
static const char kmemleak_sec[] =
	"\x03\x02\x01"		/* alloc 3, free 2, unmatched 1 */
	"\x01"			/* one stack */
	"\x00\x07" "\x01"	/* key 0, pid 7, first seen at 1 */
	"\x02\x10\x20"		/* two frames */
	"\x0b" "    leak_a\n\0"	/* its text */
	"\x06" "leak_a\0"	/* folded */
	"\x01"			/* one source */
	"\x02"			/* two live: ptr, size, time 5, cpu 0, pid 7, tid 7, event 0, stack 1, no raw */
	KL_LIVE("\x80\x02", "\x40") KL_LIVE("\x80\x04", "\x20")
	"\x03" "\x80\x02\x02" "\x80\x03\x01" "\x80\x04\x02"	/* touched */
	"\x00";			/* no thread with a pending size */

static void kl_state(const char *path, uint64_t created, const uint8_t *sec, size_t sz)
{
	state_formats = kl_formats;
	state_flags = kl_flags;
	make_state(path, "kmemleak", kl_argv, 3, kl_events, PPF_EV_TRACEPOINT, created, sec, sz);
	state_formats = NULL;
	state_flags = NULL;
}

static void test_state_az__kmemleak(void)
{
	const char *a = "/tmp/pp-state-az-kla.state", *b = "/tmp/pp-state-az-klb.state";
	const char *ab = "/tmp/pp-state-az-klab.state";
	struct pp_buf out = PP_BUF_INIT, sec = PP_BUF_INIT;
	const char *paths[2] = { a, b };

	kl_state(a, 5, S(kmemleak_sec));
	CU_ASSERT_EQUAL(run_states(paths, 1, NULL, &out), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&out),
		"LEAKED BYTES REPORT:\n"
		"Leak of 96 bytes in 2 objects allocated from:\n"
		"    leak_a\n"
		"KMEMLEAK STATS:\n"
		"ALLOC LIST num 2 mem 96\n"
		"TOTAL alloc 3 free 2\n");
	written_back(paths, ab, S(kmemleak_sec));
	/* another capture's copy: its allocations are its own, the stack is the same */
	kl_state(b, 6, S(kmemleak_sec));
	CU_ASSERT_EQUAL(run_states(paths, 2, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "Leak of 192 bytes in 4 objects"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&out), "ALLOC LIST num 4 mem 192\nTOTAL alloc 6 free 4\n"));
	unlink(a);
	unlink(b);
	unlink(ab);
	pp_buf_release(&out);
	pp_buf_release(&sec);
}

static void kl_bad_state(const char *path, const uint8_t *sec, size_t sz)
{
	kl_state(path, 5, sec, sz);
}

static void test_state_az__kmemleak_hostile(void)
{
	static const struct {
		const uint8_t *sec;
		size_t sz;
		const char *msg;
	} bad[] = {
		/* more unmatched releases than releases */
		{ S("\x03\x02\x03" "\x00\x00"), "2 releases, 3 of them unmatched" },
		/* 2^60 stacks in a few bytes: refused before any allocation */
		{ S("\x03\x02\x01" "\x80\x80\x80\x80\x80\x80\x80\x80\x10" "\x00"), "stacks" },
		/* a stack without frames */
		{ S("\x03\x02\x01" "\x01\x00\x07\x01\x00" "\x01" "a\0" "\x01" "a\0" "\x00"),
		  "stack 0: 0 frames" },
		/* a live allocation of stack 2 of 1 */
		{ S("\x03\x02\x01" "\x01\x00\x07\x01\x01\x10" "\x01" "a\0" "\x01" "a\0"
		    "\x01\x01" "\x80\x02\x40\x05\x00\x07\x07\x00\x02\x00" "\x00\x00"),
		  "stack 2 of 1" },
		/* live pointers out of order */
		{ S("\x03\x02\x01" "\x00" "\x01\x02" "\x80\x04\x40\x05\x00\x07\x07\x00\x00\x00"
		    "\x80\x02\x40\x05\x00\x07\x07\x00\x00\x00" "\x00\x00"), "live allocation 1" },
		/* a live allocation of the free event */
		{ S("\x03\x02\x01" "\x00" "\x01\x01" "\x80\x02\x40\x05\x00\x07\x07\x01\x00\x00"
		    "\x00\x00"), "event 1 of 2" },
		/* a pointer touched by a kind of event that is neither */
		{ S("\x03\x02\x01" "\x00" "\x01\x00" "\x01\x80\x02\x03" "\x00"), "first event kind 3" },
		/* a thread with a pending size of nothing */
		{ S("\x03\x02\x01" "\x00" "\x01\x00\x00" "\x01\x07\x02\x00"), "thread 0: tid 7" },
	};

	for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++)
		refused(kl_bad_state, bad[i].sec, bad[i].sz, bad[i].msg);
}

void test_state_az__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_state_az__profile, "profile's section by hand: its report, written back the same, merged"),
		PP_TEST(test_state_az__profile_hostile, "profile's section: disorder, bad sums, huge counts, cuts refused"),
		PP_TEST(test_state_az__count_engine, "the count engine's section by hand (hwstat): report, write back, merge"),
		PP_TEST(test_state_az__kmemleak, "kmemleak's section by hand: report, write back, merge"),
		PP_TEST(test_state_az__kmemleak_hostile, "kmemleak's section: counts, stacks, live allocations, pointers, threads refused"),
		PP_TEST(test_state_az__count_origin, "the count engine's origin: one grid merges, another range's grid refused"),
		PP_TEST(test_state_az__count_hostile, "the count engine's section: bad events, order, slots, counts refused"),
	};

	pp_suite_add("state_az", tests, PP_ARRAY_SIZE(tests));
}
