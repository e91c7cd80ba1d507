/* SPDX-License-Identifier: MIT */
/*
 * detail.h - the --detail option of the two-event analyzers (multi-trace family).
 *
 * "--detail[=ITEM,ITEM...]" asks for the events around a slow pair.  Items,
 * as perf-prof takes them: -N (events up to N before event1), +N or N (events
 * up to N after event2), hide<N (hide middle events closer than N to the
 * previous shown one), 1 / 2 (the same* tests apply to event1 / event2
 * only), samecpu, samepid, sametid, samekey.  N is a time with s/ms/us/ns
 * (bare: ns).  Parsing only: the engine in analyze/latency/twoevent.c uses it.
 */
#ifndef PP_COMMON_DETAIL_H
#define PP_COMMON_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_detail {
	bool enabled;			/* --detail was given */
	uint64_t before_ns;		/* -N */
	uint64_t after_ns;		/* +N */
	uint64_t hide_ns;		/* hide<N */
	bool same1, same2;		/* restrict the same* tests to event1 / event2 */
	bool samecpu, samepid, sametid, samekey;
};

/**
 * pp_detail_parse() - parse the value of --detail
 * @text: NULL when --detail was not given, "" for a bare --detail, else the item list
 * @d: receives the settings (zeroed first)
 * @err: a one-line message on failure ("--detail: unknown item 'x'")
 *
 * Return: 0 or PP_ESYNTAX.
 */
int pp_detail_parse(const char *text, struct pp_detail *d, char *err, size_t errsz);

/** pp_detail_filters() - whether any same* item was given (else every event is shown). */
static inline bool pp_detail_filters(const struct pp_detail *d)
{
	return d->samecpu || d->samepid || d->sametid || d->samekey;
}

#endif
