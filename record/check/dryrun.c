/* SPDX-License-Identifier: MIT */
/*
 * dryrun.c - the command line's events opened for real, disabled, and closed
 * again; and what they need beyond opening (check.h).
 *
 * The session's own steps do the opening (rec_session_try_open()): the
 * targets, a COMMAND forked and held before its exec, the tracefs instance,
 * every perf fd and its ring.  Then everything goes, as at the end of a
 * recording: fds closed, the instance and any probe removed, the COMMAND
 * killed before it ran, and tracefs unmounted if this check mounted it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/selector.h"
#include "record/check/check.h"
#include "record/perf/filter.h"
#include "record/session.h"

static const char *how_read(const struct rec_evsel *e)
{
	if (e->ftrace)
		return "tracefs instance";
	switch (e->kind) {
	case PPF_EV_TRACEPOINT:
		return "perf ring (tracepoint)";
	case PPF_EV_UPROBE:
		return "perf ring (uprobe)";
	case PPF_EV_KPROBE:
		return "perf ring (kprobe)";
	case PPF_EV_HARDWARE:
		return "perf ring (hardware counter)";
	case PPF_EV_BREAKPOINT:
		return "perf ring (breakpoint)";
	default:
		return "perf ring";
	}
}

/*
 * The attributes an analyzer evaluates on a tracepoint's fields (key=, size= ...):
 * a field this kernel's format lacks is said.  A warning, not a "no": an
 * analyzer may give such a name a meaning of its own (a variable).
 */
static void attr_fields(struct rec_check *c, const struct rec_evsel *e)
{
	static const char *const exprs[] = { "key", "size", "num", "ptr", "top-by", "top-add" };
	struct pp_selector *sel = NULL;
	struct pp_parse_error err = { .pos = -1 };
	struct pp_expr_env env = { 0 };
	struct pp_field *fields = NULL;
	size_t nr_sel = 0, nr = 0;

	if (!e->format || !e->selector || pp_selector_parse(e->selector, &sel, &nr_sel, &err))
		return;
	rec_format_fields(e->format, &fields, &nr);
	env.fields = fields;
	env.nr_fields = nr;
	for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++) {
		const char *v = pp_selector_attr(&sel[0], exprs[i]);
		struct pp_expr *x = NULL;

		if (v && pp_expr_compile(v, &env, &x, &err) == PP_EUNKNOWN_FIELD) {
			rec_check_add(c, "field", REC_CHECK_WARN,
				      "the event's format on this kernel (pp list EVENT), or the analyzer's docs",
				      "%s: %s=%s: %s in this kernel's format", e->name, exprs[i], v,
				      err.msg);
			c->v[c->nr - 1].event = true;
		}
		pp_expr_free(x);
	}
	rec_format_fields_free(fields, nr);
	pp_selector_free_array(sel, nr_sel);
}

static void event_lines(struct rec_check *c, const struct rec_session *s)
{
	for (size_t i = 0; i < s->nr_evsels; i++) {
		const struct rec_evsel *e = &s->evsels[i];
		const char *filter = !e->filter ? "" :
				     (e->flags & PPF_EVF_KERNEL_FILTER) ? ", filtered in the kernel" :
				     ", filtered by the analyzer";

		rec_check_add(c, "event", REC_CHECK_YES, NULL, "%s: opened, read through the %s%s%s",
			      e->name, how_read(e), filter,
			      (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ? ", with call chains" : "");
		c->v[c->nr - 1].event = true;
		attr_fields(c, e);
	}
	if (s->user_only) {
		rec_check_add(c, "event", REC_CHECK_WARN,
			      "CAP_PERFMON, or sysctl -w kernel.perf_event_paranoid=1",
			      "user space only: perf_event_paranoid keeps the kernel out");
		c->v[c->nr - 1].event = true;
	}
}

/* The fix that goes with a failed open's code, when the message does not say it. */
static const char *open_fix(int rc)
{
	switch (rc) {
	case PP_EUNKNOWN_EVENT:
		return "a kernel that has this event (docs/kernels.md), or the module that defines it";
	case PP_EUNKNOWN_FIELD:
		return "this kernel's format of the event lacks the field (pp list EVENT shows it)";
	case PP_ENO_PMU:
		return "bare metal, or a VM with a virtual PMU";
	case -EMFILE:
	case -ENFILE:
		return "ulimit -n (more open files)";
	default:
		return NULL;
	}
}

void rec_check_session_release(struct rec_session *s)
{
	char *mounted = s->tfs.mounted && s->tfs.root ? pp_xstrdup(s->tfs.root) : NULL;

	rec_session_release(s);
	if (mounted && umount2(mounted, 0))
		pp_warn("cannot unmount the tracefs this check mounted on %s: %s", mounted,
			strerror(errno));
	free(mounted);
}

bool rec_check_dry_open(struct rec_check *c, struct rec_session *s)
{
	int rc = rec_session_try_open(s);

	if (!rc) {
		event_lines(c, s);
		rec_check_needs(c, s);
	} else {
		rec_check_add(c, "event", REC_CHECK_NO, open_fix(rc), "%s", s->errmsg);
		c->v[c->nr - 1].event = true;
		rec_check_fail(c, s->errmsg, open_fix(rc));
	}
	rec_check_session_release(s);
	return rc == 0;
}

/* Each /proc/PID/fd holding anon_inode:kvm-vm is a guest; *@blind counts unreadable ones. */
static int kvm_guests(int *blind)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	int n = 0;

	*blind = 0;
	while (proc && (d = readdir(proc))) {
		char path[300], link[64];
		DIR *fds;
		struct dirent *f;
		bool vm = false;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", d->d_name);
		fds = opendir(path);
		if (!fds) {
			*blind += errno == EACCES || errno == EPERM;	/* not one that exited meanwhile */
			continue;
		}
		while (!vm && (f = readdir(fds))) {
			char fp[600];
			ssize_t len;

			snprintf(fp, sizeof(fp), "%s/%s", path, f->d_name);
			len = readlink(fp, link, sizeof(link) - 1);
			vm = len > 0 && (link[len] = '\0', !strcmp(link, "anon_inode:kvm-vm"));
		}
		closedir(fds);
		n += vm;
	}
	if (proc)
		closedir(proc);
	return n;
}

/* The CPU's virtualization extension (/proc/cpuinfo flags: vmx or svm), or "none". */
static const char *cpu_virt(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	const char *v = "none";

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		v = strstr(line, " vmx") ? "vmx" : strstr(line, " svm") ? "svm" : "none";
		break;
	}
	if (f)
		fclose(f);
	return v;
}

void rec_check_needs(struct rec_check *c, const struct rec_session *s)
{
	const char *fix = "run a KVM guest here, or give the command that starts one after --";
	bool kvm = false;
	int guests, blind;

	for (size_t i = 0; i < s->nr_evsels; i++)
		kvm |= !strncmp(s->evsels[i].name, "kvm:", 4) ||
		       !strncmp(s->evsels[i].name, "kvmmmu:", 7);
	if (!kvm)
		return;
	if (s->opts.argv) {
		rec_check_add(c, "KVM guests", REC_CHECK_INFO, NULL,
			      "the command '%s' is to start one", s->opts.argv[0]);
		return;
	}
	guests = kvm_guests(&blind);
	if (guests) {
		rec_check_add(c, "KVM guests", REC_CHECK_YES, NULL, "%d running", guests);
	} else if (blind) {
		rec_check_add(c, "KVM guests", REC_CHECK_WARN, "run the check as root",
			      "none seen, but %d processes' files are not readable", blind);
	} else {
		rec_check_add(c, "KVM guests", REC_CHECK_NO, fix,
			      "no KVM: no process runs a guest (none holds a kvm-vm; /dev/kvm %s, "
			      "CPU virtualization %s): the kvm events would record nothing",
			      access("/dev/kvm", F_OK) ? "absent" : "present", cpu_virt());
		rec_check_fail(c, "no KVM: no guest runs on this machine, so its kvm events record nothing",
			       fix);
	}
	c->v[c->nr - 1].event = true;	/* the command line's line, not the machine's */
}
