/* SPDX-License-Identifier: MIT */
/*
 * log.c - stderr messages, fatal exits and allocation that cannot fail.
 *
 * The only mutable globals of the project live here: the log level and the
 * program name, both set once in main() before any work starts, and a thread's mute.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/quote.h"

int pp_log_level = PP_LOG_INFO;
volatile sig_atomic_t pp_stop;
_Thread_local int pp_log_mute;
const char *pp_progname = "pp";

/*
 * A message may name what a capture holds (an event, a comm, a path): its
 * control bytes and bytes that are not UTF-8 reach the terminal escaped
 * (quote.h), as on stdout.
 */
static void PP_PRINTF(2, 0) vlog(const char *kind, const char *fmt, va_list ap)
{
	char small[1024], *line = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		line = malloc((size_t)n + 1);
		if (line)
			vsnprintf(line, (size_t)n + 1, fmt, aq);
		else
			line = small, n = sizeof(small) - 1;
	}
	va_end(aq);
	size_t len = n < 0 ? 0 : (size_t)n;

	fprintf(stderr, "%s: %s", pp_progname, kind);
	if (pp_quote_safe_len(line, len, PP_QUOTE_TEXT) == len) {
		fwrite(line, 1, len, stderr);
	} else {
		struct pp_buf b = PP_BUF_INIT;
		pp_buf_add_quoted(&b, line, len, PP_QUOTE_TEXT);
		fwrite(b.data, 1, b.len, stderr);
		pp_buf_release(&b);
	}
	fputc('\n', stderr);
	if (line != small)
		free(line);
}

/* The body of every leveled logger: nothing below @min, else "PROG: KIND MSG". */
#define PP_LOG_AT(min, kind)                                                               \
	do {                                                                               \
		va_list ap;                                                                \
		if (pp_log_level < (min) || pp_log_mute)                                   \
			return;                                                            \
		va_start(ap, fmt);                                                         \
		vlog(kind, fmt, ap);                                                       \
		va_end(ap);                                                                \
	} while (0)

void pp_err(const char *fmt, ...)
{
	PP_LOG_AT(PP_LOG_SILENT, "error: ");
}

void pp_warn(const char *fmt, ...)
{
	PP_LOG_AT(PP_LOG_QUIET, "warning: ");
}

void pp_info(const char *fmt, ...)
{
	PP_LOG_AT(PP_LOG_INFO, "");
}

void pp_note(const char *fmt, ...)
{
	PP_LOG_AT(PP_LOG_QUIET, "");
}

void pp_debug(int level, const char *fmt, ...)
{
	PP_LOG_AT(level, "");
}

void pp_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
	exit(2);
}

void pp_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s: BUG at %s:%d: %s\n", pp_progname, file, line, what);
	abort();
}

static void *oom(size_t sz)
{
	fprintf(stderr, "%s: error: out of memory allocating %zu bytes\n", pp_progname, sz);
	exit(2);
}

void *pp_xmalloc(size_t sz)
{
	void *p = malloc(sz ? sz : 1);

	return p ? p : oom(sz);
}

void *pp_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	return p ? p : oom(n * sz);
}

void *pp_xrealloc(void *p, size_t sz)
{
	void *q = realloc(p, sz ? sz : 1);

	return q ? q : oom(sz);
}

void *pp_xgrow(void *p, size_t *nr, size_t want, size_t elsz)
{
	if (want <= *nr)
		return p;
	p = pp_xrealloc(p, want * elsz);
	memset((char *)p + *nr * elsz, 0, (want - *nr) * elsz);
	*nr = want;
	return p;
}

char *pp_xstrdup(const char *s)
{
	return pp_xstrndup(s, strlen(s));
}

char *pp_xstrndup(const char *s, size_t n)
{
	char *p = pp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/*
 * Not libc's vasprintf(): its frames have no frame pointers, so ASan's fast unwinder
 * loses the stack of what it allocates, and tests/lsan.supp passes over such leaks (they
 * are libtraceevent's); pp's own strings are checked with their whole stacks.
 */
char *pp_xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		oom(0);
	char *s = pp_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *pp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = pp_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
