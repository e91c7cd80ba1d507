/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - host, topology, tasks, maps, syscalls and kallsyms at start.
 *
 * Everything here reads /proc and /sys before the poll loop starts.  Thread
 * names are read before the events are enabled and again after: a thread
 * that exits right after the enable keeps the name it had, though it is
 * gone by the time the snapshot is written.  Maps of a task that exits
 * while we read them are skipped silently.  The syscall
 * table comes from <asm/unistd.h> of the build machine, turned into an
 * X-macro list by a Makefile rule (build/gen/syscalls.h, included from -I$(O)).
 * Not here: what changes afterwards (sideband.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "format/format.h"
#include "record/ftrace/ftrace.h"
#include "record/ring/prod.h"
#include "record/session.h"
#include "record/symbols/blockdev.h"
#include "format/ksym.h"
#include "record/symbols/kallsyms.h"
#include "record/symbols/snapshot.h"
#include "record/symbols/symbols.h"
#include "record/symbols/tasks.h"

/* Read a small file into @buf; trailing newline removed.  Return: length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, tot = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)tot + 1 < sz && (n = read(fd, buf + tot, sz - 1 - (size_t)tot)) > 0)
		tot += n;
	close(fd);
	buf[tot] = '\0';
	while (tot > 0 && buf[tot - 1] == '\n')
		buf[--tot] = '\0';
	return tot;
}

static int kv_file(struct ppf_writer *w, const char *key, const char *path)
{
	char v[4096];

	if (read_small(path, v, sizeof(v)) < 0)
		return 0;
	return ppf_write_kv(w, key, v);
}

#define CPUDIR "/sys/devices/system/cpu"

static int topology(struct rec_session *s)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int rc = 0;

	for (long c = 0; c < ncpu && !rc; c++) {
		char p[256], key[128], level[16], type[32], v[1024];

		snprintf(p, sizeof(p), "%s/cpu%ld/topology/thread_siblings_list", CPUDIR, c);
		snprintf(key, sizeof(key), "topology.cpu%ld.thread_siblings", c);
		rc = kv_file(s->w, key, p);
		snprintf(p, sizeof(p), "%s/cpu%ld/topology/core_siblings_list", CPUDIR, c);
		snprintf(key, sizeof(key), "topology.cpu%ld.core_siblings", c);
		if (!rc)
			rc = kv_file(s->w, key, p);
		snprintf(p, sizeof(p), "%s/cpu%ld/topology/physical_package_id", CPUDIR, c);
		snprintf(key, sizeof(key), "topology.cpu%ld.package", c);
		if (!rc)
			rc = kv_file(s->w, key, p);
		for (int i = 0; i < 16 && !rc; i++) {
			snprintf(p, sizeof(p), "%s/cpu%ld/cache/index%d/level", CPUDIR, c, i);
			if (read_small(p, level, sizeof(level)) < 0)
				break;
			snprintf(p, sizeof(p), "%s/cpu%ld/cache/index%d/type", CPUDIR, c, i);
			if (read_small(p, type, sizeof(type)) < 0)
				type[0] = '\0';
			snprintf(p, sizeof(p), "%s/cpu%ld/cache/index%d/shared_cpu_list", CPUDIR, c,
				 i);
			if (read_small(p, v, sizeof(v)) < 0)
				continue;
			snprintf(key, sizeof(key), "topology.cpu%ld.L%s%s", c, level,
				 !strcmp(type, "Data") ? "d"
				 : !strcmp(type, "Instruction") ? "i" : "");
			rc = ppf_write_kv(s->w, key, v);
		}
	}
	return rc;
}

/*
 * What the events cover, for `pp-analyze FILE check` and an analyzer's warning: the
 * target kind (a per-task recording keeps only what the followed tasks emit, so the
 * switches into them are missing) and the --duration asked (a shorter capture ended early).
 */
static int target_kvs(struct rec_session *s)
{
	static const char *const kinds[] = {
		[REC_TGT_SYSTEM] = "system", [REC_TGT_THREADS] = "threads",
		[REC_TGT_CGROUP] = "cgroup", [REC_TGT_WORKLOAD] = "workload",
	};
	char v[32];
	int rc = ppf_write_kv(s->w, "record.target", kinds[s->tgt.kind]);

	if (!rc && s->opts.duration_ns) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)s->opts.duration_ns);
		rc = ppf_write_kv(s->w, "record.duration_ns", v);
	}
	return rc;
}

int rec_snapshot_host(struct rec_session *s)
{
	struct utsname u;
	char v[256], host[256];
	struct kv {
		const char *key;
		const char *value;
	} kv[16];
	size_t n = 0;
	int rc = 0;
	char online[32], possible[32], page[32], start[32], startiso[64];
	time_t secs = (time_t)(s->start_real_ns / 1000000000ull);
	struct tm tm;

	uname(&u);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "%s", u.nodename);
	snprintf(online, sizeof(online), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(possible, sizeof(possible), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	snprintf(page, sizeof(page), "%ld", sysconf(_SC_PAGESIZE));
	snprintf(start, sizeof(start), "%llu", (unsigned long long)s->start_real_ns);
	gmtime_r(&secs, &tm);
	strftime(startiso, sizeof(startiso), "%Y-%m-%dT%H:%M:%SZ", &tm);

	kv[n++] = (struct kv){ "hostname", host };
	kv[n++] = (struct kv){ "release", u.release };
	kv[n++] = (struct kv){ "version", u.version };
	kv[n++] = (struct kv){ "machine", u.machine };
	kv[n++] = (struct kv){ "nr_cpus_online", online };
	kv[n++] = (struct kv){ "nr_cpus_possible", possible };
	kv[n++] = (struct kv){ "page_size", page };
	kv[n++] = (struct kv){ "clock", "monotonic" };
	kv[n++] = (struct kv){ "pp_version", REC_PP_VERSION };
	kv[n++] = (struct kv){ "cmdline", s->opts.cmdline ? s->opts.cmdline : "" };
	kv[n++] = (struct kv){ "start_realtime_ns", start };
	kv[n++] = (struct kv){ "start_time", startiso };
	for (size_t i = 0; i < n && !rc; i++)
		rc = ppf_write_kv(s->w, kv[i].key, kv[i].value);
	if (!rc)
		rc = kv_file(s->w, "cpus_online", "/sys/devices/system/cpu/online");
	if (!rc)
		rc = kv_file(s->w, "clocksource",
			     "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	/* the lockup detector's settings (watchdog): a few bytes, read whatever is recorded */
	static const char *const sysctls[] = { "watchdog", "watchdog_thresh", "watchdog_cpumask",
					       "soft_watchdog", "nmi_watchdog" };
	for (size_t i = 0; i < PP_ARRAY_SIZE(sysctls) && !rc; i++) {
		char key[64], path[96];

		snprintf(key, sizeof(key), "sysctl.kernel.%s", sysctls[i]);
		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", sysctls[i]);
		rc = kv_file(s->w, key, path);
	}
	if (!rc) {
		struct pp_buf b = PP_BUF_INIT;

		for (size_t i = 0; i < s->tgt.nr_cpus; i++)
			if (!s->tgt.sideband_only || !s->tgt.sideband_only[i])
				pp_buf_addf(&b, "%s%d", b.len ? "," : "", s->tgt.cpus[i]);
		rc = ppf_write_kv(s->w, "record.cpus", pp_buf_str(&b));
		pp_buf_release(&b);
	}
	if (!rc)
		rc = target_kvs(s);
	if (!rc && s->tfs.root)
		rc = ppf_write_kv(s->w, "tracefs", s->tfs.root);
	if (!rc && s->tfs.root) {
		char *hp = NULL;

		if (!rec_tracefs_read_dup(&s->tfs, "events/header_page", &hp))
			rc = ppf_write_kv(s->w, "tracefs.header_page", hp);
		free(hp);
	}
	snprintf(v, sizeof(v), "%d", s->opts.mmap_pages);
	if (!rc)
		rc = ppf_write_kv(s->w, "record.mmap_pages", v);
	if (!rc && s->ctr) {	/* what an analyzer re-bins counter readings by */
		snprintf(v, sizeof(v), "%llu", (unsigned long long)s->opts.count_period);
		rc = ppf_write_kv(s->w, "record.count_period_ns", v);
		if (!rc)
			rc = ppf_write_kv(s->w, "record.count_mode",
					  s->opts.count_leader ? "leader" : "timer");
	}
	if (!rc)
		rc = topology(s);
	if (!rc)
		rc = rec_blockdev_snapshot(s->w);
	return rc;
}

/* --- tasks and maps ----------------------------------------------------- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int proc_maps(struct rec_session *s, uint32_t pid)
{
	char path[64], line[4096 + 256];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		char perms[8], dev[16];
		int pos = 0;
		struct ppf_mmap m = { .time_ns = s->start_ns, .pid = pid, .tid = pid };
		char *file, *nl;

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev,
			   &ino, &pos) < 6 || !pos)
			continue;
		if (perms[2] != 'x')
			continue;
		file = line + pos;
		nl = strchr(file, '\n');
		if (nl)
			*nl = '\0';
		if (file[0] != '/' && strcmp(file, "[vdso]"))
			continue;
		m.addr = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 PROT_EXEC;
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		m.path = file;
		rec_symbols_map(s->syms, pid, m.addr, m.len, m.pgoff, file, NULL, 0);
		rc = ppf_write_mmap(s->w, &m);
		s->nr_maps++;
	}
	fclose(f);
	return rc;
}

static uint32_t status_ppid(uint32_t pid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nPPid:");
	return p ? (uint32_t)strtoul(p + 6, NULL, 10) : 0;
}

/* One thread as /proc showed it; the cmdline is shared by a process's threads. */
struct task_snap {
	uint32_t pid, tid, ppid;
	char comm[16];
	const char *cmdline;		/* owned by the list's first thread of the process */
	bool owns_cmdline;
};

struct rec_task_list {
	struct task_snap *v;
	size_t n, cap;
};

static void list_free(struct rec_task_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].owns_cmdline)
			free((char *)l->v[i].cmdline);
	free(l->v);
	free(l);
}

static void list_process(struct rec_task_list *l, uint32_t pid)
{
	char path[64], cmdline[4096], comm[64];
	const char *cl = NULL;
	ssize_t n;
	uint32_t ppid = status_ppid(pid);
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	n = read_small(path, cmdline, sizeof(cmdline));
	if (n < 0)
		return;
	for (ssize_t i = 0; i < n; i++)
		if (!cmdline[i])
			cmdline[i] = ' ';
	while (n > 0 && cmdline[n - 1] == ' ')
		cmdline[--n] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct task_snap *t;
		char cp[96];
		uint32_t tid;

		if (!all_digits(de->d_name))
			continue;
		tid = (uint32_t)strtoul(de->d_name, NULL, 10);
		snprintf(cp, sizeof(cp), "/proc/%u/task/%u/comm", pid, tid);
		if (read_small(cp, comm, sizeof(comm)) < 0)
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->v = pp_xrealloc(l->v, l->cap * sizeof(*l->v));
		}
		t = &l->v[l->n++];
		t->pid = pid;
		t->tid = tid;
		t->ppid = ppid;
		snprintf(t->comm, sizeof(t->comm), "%.15s", comm);
		t->owns_cmdline = !cl;
		if (!cl)
			cl = pp_xstrdup(cmdline);
		t->cmdline = cl;
	}
	closedir(d);
}

/* The processes of /proc, in its order. */
static uint32_t *proc_pids(size_t *nr)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;

	if (d) {
		while ((de = readdir(d))) {
			if (!all_digits(de->d_name))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 512;
				v = pp_xrealloc(v, cap * sizeof(*v));
			}
			v[n++] = (uint32_t)strtoul(de->d_name, NULL, 10);
		}
		closedir(d);
	}
	*nr = n;
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct task_snap *)a)->tid, y = ((const struct task_snap *)b)->tid;

	return x < y ? -1 : x > y;
}

/*
 * Every thread of /proc: comms only, no maps, so that it is quick.  With
 * @known (the early list), the processes it does not hold come first: they
 * started around the enable and may be about to exit.  @only_new: only those.
 */
static struct rec_task_list *list_tasks(const struct rec_task_list *known, bool only_new)
{
	struct rec_task_list *l = pp_xcalloc(1, sizeof(*l));
	size_t n, nk = 0;
	uint32_t *pids = proc_pids(&n), *kp = NULL;

	if (known && known->n) {
		kp = pp_xcalloc(known->n, sizeof(*kp));
		for (size_t i = 0; i < known->n; i++)
			kp[nk++] = known->v[i].pid;
		qsort(kp, nk, sizeof(*kp), cmp_u32);
	}
	for (int pass = kp ? 0 : 1; pass < (only_new ? 1 : 2); pass++)
		for (size_t i = 0; i < n; i++) {
			bool old = kp && bsearch(&pids[i], kp, nk, sizeof(*kp), cmp_u32);

			if (pass == 0 ? !old : (!kp || old))
				list_process(l, pids[i]);
		}
	free(kp);
	free(pids);
	return l;
}

static int write_task(struct rec_session *s, const struct task_snap *t)
{
	struct ppf_task pt = { .pid = t->pid, .tid = t->tid, .ppid = t->ppid, .comm = t->comm,
			       .cmdline = t->cmdline };

	s->nr_tasks++;
	if (s->prod && s->prod->tasks)
		rec_tasks_set(s->prod->tasks, t->pid, t->tid, t->ppid, t->comm);
	rec_ftrace_task(s, t->pid, t->tid);
	return ppf_write_task(s->w, &pt);
}

void rec_snapshot_early_tasks(struct rec_session *s)
{
	struct rec_task_list *l = list_tasks(NULL, false), *more;

	/* the processes that started while we read: this second look is short */
	more = list_tasks(l, true);
	for (size_t i = 0; i < more->n; i++) {
		if (l->n == l->cap) {
			l->cap = 2 * l->cap + 1;
			l->v = pp_xrealloc(l->v, l->cap * sizeof(*l->v));
		}
		l->v[l->n++] = more->v[i];	/* the cmdline moves with it */
	}
	more->n = 0;
	list_free(more);
	list_free(s->early_tasks);
	s->early_tasks = l;
}

void rec_snapshot_free(struct rec_session *s)
{
	list_free(s->early_tasks);
	s->early_tasks = NULL;
}

int rec_snapshot_tasks(struct rec_session *s)
{
	struct rec_task_list *early = s->early_tasks, *now = list_tasks(early, false);
	int rc = 0;

	for (size_t i = 0; i < now->n && !rc; i++)
		rc = write_task(s, &now->v[i]);
	/*
	 * Threads that were there before the events were enabled and are gone
	 * now exited after the enable or in the moment before it: keep their
	 * names, their samples may be in the capture (no FORK or COMM record
	 * names them).
	 */
	if (early && now->n) {
		struct task_snap *sorted = pp_xcalloc(now->n, sizeof(*sorted));

		memcpy(sorted, now->v, now->n * sizeof(*sorted));
		qsort(sorted, now->n, sizeof(*sorted), cmp_tid);
		for (size_t i = 0; i < early->n && !rc; i++)
			if (!bsearch(&early->v[i], sorted, now->n, sizeof(*sorted), cmp_tid))
				rc = write_task(s, &early->v[i]);
		free(sorted);
	} else if (early) {
		for (size_t i = 0; i < early->n && !rc; i++)
			rc = write_task(s, &early->v[i]);
	}
	/* then the maps, which take longer: the names are safe by now */
	for (size_t i = 0; i < now->n && !rc; i++)
		if (now->v[i].owns_cmdline)
			rc = proc_maps(s, now->v[i].pid);
	list_free(now);
	rec_snapshot_free(s);
	return rc;
}

/* --- syscalls ----------------------------------------------------------- */

static const struct {
	uint32_t nr;
	const char *name;
} syscall_table[] = {
#define REC_SYSCALL(nr, name) { nr, #name },
#include "gen/syscalls.h"
#undef REC_SYSCALL
};

int rec_snapshot_syscalls(struct rec_session *s)
{
	int rc = 0;

	for (size_t i = 0; i < PP_ARRAY_SIZE(syscall_table) && !rc; i++)
		rc = ppf_write_syscall(s->w, syscall_table[i].nr, syscall_table[i].name);
	return rc;
}

/* --- kallsyms ----------------------------------------------------------- */

/* Write @k unless it is not a text symbol; *@any when the kernel shows addresses. */
static int ksym_write(struct rec_session *s, const struct ppf_ksym *k, bool *any)
{
	if (k->type != 't' && k->type != 'T' && k->type != 'w' && k->type != 'W')
		return 0;
	if (!k->addr)
		return 0;
	*any = true;
	/*
	 * __pfx_NAME is the 16-byte padding before NAME on kernels built with
	 * call padding: half of all text symbols, never a useful answer.
	 */
	if (!strncmp(k->name, "__pfx_", 6))
		return 0;
	s->nr_ksyms++;
	return ppf_write_ksym(s->w, k);
}

int rec_snapshot_kallsyms(struct rec_session *s)
{
	enum { KS_BUF = 256 << 10 };
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t have = 0;
	bool any = false;
	int rc = 0;

	if (fd < 0)
		return 0;
	buf = pp_xmalloc(KS_BUF + 1);
	for (;;) {
		ssize_t got = read(fd, buf + have, KS_BUF - have);
		char *l = buf, *nl, *end;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (have)	/* a last line without its newline */
				buf[have++] = '\n';
			else
				break;
		}
		have += got > 0 ? (size_t)got : 0;
		end = buf + have;
		while (!rc && (nl = memchr(l, '\n', (size_t)(end - l)))) {
			struct ppf_ksym k;

			if (ppf_ksym_parse(l, (size_t)(nl - l), &k))
				rc = ksym_write(s, &k, &any);
			l = nl + 1;
		}
		if (rc || got <= 0)
			break;
		have = (size_t)(end - l);
		if (have == KS_BUF)	/* a line longer than the buffer: dropped */
			have = 0;
		memmove(buf, l, have);
	}
	free(buf);
	close(fd);
	if (!rc && !any && !s->user_only)	/* user space only: no kernel address to resolve */
		pp_warn("kernel symbols are hidden (kptr_restrict): kernel addresses will not resolve");
	return rc;
}
