/* SPDX-License-Identifier: MIT */
/*
 * page.c - the report page's inline style and script, as C strings.
 *
 * They are written as plain files, analyze/report/page.css and page.js, and turned
 * into string literals at build time ($(O)/gen/report-page.h, see the Makefile), so
 * that they can be read, edited and checked (node --check) as what they are.
 */
#include "gen/report-page.h"

extern const char ana_rpt_page_css[];
extern const char ana_rpt_page_js[];

const char ana_rpt_page_css[] = REPORT_PAGE_CSS;
const char ana_rpt_page_js[] = REPORT_PAGE_JS;
