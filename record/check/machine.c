/* SPDX-License-Identifier: MIT */
/*
 * machine.c - the machine's lines of `pp-record --check` that files answer:
 * the kernel, the user and capabilities, the perf sysctls, tracefs, probes,
 * BTF, lockdown, cgroups, a container, free space (check.h).
 *
 * Nothing here changes the machine: tracefs is looked for, not mounted.
 * Not here: what perf_event_open() answers (machine-perf.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/sysfile.h"
#include "record/check/check.h"
#include "record/session.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_IPC_LOCK_BIT 14
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The effective capabilities (/proc/self/status CapEff), 0 when unknown. */
static uint64_t cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	uint64_t caps = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return caps;
}

static bool has_cap(int bit)
{
	return (cap_eff() >> bit) & 1;
}

/* Whether perf_event_paranoid limits this process: root, CAP_PERFMON or CAP_SYS_ADMIN lift it. */
static bool perf_privileged(void)
{
	return geteuid() == 0 || has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT);
}

/* The mounted tracefs root, or NULL: /proc/self/mounts, readable whatever tracefs's permissions. */
static const char *tracefs_root(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[512], dir[256], type[64];
	const char *root = NULL;

	while (f && !root && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %63s", dir, type) != 2)
			continue;
		for (size_t i = 0; i < PP_ARRAY_SIZE(tracefs_dirs); i++)
			if (!strcmp(dir, tracefs_dirs[i]) && !strcmp(type, "tracefs"))
				root = tracefs_dirs[i];
	}
	if (f)
		fclose(f);
	return root;
}

static void check_kernel(struct rec_check *c)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u)) {
		rec_check_add(c, "kernel", REC_CHECK_INFO, NULL, "unknown (uname failed)");
		return;
	}
	sscanf(u.release, "%d.%d", &major, &minor);
	if (major > 4 || (major == 4 && minor >= 18))
		rec_check_add(c, "kernel", REC_CHECK_YES, NULL, "Linux %s %s (4.18 or later: docs/kernels.md)",
			      u.release, u.machine);
	else
		rec_check_add(c, "kernel", REC_CHECK_WARN,
			      "docs/kernels.md lists what each interface needs; 4.18 (RHEL 8) is the oldest tested",
			      "Linux %s %s is older than 4.18", u.release, u.machine);
}

static void check_user(struct rec_check *c)
{
	static const struct { int bit; const char *name; } caps[] = {
		{ CAP_PERFMON_BIT, "CAP_PERFMON" }, { CAP_SYS_ADMIN_BIT, "CAP_SYS_ADMIN" },
		{ CAP_BPF_BIT, "CAP_BPF" }, { CAP_IPC_LOCK_BIT, "CAP_IPC_LOCK" },
		{ CAP_SYSLOG_BIT, "CAP_SYSLOG" },
	};
	struct pp_buf b = PP_BUF_INIT;
	uint64_t eff = cap_eff();

	for (size_t i = 0; i < PP_ARRAY_SIZE(caps); i++)
		if ((eff >> caps[i].bit) & 1)
			pp_buf_addf(&b, " %s", caps[i].name);
	if (!b.len)
		pp_buf_adds(&b, " none");
	if (perf_privileged())
		rec_check_add(c, "user", REC_CHECK_YES, NULL,
			      "uid %d, capabilities:%s (CAP_BPF is not used: pp-record loads no BPF)",
			      (int)geteuid(), pp_buf_str(&b));
	else
		rec_check_add(c, "user", REC_CHECK_WARN,
			      "run as root, or: setcap cap_perfmon,cap_ipc_lock,cap_syslog+ep pp-record "
			      "(Linux 5.8+; cap_sys_admin before)",
			      "uid %d without CAP_PERFMON or CAP_SYS_ADMIN, capabilities:%s: "
			      "perf_event_paranoid limits what is recorded", (int)geteuid(),
			      pp_buf_str(&b));
	pp_buf_release(&b);
}

static void check_paranoid(struct rec_check *c)
{
	const char *fix = "sysctl -w kernel.perf_event_paranoid=-1, or run as root (or with CAP_PERFMON)";
	long p;

	if (!pp_read_long("/proc/sys/kernel/perf_event_paranoid", &p)) {
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_NO,
			      "a kernel built with CONFIG_PERF_EVENTS=y",
			      "no /proc/sys/kernel/perf_event_paranoid: this kernel has no perf events");
		return;
	}
	if (perf_privileged())
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_YES, NULL,
			      "%ld (does not limit a privileged user)", p);
	else if (p <= -1)
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_YES, NULL,
			      "%ld: every event, whole CPUs too", p);
	else if (p == 0)
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_WARN, fix,
			      "%ld: tracepoints' raw data needs -1", p);
	else if (p == 1)
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_WARN, fix,
			      "%ld: no whole CPUs (-a), no tracepoints", p);
	else if (p == 2)
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_WARN, fix,
			      "%ld: a task's user space only (no kernel, no tracepoints, no -a)", p);
	else
		rec_check_add(c, "perf_event_paranoid", REC_CHECK_NO, fix,
			      "%ld: perf events refused to unprivileged users", p);
}

static void check_rate(struct rec_check *c, const struct rec_session *s)
{
	uint64_t want = s->opts.freq ? s->opts.freq : 997;
	long max;
	char fix[128];

	if (!pp_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &max)) {
		rec_check_add(c, "perf_event_max_sample_rate", REC_CHECK_INFO, NULL, "unreadable");
		return;
	}
	snprintf(fix, sizeof(fix), "sysctl -w kernel.perf_event_max_sample_rate=%llu, or a lower -F",
		 (unsigned long long)want);
	if ((uint64_t)max >= want) {
		rec_check_add(c, "perf_event_max_sample_rate", REC_CHECK_YES, NULL,
			      "%ld Hz (-F %llu asked)", max, (unsigned long long)want);
		return;
	}
	rec_check_add(c, "perf_event_max_sample_rate", REC_CHECK_NO, fix,
		      "%ld Hz, below the -F %llu asked (the kernel lowers it when sampling takes too long)",
		      max, (unsigned long long)want);
	if (s->opts.freq) {
		char why[160];

		snprintf(why, sizeof(why), "-F %llu is above the kernel's limit of %ld Hz",
			 (unsigned long long)want, max);
		rec_check_fail(c, why, fix);
	}
}

static void check_mlock(struct rec_check *c, const struct rec_session *s)
{
	long kb, page = sysconf(_SC_PAGESIZE);
	int pages = s->opts.mmap_pages > 0 ? s->opts.mmap_pages : REC_DEFAULT_PAGES;
	long need = (long)(pages + 1) * page / 1024;
	char fix[160];

	if (!pp_read_long("/proc/sys/kernel/perf_event_mlock_kb", &kb)) {
		rec_check_add(c, "perf_event_mlock_kb", REC_CHECK_INFO, NULL, "unreadable");
		return;
	}
	if (geteuid() == 0 || has_cap(CAP_IPC_LOCK_BIT)) {
		rec_check_add(c, "perf_event_mlock_kb", REC_CHECK_YES, NULL,
			      "%ld KiB a CPU (root or CAP_IPC_LOCK is not limited; a ring is %ld KiB)",
			      kb, need);
		return;
	}
	snprintf(fix, sizeof(fix), "sysctl -w kernel.perf_event_mlock_kb=%ld, or a smaller -m", need);
	rec_check_add(c, "perf_event_mlock_kb", kb >= need ? REC_CHECK_YES : REC_CHECK_WARN,
		      kb >= need ? NULL : fix,
		      "%ld KiB a CPU; a ring of -m %d is %ld KiB (beyond: RLIMIT_MEMLOCK)", kb, pages,
		      need);
}

static void check_tracefs(struct rec_check *c, const struct rec_session *s)
{
	const char *root = tracefs_root();
	char line[256] = "", p[160];
	FILE *f;
	bool known = false;

	if (s->tfs.mounted) {
		rec_check_add(c, "tracefs", REC_CHECK_YES, NULL,
			      "not mounted; mountable (pp-record mounts it on %s; this check "
			      "unmounts it again)", s->tfs.root);
		return;
	}
	if (root) {
		snprintf(p, sizeof(p), "%s/events", root);
		if (access(p, R_OK | X_OK)) {
			rec_check_add(c, "tracefs", REC_CHECK_WARN,
				      "run as root, or open tracefs to this user (its mount options uid=, gid=, mode=)",
				      "mounted at %s, but not open to this user: no tracepoints or probes",
				      root);
			return;
		}
		snprintf(p, sizeof(p), "%s/instances", root);
		rec_check_add(c, "tracefs", REC_CHECK_YES, NULL, "mounted at %s%s", root,
			      access(p, W_OK) ? " (instances not writable: tracepoints go through perf)" : "");
		return;
	}
	f = fopen("/proc/filesystems", "re");
	while (f && fgets(line, sizeof(line), f))
		known |= strstr(line, "\ttracefs") != NULL;
	if (f)
		fclose(f);
	if (known)
		rec_check_add(c, "tracefs", REC_CHECK_YES, NULL,
			      "not mounted; mountable (pp-record mounts it on /sys/kernel/tracing)");
	else
		rec_check_add(c, "tracefs", REC_CHECK_NO, "a kernel with CONFIG_FTRACE=y (tracefs)",
			      "not mounted, and this kernel has no tracefs: no tracepoints");
}

/* uprobe_events, kprobe_events: what a tracefs file says of a kernel option. */
static void check_probe_file(struct rec_check *c, const char *name, const char *file,
			     const char *config)
{
	const char *root = tracefs_root();
	char p[160], fix[96];

	if (!root) {
		rec_check_add(c, name, REC_CHECK_INFO, NULL, "unknown until tracefs is mounted");
		return;
	}
	snprintf(p, sizeof(p), "%s/events", root);
	if (access(p, R_OK | X_OK)) {
		rec_check_add(c, name, REC_CHECK_INFO, NULL, "unknown: tracefs is not open to this user");
		return;
	}
	snprintf(p, sizeof(p), "%s/%s", root, file);
	snprintf(fix, sizeof(fix), "a kernel with %s=y", config);
	if (!access(p, W_OK))
		rec_check_add(c, name, REC_CHECK_YES, NULL, "%s", p);
	else
		rec_check_add(c, name, access(p, F_OK) ? REC_CHECK_WARN : REC_CHECK_NO, fix,
			      "%s %s", p, access(p, F_OK) ? "absent" : "not writable");
}

static void check_btf(struct rec_check *c)
{
	bool have = !access("/sys/kernel/btf/vmlinux", R_OK);

	rec_check_add(c, "BTF", REC_CHECK_INFO, NULL, "%s (pp-record does not need it)",
		      have ? "/sys/kernel/btf/vmlinux" : "absent");
}

static void check_lockdown(struct rec_check *c)
{
	char line[128];
	const char *sel, *end;

	if (!pp_read_line("/sys/kernel/security/lockdown", line, sizeof(line))) {
		rec_check_add(c, "lockdown", REC_CHECK_YES, NULL,
			      "none (no /sys/kernel/security/lockdown)");
		return;
	}
	sel = strchr(line, '[');
	end = sel ? strchr(sel, ']') : NULL;
	if (!sel || !end || !strncmp(sel, "[none]", 6))
		rec_check_add(c, "lockdown", REC_CHECK_YES, NULL, "none");
	else if (!strncmp(sel, "[integrity]", 11))
		rec_check_add(c, "lockdown", REC_CHECK_YES, NULL,
			      "integrity (debugfs closed: tracefs at /sys/kernel/tracing only)");
	else
		rec_check_add(c, "lockdown", REC_CHECK_NO,
			      "boot with lockdown=integrity or none (lockdown= on the kernel command line)",
			      "%.*s: tracefs, kprobes, kernel addresses and /proc/kcore refused",
			      (int)(end - sel + 1), sel);
}

static void check_kptr(struct rec_check *c)
{
	long v;

	if (!pp_read_long("/proc/sys/kernel/kptr_restrict", &v))
		return;
	if (v == 0 || (v == 1 && (geteuid() == 0 || has_cap(CAP_SYSLOG_BIT))))
		rec_check_add(c, "kptr_restrict", REC_CHECK_YES, NULL,
			      "%ld: kernel symbols readable (/proc/kallsyms)", v);
	else
		rec_check_add(c, "kptr_restrict", REC_CHECK_WARN,
			      "sysctl -w kernel.kptr_restrict=0 (or CAP_SYSLOG with 1)",
			      "%ld: /proc/kallsyms shows zeros: kernel stacks are not named", v);
}

static void check_cgroup(struct rec_check *c)
{
	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		rec_check_add(c, "cgroup", REC_CHECK_YES, NULL, "v2 (unified) at /sys/fs/cgroup");
	else if (!access("/sys/fs/cgroup/perf_event", F_OK))
		rec_check_add(c, "cgroup", REC_CHECK_YES, NULL,
			      "v1, perf_event controller at /sys/fs/cgroup/perf_event");
	else if (!access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK))
		rec_check_add(c, "cgroup", REC_CHECK_YES, NULL, "v2 at /sys/fs/cgroup/unified (hybrid)");
	else
		rec_check_add(c, "cgroup", REC_CHECK_WARN,
			      "mount -t cgroup2 none /sys/fs/cgroup (or the v1 perf_event controller)",
			      "no cgroup v2 and no v1 perf_event controller: --cgroups cannot work");
}

/* Docker, podman, LXC, Kubernetes: the marks they leave.  Return: the name, or NULL. */
static const char *container_kind(void)
{
	char buf[4096];
	FILE *f;
	size_t n;

	if (!access("/.dockerenv", F_OK))
		return "docker";
	if (!access("/run/.containerenv", F_OK))
		return "podman";
	f = fopen("/proc/1/environ", "re");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		buf[n] = '\0';
		if (!strncmp(buf + i, "container=", 10))
			return buf[i + 10] ? "container= in pid 1's environment" : "container";
	}
	if (pp_read_line("/proc/self/cgroup", buf, sizeof(buf)) &&
	    (strstr(buf, "docker") || strstr(buf, "kubepods") || strstr(buf, "lxc")))
		return "a container's cgroup";
	return NULL;
}

static void check_container(struct rec_check *c)
{
	const char *kind = container_kind();

	if (!kind)
		rec_check_add(c, "container", REC_CHECK_INFO, NULL, "no (no container marks)");
	else
		rec_check_add(c, "container", REC_CHECK_INFO, NULL,
			      "yes (%s): the host's perf_event_paranoid and lockdown apply, and the "
			      "container needs CAP_PERFMON or CAP_SYS_ADMIN and tracefs from the host",
			      kind);
}

static void check_space(struct rec_check *c, const struct rec_session *s)
{
	const char *out = s->opts.output ? s->opts.output : REC_DEFAULT_OUTPUT;
	char *dir;
	struct statvfs st;
	uint64_t avail;

	if (!strcmp(out, "-")) {
		rec_check_add(c, "free space", REC_CHECK_INFO, NULL, "the capture goes to standard output");
		return;
	}
	dir = strrchr(out, '/') ? pp_xasprintf("%.*s", (int)(strrchr(out, '/') - out), out) :
				  pp_xstrdup(".");
	if (!*dir) {
		free(dir);
		dir = pp_xstrdup("/");
	}
	if (statvfs(dir, &st) || access(dir, W_OK)) {
		rec_check_add(c, "free space", REC_CHECK_NO, "-o FILE in a writable directory",
			      "cannot write in %s", dir);
		rec_check_fail(c, "the capture's directory is not writable", "-o FILE in a writable directory");
		free(dir);
		return;
	}
	avail = (uint64_t)st.f_bavail * st.f_frsize;
	if (avail < (64ull << 20)) {
		rec_check_add(c, "free space", REC_CHECK_NO, "free space, or -o elsewhere, or --max-size",
			      "%llu MiB in %s", (unsigned long long)(avail >> 20), dir);
		rec_check_fail(c, "less than 64 MiB free where the capture goes",
			       "free space, or -o elsewhere, or --max-size");
	} else {
		rec_check_add(c, "free space", avail < (1ull << 30) ? REC_CHECK_WARN : REC_CHECK_YES,
			      avail < (1ull << 30) ? "--max-size SIZE, or -o where there is room" : NULL,
			      "%.1f GiB in %s%s", (double)avail / (1 << 30), dir,
			      st.f_flag & ST_RDONLY ? " (read-only)" : "");
	}
	free(dir);
}

void rec_check_machine(struct rec_check *c, const struct rec_session *s)
{
	check_kernel(c);
	check_user(c);
	check_paranoid(c);
	check_rate(c, s);
	check_mlock(c, s);
	check_kptr(c);
	check_tracefs(c, s);
	check_probe_file(c, "uprobes", "uprobe_events", "CONFIG_UPROBE_EVENTS");
	check_probe_file(c, "kprobes", "kprobe_events", "CONFIG_KPROBE_EVENTS");
	check_btf(c);
	check_lockdown(c);
	check_cgroup(c);
	check_container(c);
	check_space(c, s);
}
