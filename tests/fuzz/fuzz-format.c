/* SPDX-License-Identifier: MIT */
/*
 * fuzz-format.c - libFuzzer entry: any bytes as a stored tracefs format text, and a record
 * of it.
 *
 * The input up to its first NUL is the format text of an event "fz:ev", the bytes after
 * it (at most 4096) the record.  The text goes where a capture's or a state's goes: a
 * session made as a state's is (ana_sctx_session(): ana_evtype_add(), the checks of
 * analyze/evformat.c, then libtraceevent's parser), and when it has fields the record,
 * its common_type made the event's, is printed as pp prints events: the compiled print
 * format (analyze/fastfmt.c) checked against libtraceevent, then libtraceevent alone.
 * Every input must be parsed, printed or refused: no crash, no sanitizer report, no
 * leak of pp's.  The state and pipeline targets reach the same code through whole files
 * (a few thousand and a few dozen inputs a second); this one runs at the text itself.
 * Seeds: the formats of tests/fixtures/formats/ with records of zeros and of 0xff bytes
 * (tests/fuzz/run.sh), dictionary tests/fuzz/capture.dict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"
#include "analyze/state/internal.h"
#include "common/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pp_progname = "pp-analyze";
	pp_log_level = PP_LOG_SILENT;
	return 0;
}

/* @rec (@n bytes) printed both ways pp prints an event of @t */
static void print(struct ana_session *s, const struct ana_evtype *t, uint8_t *rec, size_t n)
{
	struct pp_event ev = { .type = t, .raw = rec, .raw_sz = (uint32_t)n };
	struct pp_buf out = { 0 };
	uint16_t id = (uint16_t)t->tep->id;

	if (n >= 2)
		memcpy(rec, &id, 2);
	ana_event_fields(s, &ev, &out);
	ana_print_generic(s, true);
	ana_event_fields(s, &ev, &out);
	pp_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	size_t rlen = nul ? size - tlen - 1 : 0;
	char *text = malloc(tlen + 1);
	uint8_t *rec = malloc(rlen + 2);
	struct ana_sevent e = { .id = 1, .kind = PPF_EV_TRACEPOINT, .name = "fz:ev",
				.selector = "fz:ev", .filter = "", .format = text };
	struct ana_sctx c = { .events = &e, .nr_events = 1 };
	struct ana_ssrc src = { .host = "fz", .path = "fz" };
	struct ana_session *s = NULL;

	if (!text || !rec)
		abort();
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	if (rlen > 4096)
		rlen = 4096;
	if (rlen)
		memcpy(rec, nul + 1, rlen);
	if (ana_sctx_session(&c, &src, 1, &s) == 0 && s->nr_types && s->type_list[0]->tep)
		print(s, s->type_list[0], rec, rlen);
	ana_session_free(s);
	free(rec);
	free(text);
	return 0;
}
