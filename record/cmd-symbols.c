/* SPDX-License-Identifier: MIT */
/*
 * cmd-symbols.c - `pp-record --symbols BIN`: perf-prof's address lookup on this machine.
 *
 * Reads /proc/PID/maps lines from stdin (the executable, file-backed mappings are kept),
 * then one item a line: "0xADDR" prints the function covering that address of the
 * process as "name+0xOFF" ("??" when none), a function name of BIN prints its file
 * offset ("0xOFF", nothing when BIN has no such function).  Symbol tables come from
 * symbols/elfsyms.c (the binary, or its debug file by build id), so a hostile file is an error,
 * never a crash.  Of several names at one address, the one with the fewest leading
 * underscores is printed (fcntl64, not __libc_fcntl64), as perf-prof prints it.
 * `pp --symbols` and `perf-prof --symbols` come here; with @quiet_errors (the name
 * perf-prof) an unreadable binary prints nothing and exits 0, as perf-prof does.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "record/record.h"
#include "record/symbols/elfsyms.h"

struct sym_file {
	char *path;
	struct rec_elfsyms *es;
};

struct sym_map {
	uint64_t start, end, pgoff;
	size_t file;
};

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/* The function of @es covering ELF address @vaddr (its best-named alias), or NULL. */
static const struct rec_elfsym *sym_find(const struct rec_elfsyms *es, uint64_t vaddr)
{
	size_t lo = 0, hi = es->nr_syms;
	const struct rec_elfsym *best;

	while (lo < hi) {	/* the first symbol starting after @vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	best = &es->syms[lo - 1];
	for (size_t i = lo - 1; i-- > 0 && es->syms[i].start == best->start;)
		if (underscores(es->syms[i].name) < underscores(best->name))
			best = &es->syms[i];
	return vaddr - best->start < best->size ? best : NULL;
}

static int load_fail(const char *path, int err, bool quiet_errors)
{
	char buf[4096];

	if (quiet_errors) {	/* answer nothing, but take the input: the writer sees no EPIPE */
		while (fread(buf, 1, sizeof(buf), stdin) > 0)
			;
		return 0;
	}
	pp_err("--symbols: cannot read '%s': %s", path,
	       err == -ENOEXEC ? "not an ELF file" : strerror(-err));
	return 2;
}

static void print_addr(const struct sym_file *files, const struct sym_map *maps, size_t nmaps,
		       uint64_t addr)
{
	for (size_t i = 0; i < nmaps; i++) {
		const struct rec_elfsyms *es = files[maps[i].file].es;
		const struct rec_elfsym *fn;
		uint64_t vaddr;

		if (addr < maps[i].start || addr >= maps[i].end || !es)
			continue;
		vaddr = addr - maps[i].start + maps[i].pgoff - es->text_offset + es->text_vaddr;
		fn = sym_find(es, vaddr);
		if (fn) {
			printf("%s+0x%llx\n", fn->name, (unsigned long long)(vaddr - fn->start));
			return;
		}
	}
	printf("??\n");
}

static void print_offset(const struct rec_elfsyms *bin, const char *name)
{
	for (size_t i = 0; i < bin->nr_syms; i++)
		if (!strcmp(bin->syms[i].name, name)) {
			printf("0x%llx\n", (unsigned long long)(bin->syms[i].start - bin->text_vaddr +
								bin->text_offset));
			return;
		}
}

int cmd_symbols(const char *binpath, bool quiet_errors)
{
	struct rec_elfsyms *bin = NULL;
	struct sym_file *files = NULL;
	struct sym_map *maps = NULL;
	size_t nfiles = 0, nmaps = 0;
	char line[PATH_MAX + 256];
	int rc = rec_elfsyms_load(binpath, &bin);
	bool have;

	if (rc)
		return load_fail(binpath, rc, quiet_errors);
	have = fgets(line, sizeof(line), stdin) != NULL;
	/* the maps lines: executable, file-backed mappings */
	for (; have; have = fgets(line, sizeof(line), stdin) != NULL) {
		unsigned long long start, end, off, inode;
		unsigned maj, min;
		char perm[5], *name;
		int pos = 0;
		size_t f;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, perm, &off, &maj,
			   &min, &inode, &pos) != 7 || !pos)
			break;
		name = line + pos + strspn(line + pos, " \t");
		name[strcspn(name, "\n")] = '\0';
		if (strlen(perm) < 3 || perm[2] != 'x' || name[0] != '/' || end <= start)
			continue;
		for (f = 0; f < nfiles && strcmp(files[f].path, name); f++)
			;
		if (f == nfiles) {
			struct rec_elfsyms *es = NULL;
			int err = rec_elfsyms_load(name, &es);

			if (err && !nmaps) {	/* as perf-prof: the first file must load */
				rc = load_fail(name, err, quiet_errors);
				goto out;
			}
			files = pp_xrealloc(files, (nfiles + 1) * sizeof(*files));
			files[nfiles++] = (struct sym_file){ pp_xstrdup(name), err ? NULL : es };
		}
		maps = pp_xrealloc(maps, (nmaps + 1) * sizeof(*maps));
		maps[nmaps++] = (struct sym_map){ start, end, off, f };
	}
	/* then the items */
	for (; have; have = fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0x", 2) && isxdigit((unsigned char)line[2]))
			print_addr(files, maps, nmaps, strtoull(line + 2, NULL, 16));
		else
			print_offset(bin, line);
	}
	if (fflush(stdout) || ferror(stdout)) {
		pp_err("--symbols: cannot write the output: %s", strerror(errno));
		rc = 2;
	}
out:
	for (size_t i = 0; i < nfiles; i++) {
		rec_elfsyms_free(files[i].es);
		free(files[i].path);
	}
	free(files);
	free(maps);
	rec_elfsyms_free(bin);
	return rc;
}
