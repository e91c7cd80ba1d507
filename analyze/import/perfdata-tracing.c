/* SPDX-License-Identifier: MIT */
/*
 * perfdata-tracing.c - the tracing data of a perf.data (feature TRACING_DATA, or the
 * HEADER_TRACING_DATA record of pipe mode): the tracefs format files of the recorded
 * tracepoints, which become the capture's EVENT_DESC formats so that their fields
 * decode as those of pp-record's own.
 *
 * Layout (perf's trace-event-info): "\x17\x08\x44tracing", a NUL-terminated version,
 * u8 big-endian, u8 long size, u32 page size; "header_page\0" u64 size + text;
 * "header_event\0" u64 size + text; u32 count of ftrace formats, each u64 size + text;
 * u32 count of systems, each a NUL-terminated name, u32 count, each u64 size + text;
 * then kallsyms, printk formats and saved cmdlines, not carried over (perf writes no
 * kallsyms there).  Not here: which event a format belongs to (perfdata.c).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyze/import/perfdata.h"

struct cur {
	const uint8_t *p;
	size_t left;
};

static int take(struct cur *c, void *out, size_t n)
{
	if (c->left < n)
		return -1;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

/* A NUL-terminated string of the data. Return: it, or NULL when it runs past. */
static const char *take_str(struct cur *c)
{
	const char *s = (const char *)c->p;
	size_t n = strnlen(s, c->left);

	if (n == c->left)
		return NULL;
	c->p += n + 1;
	c->left -= n + 1;
	return s;
}

/* A format text: its "ID:" and "name:" lines, kept under @sys. */
static int add_format(struct pd_file *f, const char *sys, const uint8_t *text, size_t n)
{
	struct pd_format *fm;
	const char *id, *name;
	char *t;

	if (f->nr_formats >= PD_MAX_FORMATS)
		return 0;
	t = strndup((const char *)text, n);
	if (!t)
		return pd_set_err(f, "out of memory");
	id = strstr(t, "\nID: ");
	name = !strncmp(t, "name: ", 6) ? t + 6 : NULL;
	if (!id || !name) {
		free(t);	/* not a format file: no event can use it */
		return 0;
	}
	f->formats = realloc(f->formats, (f->nr_formats + 1) * sizeof(*f->formats));
	if (!f->formats) {
		free(t);
		return pd_set_err(f, "out of memory");
	}
	fm = &f->formats[f->nr_formats++];
	fm->id = (uint32_t)strtoul(id + 5, NULL, 10);
	fm->text = t;
	snprintf(fm->name, sizeof(fm->name), "%s:%.*s", sys, (int)strcspn(name, "\n"), name);
	return 0;
}

/* @nr format files of system @sys, each u64 size + text. */
static int formats(struct pd_file *f, struct cur *c, const char *sys, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t sz;

		if (take(c, &sz, 8) || sz > c->left)
			return pd_set_err(f, "tracing data: format %u of '%s' runs past the data", i, sys);
		if (add_format(f, sys, c->p, (size_t)sz))
			return -1;
		c->p += sz;
		c->left -= sz;
	}
	return 0;
}

/* "header_page\0" or "header_event\0", u64 size, text. */
static int header_file(struct pd_file *f, struct cur *c, const char *what, char **keep)
{
	const char *name = take_str(c);
	uint64_t sz;

	if (!name || strcmp(name, what) || take(c, &sz, 8) || sz > c->left)
		return pd_set_err(f, "tracing data: no %s", what);
	if (keep && !*keep)
		*keep = strndup((const char *)c->p, (size_t)sz);
	c->p += sz;
	c->left -= sz;
	return 0;
}

int pd_tracing_data(struct pd_file *f, const uint8_t *p, size_t sz)
{
	struct cur c = { p, sz };
	uint8_t big, long_sz;
	uint32_t page, nr;

	f->have_tracing = true;
	if (sz > PD_MAX_TRACING)
		return pd_set_err(f, "tracing data of %zu bytes", sz);
	if (take(&c, NULL, 10) || memcmp(p, "\x17\x08\x44tracing", 10) || !take_str(&c))
		return pd_set_err(f, "tracing data: bad magic");
	if (take(&c, &big, 1) || take(&c, &long_sz, 1) || take(&c, &page, 4))
		return pd_set_err(f, "tracing data: cut off");
	if (big)
		return pd_set_err(f, "tracing data: big-endian, not supported");
	f->page_size = page;
	if (header_file(f, &c, "header_page", &f->header_page) ||
	    header_file(f, &c, "header_event", NULL))
		return -1;
	if (take(&c, &nr, 4) || formats(f, &c, "ftrace", nr))
		return pd_set_err(f, "tracing data: ftrace formats cut off");
	if (take(&c, &nr, 4))
		return pd_set_err(f, "tracing data: cut off before the event formats");
	for (uint32_t i = 0; i < nr; i++) {
		const char *sys = take_str(&c);
		uint32_t n;

		if (!sys || take(&c, &n, 4))
			return pd_set_err(f, "tracing data: system %u cut off", i);
		if (formats(f, &c, sys, n))
			return -1;
	}
	return 0;
}

const struct pd_format *pd_format_of(const struct pd_file *f, uint32_t id)
{
	for (size_t i = 0; i < f->nr_formats; i++)
		if (f->formats[i].id == id)
			return &f->formats[i];
	return NULL;
}

/* A small file of tracefs into @buf (NUL-terminated). Return: its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sz - 1);

	if (fd >= 0)
		close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The event of tracefs @root whose id is @id: its format added to @f's. Return: found. */
static bool find_local(struct pd_file *f, const char *root, uint32_t id)
{
	DIR *top = opendir(root);
	struct dirent *sys, *ev;
	char path[1024], buf[65536];
	bool found = false;

	while (top && !found && (sys = readdir(top))) {
		DIR *d;

		if (sys->d_name[0] == '.' || snprintf(path, sizeof(path), "%s/%s", root,
						       sys->d_name) >= (int)sizeof(path))
			continue;
		if (!(d = opendir(path)))
			continue;
		while (!found && (ev = readdir(d))) {
			if (ev->d_name[0] == '.' ||
			    snprintf(path, sizeof(path), "%s/%s/%s/id", root, sys->d_name,
				     ev->d_name) >= (int)sizeof(path) ||
			    read_small(path, buf, 32) <= 0 || strtoul(buf, NULL, 10) != id)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/format", root, sys->d_name, ev->d_name);
			ssize_t n = read_small(path, buf, sizeof(buf));
			found = n > 0 && !add_format(f, sys->d_name, (const uint8_t *)buf, (size_t)n) &&
				pd_format_of(f, id);
		}
		closedir(d);
	}
	if (top)
		closedir(top);
	return found;
}

const struct pd_format *pd_local_format(struct pd_file *f, uint32_t id)
{
	struct utsname u;

	uname(&u);
	if (f->have_tracing || f->info->offline || (f->osrelease[0] && strcmp(f->osrelease, u.release)))
		return NULL;	/* the file has its formats, or was made by another kernel */
	if (!find_local(f, "/sys/kernel/tracing/events", id) &&
	    !find_local(f, "/sys/kernel/debug/tracing/events", id))
		return NULL;
	ana_import_lack(f->info, "no tracing data in the file: tracepoint formats taken from this "
			"machine's tracefs by id (right only if it runs the recording kernel)");
	return pd_format_of(f, id);
}
