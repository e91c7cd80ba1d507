/* SPDX-License-Identifier: MIT */
/*
 * tracefs.c - locating, mounting and using tracefs.
 *
 * Files are read with plain read(2) loops: tracefs files report size 0, so
 * stat-then-read does not work.  Control files (uprobe_events) are opened
 * with O_APPEND so existing probes of other tools are never truncated.
 * Every read and write is one call of common/sys.h's seam (tracefs_read,
 * tracefs_write), where tests make it fail.
 * Not here: the meaning of events (evsel.c) or probe definitions (uprobe.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/sys.h"
#include "record/err.h"
#include "record/ftrace/tracefs.h"

static bool has_events(const char *root)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", root);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int rec_tracefs_open(struct rec_tracefs *t, char *msg, size_t msg_sz)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	if (t->root)
		return 0;
	if (t->err)
		return t->err;
	for (size_t i = 0; i < PP_ARRAY_SIZE(roots); i++) {
		if (has_events(roots[i])) {
			t->root = pp_xstrdup(roots[i]);
			return 0;
		}
	}
	/* mounted but closed to this user (tracefs is root's, mode 700, by default) */
	if (geteuid() != 0 && access(roots[0], R_OK | X_OK) && errno == EACCES) {
		t->err = -EACCES;
		snprintf(msg, msg_sz, "tracefs (%s) is not open to this user: tracepoints and "
			 "probes need root, or read and write access to tracefs", roots[0]);
		return t->err;
	}
	if (mount("nodev", roots[0], "tracefs", 0, NULL) == 0) {
		if (has_events(roots[0])) {
			t->root = pp_xstrdup(roots[0]);
			t->mounted = true;
			return 0;
		}
		t->err = -ENOENT;
	} else {
		t->err = -errno;
	}
	snprintf(msg, msg_sz, "tracefs is not mounted and cannot be mounted on %s: %s",
		 roots[0], strerror(-t->err));
	return t->err;
}

int rec_tracefs_need(struct rec_tracefs *t, char *msg, size_t msg_sz)
{
	char m[512];
	int rc;

	if (t->root)
		return 0;
	rc = rec_tracefs_open(t, m, sizeof(m));
	if (rc)
		return rec_errf(msg, msg_sz, rc, "%s", m);
	if (t->mounted)
		pp_info("mounted tracefs on %s", t->root);
	return 0;
}

void rec_tracefs_release(struct rec_tracefs *t)
{
	free(t->root);
	t->root = NULL;
}

static void path_of(const struct rec_tracefs *t, const char *rel, char *p, size_t sz)
{
	snprintf(p, sz, "%s/%s", t->root, rel);
}

int rec_tracefs_read_dup(const struct rec_tracefs *t, const char *rel, char **out)
{
	struct pp_buf b = PP_BUF_INIT;
	char p[512];
	int fd;

	path_of(t, rel, p, sizeof(p));
	if (pp_sys_check(PP_SYS_TRACEFS_READ) > 0)
		return -errno;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		pp_buf_grow(&b, 4096);
		n = read(fd, b.data + b.len, b.alloc - b.len - 1);
		if (n < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			close(fd);
			pp_buf_release(&b);
			return err;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
		b.data[b.len] = '\0';
	}
	close(fd);
	*out = pp_buf_detach(&b);
	return 0;
}

int rec_tracefs_append(const struct rec_tracefs *t, const char *rel, const char *text)
{
	char p[512];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	path_of(t, rel, p, sizeof(p));
	if (pp_sys_check(PP_SYS_TRACEFS_WRITE) > 0)
		return -errno;
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

bool rec_tracefs_exists(const struct rec_tracefs *t, const char *rel)
{
	char p[512];

	path_of(t, rel, p, sizeof(p));
	return access(p, F_OK) == 0;
}

int rec_tracefs_event_id(const struct rec_tracefs *t, const char *sys, const char *name,
			 uint32_t *id)
{
	char rel[512], *s;
	int rc;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name);
	rc = rec_tracefs_read_dup(t, rel, &s);
	if (rc)
		return rc;
	*id = (uint32_t)strtoul(s, NULL, 10);
	free(s);
	return *id ? 0 : -EINVAL;
}

static int is_dir_entry(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

int rec_tracefs_for_each_event(const struct rec_tracefs *t, rec_tracefs_event_fn fn, void *arg)
{
	char p[512];
	DIR *top;
	struct dirent *d;
	int rc = 0;

	path_of(t, "events", p, sizeof(p));
	top = opendir(p);
	if (!top)
		return -errno;
	while (!rc && (d = readdir(top))) {
		char sp[768];
		DIR *sd;
		struct dirent *e;

		if (!is_dir_entry(d))
			continue;
		snprintf(sp, sizeof(sp), "%s/%s", p, d->d_name);
		sd = opendir(sp);
		if (!sd)
			continue;
		while (!rc && (e = readdir(sd))) {
			if (!is_dir_entry(e) || !strcmp(e->d_name, "enable") ||
			    !strcmp(e->d_name, "filter"))
				continue;
			if (e->d_type == DT_UNKNOWN) {
				struct stat st;
				char ep[1024];

				snprintf(ep, sizeof(ep), "%s/%s", sp, e->d_name);
				if (stat(ep, &st) || !S_ISDIR(st.st_mode))
					continue;
			}
			rc = fn(d->d_name, e->d_name, arg);
		}
		closedir(sd);
	}
	closedir(top);
	return rc;
}
