/* SPDX-License-Identifier: MIT */
/*
 * targets.c - the session's target from the options: CPUs, threads, cgroups.
 *
 * The CPU list is the online CPUs, or -C checked against them; -p takes
 * every thread of each process listed in /proc, once; cgroups are opened
 * under the first hierarchy that has them (v1 perf_event, v2, v2 aside v1).
 * Liveness reads /proc/PID/stat, since a zombie still answers kill(pid, 0).
 * Not here: the perf fds opened per (unit, CPU) (perf/evopen.c).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/units.h"
#include "record/err.h"
#include "record/session.h"
#include "record/targets.h"

static bool proc_exists(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d", (int)pid);
	return access(p, F_OK) == 0;
}

void rec_target_add_tid(struct rec_target *t, pid_t tid)
{
	for (size_t i = 0; i < t->nr_tids; i++)
		if (t->tids[i] == tid)
			return;
	t->tids = pp_xrealloc(t->tids, (t->nr_tids + 1) * sizeof(*t->tids));
	t->tids[t->nr_tids++] = tid;
}

static int process_threads(struct rec_session *s, pid_t pid, char *msg, size_t msg_sz)
{
	char p[64];
	DIR *d;
	struct dirent *de;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d)
		return rec_errf(msg, msg_sz, PP_ENOT_FOUND, "no process %d", (int)pid);
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			rec_target_add_tid(&s->tgt, (pid_t)atoi(de->d_name));
	closedir(d);
	return 0;
}

/*
 * -C LIST system-wide: the events are opened on those CPUs, the side-band
 * event on every online CPU, for tasks forked or renamed elsewhere run on
 * them too (their FORK and COMM records are written where it happened).
 */
static void sideband_everywhere(struct rec_target *t, const int *on, size_t nr_on)
{
	int *cpus = pp_xcalloc(nr_on + t->nr_cpus, sizeof(*cpus));
	bool *sb = pp_xcalloc(nr_on + t->nr_cpus, sizeof(*sb));
	size_t n = 0;

	for (size_t i = 0; i < t->nr_cpus; i++) {
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= cpus[k] == t->cpus[i];
		if (!dup)
			cpus[n++] = t->cpus[i];
	}
	for (size_t j = 0; j < nr_on; j++) {
		bool listed = false;

		for (size_t k = 0; k < n; k++)
			listed |= cpus[k] == on[j];
		if (!listed) {
			sb[n] = true;
			cpus[n++] = on[j];
		}
	}
	free(t->cpus);
	t->cpus = cpus;
	t->nr_cpus = n;
	t->sideband_only = sb;
}

int rec_target_init(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_target *t = &s->tgt;
	char online[1024];
	int *on = NULL, rc;
	size_t nr_on = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f || !fgets(online, sizeof(online), f)) {
		snprintf(online, sizeof(online), "0-%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
	}
	if (f)
		fclose(f);
	online[strcspn(online, "\n")] = '\0';
	if (pp_parse_list(online, 0, &on, &nr_on))
		return rec_errf(msg, msg_sz, PP_ESYNTAX, "cannot parse the online CPUs '%s'", online);
	if (s->opts.cpus) {
		rc = pp_parse_list(s->opts.cpus, 0, &t->cpus, &t->nr_cpus);
		if (rc) {
			free(on);
			return rec_errf(msg, msg_sz, rc, "bad CPU list '%s'", s->opts.cpus);
		}
		for (size_t i = 0; i < t->nr_cpus; i++) {
			bool ok = false;

			for (size_t j = 0; j < nr_on; j++)
				ok |= on[j] == t->cpus[i];
			if (!ok) {
				rc = rec_errf(msg, msg_sz, PP_ERANGE,
						      "CPU %d is not online (online: %s)",
						      t->cpus[i], online);
				free(on);
				return rc;
			}
		}
	} else {
		t->cpus = on;
		t->nr_cpus = nr_on;
		on = NULL;
	}

	if (s->opts.argv && !s->opts.all_cpus && !s->opts.cpus) {
		t->kind = REC_TGT_WORKLOAD;
	} else if (s->opts.pids || s->opts.tids) {
		const char *list = s->opts.pids ? s->opts.pids : s->opts.tids;
		int *v = NULL;
		size_t n = 0;

		t->kind = REC_TGT_THREADS;
		rc = pp_parse_list(list, 0, &v, &n);
		if (rc)
			return rec_errf(msg, msg_sz, rc, "bad %s list '%s'",
						s->opts.pids ? "pid" : "tid", list);
		for (size_t i = 0; i < n && !rc; i++) {
			if (s->opts.pids) {
				rc = process_threads(s, v[i], msg, msg_sz);
			} else if (!proc_exists(v[i])) {
				rc = rec_errf(msg, msg_sz, PP_ENOT_FOUND, "no thread %d", v[i]);
			} else {
				rec_target_add_tid(t, v[i]);
			}
		}
		t->pids = pp_xmalloc((n ? n : 1) * sizeof(*t->pids));
		for (size_t i = 0; i < n; i++)
			t->pids[i] = v[i];
		t->nr_pids = n;
		free(v);
		if (rc)
			return rc;
	} else if (s->opts.cgroups) {
		char *list = pp_xstrdup(s->opts.cgroups), *save = NULL;

		t->kind = REC_TGT_CGROUP;
		rc = 0;
		for (char *n = strtok_r(list, ",", &save); n && !rc;
		     n = strtok_r(NULL, ",", &save)) {
			/* the perf_event hierarchy (v1), the unified one (v2) alone or aside */
			static const char *const roots[] = {
				"/sys/fs/cgroup/perf_event", "/sys/fs/cgroup",
				"/sys/fs/cgroup/unified",
			};
			const char *rel = n[0] == '/' ? n + 1 : n;
			int fd = -1;

			for (size_t k = 0; k < PP_ARRAY_SIZE(roots) && fd < 0; k++) {
				char *p = pp_xasprintf("%s/%s", roots[k], rel);

				if (*rel)
					fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				free(p);
			}
			if (fd < 0) {
				rc = rec_errf(msg, msg_sz, PP_ENOT_FOUND,
						      "no cgroup '%s' under /sys/fs/cgroup{/perf_event,,/unified}",
						      n);
			} else {
				t->cgroup_fds = pp_xrealloc(t->cgroup_fds,
							    (t->nr_cgroups + 1) * sizeof(int));
				t->cgroup_fds[t->nr_cgroups++] = fd;
			}
		}
		free(list);
		if (rc)
			return rc;
	} else {
		t->kind = REC_TGT_SYSTEM;
	}
	if (on && (t->kind == REC_TGT_SYSTEM || t->kind == REC_TGT_CGROUP))
		sideband_everywhere(t, on, nr_on);
	free(on);
	return 0;
}

/* A zombie whose parent does not reap it still answers kill(pid, 0): read its state. */
static bool task_alive(pid_t pid)
{
	char p[64], buf[512], *rp;
	FILE *f;
	bool alive = false;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) && rp[1] == ' ')
		alive = rp[2] != 'Z' && rp[2] != 'X';
	fclose(f);
	return alive;
}

bool rec_target_alive(const struct rec_session *s)
{
	for (size_t i = 0; i < s->tgt.nr_pids; i++)
		if (task_alive(s->tgt.pids[i]))
			return true;
	return false;
}

void rec_target_release(struct rec_target *t)
{
	for (size_t i = 0; i < t->nr_cgroups; i++)
		close(t->cgroup_fds[i]);
	free(t->cgroup_fds);
	free(t->cpus);
	free(t->sideband_only);
	free(t->tids);
	free(t->pids);
}
