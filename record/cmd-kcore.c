/* SPDX-License-Identifier: MIT */
/*
 * cmd-kcore.c - `pp-record kcore [-1|-2|-4|-8] [--string] ADDR|SYMBOL [COUNT]`: perf-prof's
 * kernel memory dump.
 *
 * Layout, as perf-prof's: "%016llx: " then COUNT values of the element size in hex (the
 * kernel's byte order), 16 bytes a line, each line closed by two blanks and the bytes'
 * ASCII ('.' where not printable) and the next line opened by its address; the last line's
 * ASCII is aligned under the others'.  --string prints the NUL-terminated string there,
 * a new "%016llx: " after each newline.  An address outside the core prints
 * "%016llx: not a kernel virtual address" (exit 1).  --kcore and --kallsyms read other
 * files than /proc/kcore and /proc/kallsyms (a saved core, tests).  A range may span
 * adjacent PT_LOAD segments: each piece is read at its own file offset.
 * Not here: the ELF core's headers (rec_kcore_open() in perf/insn.c), the symbol lookup
 * (symbols/kallsyms.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/front-env.h"
#include "common/log.h"
#include "common/man.h"
#include "common/options.h"
#include "record/perf/insn.h"
#include "record/record.h"
#include "record/symbols/kallsyms.h"

#define KCORE_PROC "/proc/kcore"
#define KCORE_STRING_MAX (1u << 20)	/* --string stops after this many bytes */
#define KCORE_COUNT_MAX (1ull << 32)

struct kcore_cmd {
	int b1, b2, b4, b8;		/* -1 -2 -4 -8 given */
	int bytes;			/* the widest of them given (perf-prof's bit mask); 8 */
	bool string;
	const char *kcore;
	const char *kallsyms;
	const char *path;		/* of the core that is open */
	struct rec_kcore k;
};

static const char *const kcore_usage[] = {
	"pp kcore [-1|-2|-4|-8] [--string] <kaddr|symbol> [count]",
	NULL,
};

static const char kcore_help[] =
	"\nReads kernel memory from /proc/kcore by virtual address or symbol name\n"
	"(/proc/kallsyms), and prints it as a hex dump with its ASCII, or as a string.\n"
	"\n  <kaddr|symbol>  kernel virtual address (0x..., or bare hex that is no symbol),\n"
	"                  or symbol name, optionally +OFFSET\n"
	"  [count]         number of elements to read (default: 1; ignored by --string)\n"
	"\nEXAMPLES\n"
	"  pp kcore --string linux_banner\n"
	"  pp kcore -8 0xffffffff81ade0c0 1\n"
	"  pp kcore jiffies\n"
	"  pp kcore -4 loops_per_jiffy 1\n"
	"  pp kcore --kcore saved.core --kallsyms saved.kallsyms -1 init_task 64\n";

/* A whole number (base 0: 0x hex, decimal); false otherwise. */
static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

static bool all_hex(const char *s)
{
	return *s && s[strspn(s, "0123456789abcdefABCDEF")] == '\0';
}

/* @what as an address: a number, SYMBOL[+OFF], else bare hex.  0 or exit status 2. */
static int resolve(const struct kcore_cmd *c, const char *what, uint64_t *addr)
{
	char sym[512];
	const char *plus;
	uint64_t off = 0;
	int rc;

	if (parse_u64(what, 0, addr))
		return 0;
	plus = strchr(what, '+');
	if (isdigit((unsigned char)*what) || (plus && (!parse_u64(plus + 1, 0, &off) ||
						       plus == what))) {
		pp_err("bad address '%s': expected 0xADDR, SYMBOL or SYMBOL+OFFSET", what);
		return 2;
	}
	snprintf(sym, sizeof(sym), "%.*s", plus ? (int)(plus - what) : (int)strlen(what), what);
	rc = rec_kallsyms_lookup(c->kallsyms, sym, addr);
	if (rc == PP_ENOT_FOUND && !plus && all_hex(what) && parse_u64(what, 16, addr))
		return 0;
	if (rc == PP_ENOT_FOUND) {
		bool bad = false;

		for (const char *p = sym; *p; p++)
			bad |= !isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '$';
		if (bad)
			pp_err("bad address '%s': expected 0xADDR, SYMBOL or SYMBOL+OFFSET", what);
		else
			pp_err("unknown symbol '%s' (not in %s)", sym, c->kallsyms);
		return 2;
	}
	if (rc) {
		pp_err("cannot read %s: %s", c->kallsyms, strerror(-rc));
		return 2;
	}
	if (!*addr) {
		pp_err("%s shows '%s' at address 0: kernel addresses are hidden "
		       "(kernel.kptr_restrict, or not root)", c->kallsyms, sym);
		return 2;
	}
	*addr += off;
	return 0;
}

/* The segment of @k holding @kaddr, or NULL. */
static const struct rec_kcore_seg *seg_of(const struct rec_kcore *k, uint64_t kaddr)
{
	for (size_t i = 0; i < k->nr_segs; i++)
		if (kaddr >= k->segs[i].vaddr && kaddr - k->segs[i].vaddr < k->segs[i].size)
			return &k->segs[i];
	return NULL;
}

/* Whether every byte of [@kaddr, @kaddr + @len) is in a segment (they may be adjacent). */
static bool mapped(const struct rec_kcore *k, uint64_t kaddr, uint64_t len)
{
	while (len) {
		const struct rec_kcore_seg *s = seg_of(k, kaddr);
		uint64_t n;

		if (!s)
			return false;
		n = s->size - (kaddr - s->vaddr);
		if (n >= len)
			return true;
		kaddr += n;
		len -= n;
	}
	return true;
}

/* @len bytes at @kaddr, across segments; 0 or -EIO. */
static int read_all(const struct rec_kcore *k, uint64_t kaddr, unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = rec_kcore_read(k, kaddr, buf, len);

		if (n <= 0)
			return -EIO;
		buf += n;
		kaddr += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* An element of @n bytes: the core is little-endian (rec_kcore_open() checks it). */
static uint64_t load_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int dump_hex(const struct kcore_cmd *c, uint64_t kaddr, uint64_t count)
{
	int align = c->bytes;
	uint64_t size = count * (uint64_t)align;
	unsigned char buf[4096], *data = buf;
	size_t have = 0;		/* bytes of buf from data on */
	char tailer[17];
	int t = 0;

	printf("%016llx: ", (unsigned long long)kaddr);
	if (kaddr + size < kaddr || !mapped(&c->k, kaddr, size)) {
		printf("not a kernel virtual address\n");
		return 1;
	}
	while (size) {
		if (!have) {	/* a whole number of elements: sizeof(buf) is a multiple of 8 */
			int rc;

			have = size < sizeof(buf) ? (size_t)size : sizeof(buf);
			rc = read_all(&c->k, kaddr, buf, have);
			if (rc) {
				printf("\n");
				fflush(stdout);
				pp_err("cannot read %s at 0x%llx: %s", c->path,
				       (unsigned long long)kaddr, pp_strerror(rc));
				return 1;
			}
			data = buf;
		}
		printf("%0*llx ", align * 2, (unsigned long long)load_le(data, align));
		for (int i = 0; i < align; i++)
			tailer[t++] = isprint(data[i]) ? (char)data[i] : '.';
		data += align;
		have -= (size_t)align;
		size -= (uint64_t)align;
		kaddr += (uint64_t)align;
		if (t == 16 && size) {
			printf("  %.*s\n%016llx: ", t, tailer, (unsigned long long)kaddr);
			t = 0;
		}
	}
	if (t)
		printf("  %*s%.*s", (16 - t) * 2 + (16 - t) / align, "", t, tailer);
	printf("\n");
	return 0;
}

static int dump_string(const struct kcore_cmd *c, uint64_t kaddr)
{
	unsigned char ch;
	uint32_t n = 0;

	printf("%016llx: ", (unsigned long long)kaddr);
	if (!mapped(&c->k, kaddr, 1)) {
		printf("not a kernel virtual address\n");
		return 1;
	}
	while (n++ < KCORE_STRING_MAX && !read_all(&c->k, kaddr, &ch, 1) && ch) {
		kaddr++;
		if (ch == '\n')
			printf("\n%016llx: ", (unsigned long long)kaddr);
		else if (isprint(ch) || ch == '\t')
			putchar(ch);
		else		/* kernel bytes do not reach a terminal raw */
			printf("\\x%02x", ch);
	}
	printf("\n");
	return 0;
}

int cmd_kcore(int argc, const char **argv)
{
	struct kcore_cmd c = { .kcore = KCORE_PROC, .kallsyms = REC_KALLSYMS_PROC };
	char err[512];
	uint64_t kaddr, count = 1;
	int n, rc, verbose = 0, quiet = 0;
	const struct pp_option opts[] = {
		PP_OPT_COUNT('1', NULL, &c.b1, "8-bit values"),
		PP_OPT_COUNT('2', NULL, &c.b2, "16-bit values"),
		PP_OPT_COUNT('4', NULL, &c.b4, "32-bit values"),
		PP_OPT_COUNT('8', NULL, &c.b8, "64-bit values (the default)"),
		PP_OPT_BOOL(0, "string", &c.string, "a NUL-terminated string"),
		PP_OPT_STRING(0, "kcore", &c.kcore, "file",
			      "an ELF core to read instead of " KCORE_PROC),
		PP_OPT_STRING(0, "kallsyms", &c.kallsyms, "file",
			      "symbols from this file instead of " REC_KALLSYMS_PROC),
		PP_OPT_COUNT('v', "verbose", &verbose, "accepted (perf-prof's option)"),
		PP_OPT_COUNT('q', "quiet", &quiet, "accepted (perf-prof's option)"),
		PP_OPT_END(),
	};

	pp_progname = "pp kcore";
	if (pp_help_man(stdout, argc - 1, argv + 1, kcore_usage, opts, kcore_help))
		return 0;	/* pp(1)'s part (make man) */
	n = pp_parse_options(argc - 1, argv + 1, opts, 0, err, sizeof(err));
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, kcore_usage, opts);
		fputs(kcore_help, stdout);
		return 0;
	}
	if (n < 0) {
		pp_err("%s (see pp kcore --help)", err);
		return 2;
	}
	argv++;
	c.bytes = c.b8 ? 8 : c.b4 ? 4 : c.b2 ? 2 : c.b1 ? 1 : 8;
	if (n < 1 || n > 2) {
		pp_err(n < 1 ? "<kaddr|symbol> needs to be specified (see pp kcore --help)"
			     : "too many arguments: <kaddr|symbol> [count] (see pp kcore --help)");
		return 2;
	}
	if (n == 2 && (!parse_u64(argv[1], 0, &count) || !count || count > KCORE_COUNT_MAX)) {
		pp_err("bad count '%s': expected a number from 1 to %llu", argv[1],
		       (unsigned long long)KCORE_COUNT_MAX);
		return 2;
	}
	c.path = c.kcore;
	rc = rec_kcore_open(c.kcore, &c.k);
	if (rc == -ENOENT && !strcmp(c.kcore, KCORE_PROC)) {
		/* under perf-prof's name, as perf-prof: a line on stdout, exit 0 (its scripts) */
		if (getenv(PP_ENV_PERF_PROF_ERRORS)) {
			printf("%s is missing: this kernel is built without CONFIG_PROC_KCORE\n",
			       KCORE_PROC);
			return 0;
		}
		pp_err("%s is missing: this kernel is built without CONFIG_PROC_KCORE "
		       "(--kcore FILE reads a saved ELF core instead)", KCORE_PROC);
		return 2;
	}
	if (rc == -EACCES || rc == -EPERM) {
		pp_err("cannot open %s: %s (reading kernel memory needs root: CAP_SYS_RAWIO)",
		       c.kcore, strerror(-rc));
		return 2;
	}
	if (rc == PP_EBAD_MAGIC || rc == PP_ETRUNCATED) {
		pp_err("'%s' is not a 64-bit little-endian ELF core file%s", c.kcore,
		       rc == PP_ETRUNCATED ? " (its program headers are cut off)" : "");
		return 2;
	}
	if (rc) {
		pp_err("cannot open '%s': %s", c.kcore, pp_strerror(rc));
		return 2;
	}
	rc = resolve(&c, argv[0], &kaddr);
	if (!rc)
		rc = c.string ? dump_string(&c, kaddr) : dump_hex(&c, kaddr, count);
	fflush(stdout);
	rec_kcore_close(&c.k);
	return rc;
}
