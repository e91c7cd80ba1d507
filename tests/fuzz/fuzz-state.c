/* SPDX-License-Identifier: MIT */
/*
 * fuzz-state.c - libFuzzer entry: any bytes as one or two state files (docs/state-format.md).
 *
 * The input is split at the second state magic ("PPST\r\n\x1a\n") if it has one: one
 * state, or two.  Their checksums (header, sections) are made right again, but for one
 * input in eight, so that mutations reach the parsers behind them.  Each goes to a file of its own and through the same commands as
 * `pp-analyze report X.state` (text, or JSON and CSV for a third of the inputs each) and,
 * for two, `pp-analyze merge A B -o OUT` and the report of both.  The decoder
 * (analyze/state/file.c, context.c, the analyzers' state_read hooks), the merge and
 * every analyzer's ->finish() on what was read must answer each input with a report or
 * a refusal: no crash, no sanitizer report, no leak, no exit.  Seeds: states of the
 * fixtures made by tests/fuzz/run.sh (tests/fuzz/state-seeds.txt), dictionary
 * tests/fuzz/state.dict.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/state/internal.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/fuzz/capfuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

/* the scratch directory goes with the process */
static void cleanup(void)
{
	static const char *const names[] = { "a.state", "b.state", "ab.state", "ab.state.tmp" };
	char p[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_quiet_analyze();
	snprintf(dir, sizeof(dir), "/tmp/pp-fuzz-state.%d", (int)getpid());
	mkdir(dir, 0700);
	atexit(cleanup);
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The header's CRC and every whole section's, as a writer would have made them. */
static void fix_crcs(uint8_t *p, size_t n)
{
	size_t off = ANA_STATE_HDR_SZ;

	if (n < ANA_STATE_HDR_SZ)
		return;
	put_le32(p + 28, ppf_crc32c(0, p, 28));
	while (n - off >= ANA_STATE_SEC_HDR_SZ) {
		uint32_t sz = le32(p + off + 4);

		if (sz > n - off - ANA_STATE_SEC_HDR_SZ)
			break;
		put_le32(p + off + 8, ppf_crc32c(ppf_crc32c(0, p + off, 8),
						 p + off + ANA_STATE_SEC_HDR_SZ, sz));
		off += ANA_STATE_SEC_HDR_SZ + sz;
	}
}

static void put(const char *path, const uint8_t *data, size_t n, bool fix)
{
	FILE *fp = fopen(path, "wb");
	uint8_t *p = malloc(n ? n : 1);

	if (!fp || !p)
		abort();
	memcpy(p, data, n);
	if (fix)
		fix_crcs(p, n);
	if (n && fwrite(p, 1, n, fp) != n)
		abort();
	fclose(fp);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "text", "json", "csv" };
	const size_t ml = sizeof(ANA_STATE_MAGIC) - 1;
	char a[96], b[96], out[96];
	const uint8_t *second = NULL;
	const char *fmt = formats[size % 3];
	bool fix = size % 8 != 7;

	for (size_t i = 1; size >= ml && i <= size - ml; i++)
		if (!memcmp(data + i, ANA_STATE_MAGIC, ml)) {
			second = data + i;
			break;
		}
	snprintf(a, sizeof(a), "%s/a.state", dir);
	snprintf(b, sizeof(b), "%s/b.state", dir);
	snprintf(out, sizeof(out), "%s/ab.state", dir);
	put(a, data, second ? (size_t)(second - data) : size, fix);
	{
		const char *argv[] = { "report", a, "--format", fmt, "-o", "/dev/null", NULL };
		(void)cmd_report(6, argv, &(struct ana_cmd_ctx){ 0 });
	}
	if (second) {
		put(b, second, size - (size_t)(second - data), fix);
		const char *m[] = { "merge", a, b, "-o", out, NULL };
		(void)cmd_merge(5, m, &(struct ana_cmd_ctx){ 0 });
		const char *r[] = { "report", a, b, "--format", fmt, "-o", "/dev/null", NULL };
		(void)cmd_report(7, r, &(struct ana_cmd_ctx){ 0 });
		unlink(out);
	}
	fflush(stdout);
	return 0;
}
