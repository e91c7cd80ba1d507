/* SPDX-License-Identifier: MIT */
/*
 * cmd-usdt.c - `pp-record usdt list|add|del SPEC...`: perf-prof's usdt tool.
 *
 * list prints "provider:name@binpath" for each probe site SPEC selects (-v: its addresses,
 * argument specs and uprobe definition); add writes each site's definition to
 * uprobe_events, so that provider:name is a tracepoint like any other (pp-record -e
 * provider:name); del removes each selected site from its event, and the event goes with
 * its last site.  Names read from a binary are escaped before they reach the terminal.
 * Exit status: 0; 1 when the kernel refused a definition or a removal; 2 for bad input
 * (a bad SPEC, a binary that cannot be read or has no such probe).
 * Not here: the notes and definitions (probe/usdt.c), operands (probe/usdt-arg.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/front-env.h"
#include "common/log.h"
#include "common/man.h"
#include "common/options.h"
#include "record/ftrace/tracefs.h"
#include "record/probe/uprobe.h"
#include "record/probe/usdt.h"
#include "record/record.h"

enum usdt_op { USDT_LIST, USDT_ADD, USDT_DEL };

struct usdt_cmd {
	enum usdt_op op;
	int verbose;
	struct rec_tracefs tfs;
	int status;			/* the worst so far: 0, 1 (kernel), 2 (input) */
};

static const char *const usdt_usage[] = {
	"pp usdt [-v] list|add|del [[provider:]name@]binpath[@addr][ args] ...",
	NULL,
};

static const char usdt_help[] =
	"\nUser Statically-Defined Tracing: finds the probes <sys/sdt.h> left in the\n"
	".note.stapsdt section of a binary and adds them as uprobe events named\n"
	"provider:name (uprobe_events group = provider, event = name), which every\n"
	"analyzer then takes as a tracepoint: pp trace -e provider:name.\n"
	"\n  list   print provider:name@binpath for each probe (-v: addresses, argument\n"
	"         specs and the uprobe definition)\n"
	"  add    create the uprobe events (-v: the lines written to uprobe_events)\n"
	"  del    remove them\n"
	"\nFORMAT\n"
	"  [[provider:]name@]binpath[@addr][ args]\n"
	"  provider:name selects probes (all of binpath without it); @addr picks one site of a\n"
	"  probe defined at several addresses (the Addr of list -v).  args, after a blank, are\n"
	"  one word per probe argument with %s standing for the argument's location\n"
	"  ('s=+0(%s):string'); a word without %s keeps argN=LOCATION:TYPE, and arguments\n"
	"  without a word are left out.  Without args, every argument is argN with the type\n"
	"  its size says (s32, u64 ...).\n"
	"\nEXAMPLES\n"
	"  pp usdt list /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"  pp usdt list -v 'libc:setjmp@/usr/lib/x86_64-linux-gnu/libc.so.6'\n"
	"  pp usdt add 'python:function__entry@/usr/lib/libpython3.so "
	"file=+0(%s):string func=+0(%s):string'\n"
	"  pp trace -e python:function__entry\n"
	"  pp usdt del 'python:function__entry@/usr/lib/libpython3.so'\n";

static void set_status(struct usdt_cmd *c, int st)
{
	if (st > c->status)
		c->status = st;
}

/* "provider:name@path", escaped */
static void probe_label(struct pp_buf *b, const struct rec_usdt_probe *p, const char *path)
{
	rec_usdt_escape(b, p->provider);
	pp_buf_addch(b, ':');
	rec_usdt_escape(b, p->name);
	pp_buf_addch(b, '@');
	rec_usdt_escape(b, path);
}

/*
 * The last "error:" line of tracefs error_log (with its timestamp, so each is unique), or
 * NULL.  The log keeps a few entries and drops the oldest: a new line is one that differs
 * from the last one before the write.
 */
static char *last_error_dup(const struct rec_tracefs *t)
{
	char *log = NULL, *e, *last = NULL, *r = NULL;

	if (rec_tracefs_read_dup(t, "error_log", &log))
		return NULL;
	for (e = log; (e = strstr(e, "error: ")); e++)
		last = e;
	if (last) {
		while (last > log && last[-1] != '\n')
			last--;
		r = pp_xstrndup(last, strcspn(last, "\n"));
	}
	free(log);
	return r;
}

/* Whether this kernel is older than @major.@minor (uname). */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/* Write @line to uprobe_events; 0, or -errno with the kernel's reason in @why. */
static int write_events(const struct usdt_cmd *c, const char *line, char *why, size_t why_sz)
{
	char *before = last_error_dup(&c->tfs), *after;
	char *text = pp_xasprintf("%s\n", line);
	int rc = rec_tracefs_append(&c->tfs, "uprobe_events", text);

	*why = '\0';
	if (rc && (after = last_error_dup(&c->tfs))) {
		if (!before || strcmp(before, after))
			snprintf(why, why_sz, " (%s)", strstr(after, "error: ") + 7);
		free(after);
	}
	free(before);
	free(text);
	return rc;
}

static void do_list(struct usdt_cmd *c, const struct rec_usdt_file *f,
		    const struct rec_usdt_probe *p, const struct rec_usdt_spec *sp,
		    const char *kpath)
{
	struct pp_buf b = PP_BUF_INIT, def = PP_BUF_INIT, warn = PP_BUF_INIT;
	char msg[512];

	probe_label(&b, p, sp->path);
	pp_buf_addch(&b, '\n');
	if (c->verbose) {
		pp_buf_addf(&b, "    Addr: 0x%016llx, Base: 0x%016llx, Semaphore: 0x%016llx\n",
			    (unsigned long long)p->addr, (unsigned long long)p->base,
			    (unsigned long long)p->semaphore);
		pp_buf_adds(&b, "    Arguments: ");
		rec_usdt_escape(&b, p->args);
		pp_buf_adds(&b, "\n    Uprobe: ");
		if (!rec_usdt_uprobe_def(f, p, kpath, sp->fmts, &def, &warn, msg, sizeof(msg)))
			rec_usdt_escape(&b, pp_buf_str(&def));
		pp_buf_addch(&b, '\n');
	}
	fputs(pp_buf_str(&b), stdout);
	pp_buf_release(&b);
	pp_buf_release(&def);
	pp_buf_release(&warn);
}

static void print_warnings(const struct pp_buf *warn)
{
	const char *s = pp_buf_str(warn);

	while (*s) {
		size_t n = strcspn(s, "\n");

		pp_warn("%.*s", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/*
 * The end of an add or a del: KNOWN (what a refusal the command expects means, or NULL), else
 * the kernel's refusal, else the label on stdout.
 */
static void written(struct usdt_cmd *c, const struct pp_buf *label, const struct pp_buf *def,
		    int rc, const char *why, const char *known)
{
	if (known) {
		pp_err("%s: %s", pp_buf_str(label), known);
		set_status(c, 1);
	} else if (rc == -EINVAL && strstr(pp_buf_str(def), "(0x") && kernel_before(4, 20)) {
		/* "PATH:0xOFF(0xSEM)": the semaphore's reference counter came in 4.20 */
		pp_err("%s: this probe has a semaphore, which uprobe_events takes from Linux 4.20 "
		       "(ref_ctr_offset); this kernel refused '%s'", pp_buf_str(label),
		       pp_buf_str(def));
		set_status(c, 1);
	} else if (rc) {
		pp_err("%s: the kernel refused '%s': %s%s", pp_buf_str(label), pp_buf_str(def),
		       strerror(-rc), why);
		set_status(c, 1);
	} else {
		printf("%s\n", pp_buf_str(label));
	}
}

static void do_add(struct usdt_cmd *c, const struct rec_usdt_file *f,
		   const struct rec_usdt_probe *p, const struct rec_usdt_spec *sp,
		   const char *kpath)
{
	struct pp_buf label = PP_BUF_INIT, def = PP_BUF_INIT, warn = PP_BUF_INIT;
	char msg[512], why[256];
	int rc;

	probe_label(&label, p, sp->path);
	rc = rec_usdt_uprobe_def(f, p, kpath, sp->fmts, &def, &warn, msg, sizeof(msg));
	print_warnings(&warn);
	if (rc) {
		pp_err("%s", msg);
		set_status(c, 2);
		goto out;
	}
	if (c->verbose)
		printf("    echo '%s' > %s/uprobe_events\n", pp_buf_str(&def), c->tfs.root);
	rc = write_events(c, pp_buf_str(&def), why, sizeof(why));
	written(c, &label, &def, rc, why,
		rc == -EEXIST ? "already added (pp usdt del it first)" : NULL);
out:
	pp_buf_release(&label);
	pp_buf_release(&def);
	pp_buf_release(&warn);
}

static void do_del(struct usdt_cmd *c, const struct rec_usdt_probe *p,
		   const struct rec_usdt_spec *sp, const char *kpath)
{
	struct pp_buf label = PP_BUF_INIT, def = PP_BUF_INIT;
	char why[256], rel[512], gone[512];
	int rc;

	probe_label(&label, p, sp->path);
	if (!rec_usdt_name_ok(p->provider) || !rec_usdt_name_ok(p->name)) {
		pp_err("%s: not a tracefs event name, so never added", pp_buf_str(&label));
		set_status(c, 2);
		goto out;
	}
	/* the site alone ("PATH:0xOFF(0xSEM)" as uprobe_events shows it): its siblings stay */
	pp_buf_addf(&def, "-:%s/%s %s:0x%016llx", p->provider, p->name, kpath,
		    (unsigned long long)p->off);
	if (p->sema_off)
		pp_buf_addf(&def, "(0x%llx)", (unsigned long long)p->sema_off);
	if (c->verbose)
		printf("    echo '%s' > %s/uprobe_events\n", pp_buf_str(&def), c->tfs.root);
	snprintf(rel, sizeof(rel), "events/%s/%s", p->provider, p->name);
	if (!rec_tracefs_exists(&c->tfs, rel)) {
		pp_err("%s: no uprobe event %s:%s to delete", pp_buf_str(&label), p->provider,
		       p->name);
		set_status(c, 1);
		goto out;
	}
	rc = write_events(c, pp_buf_str(&def), why, sizeof(why));
	snprintf(gone, sizeof(gone), "event %s:%s has no probe at this site", p->provider,
		 p->name);
	written(c, &label, &def, rc, why,
		rc == -EBUSY ? "the event is in use (a recording has it open)" :
		rc == -ENOENT ? gone : NULL);
out:
	pp_buf_release(&label);
	pp_buf_release(&def);
}

/* "provider:name" of a selection, for messages (the user's own text) */
static void spec_label(struct pp_buf *b, const struct rec_usdt_spec *sp)
{
	if (sp->provider)
		pp_buf_addf(b, "%s:", sp->provider);
	pp_buf_adds(b, sp->name ? sp->name : "*");
	if (sp->has_addr)
		pp_buf_addf(b, "@0x%llx", (unsigned long long)sp->addr);
}

static void run_spec(struct usdt_cmd *c, const char *text)
{
	struct rec_usdt_spec sp;
	struct rec_usdt_file *f = NULL;
	char msg[512], *kpath = NULL;
	size_t hits = 0;
	int rc;

	if (rec_usdt_spec_parse(text, &sp, msg, sizeof(msg))) {
		pp_err("%s", msg);
		set_status(c, 2);
		return;
	}
	kpath = rec_uprobe_find_binary_dup(sp.path);
	if (!kpath) {
		/* under perf-prof's name, as perf-prof: a missing binary has no probes to list */
		if (!getenv(PP_ENV_PERF_PROF_ERRORS)) {
			pp_err("binary '%s' not found", sp.path);
			set_status(c, 2);
		}
		goto out;
	}
	rc = rec_usdt_load(kpath, &f, msg, sizeof(msg));
	if (rc) {
		pp_err("%s", msg);
		set_status(c, 2);
		goto out;
	}
	if (f->nr_bad)
		pp_warn("'%s': %zu USDT note%s skipped: %s", sp.path, f->nr_bad,
			f->nr_bad == 1 ? "" : "s", f->bad_msg);
	for (size_t i = 0; i < f->nr_probes; i++) {
		const struct rec_usdt_probe *p = &f->probes[i];

		if (!rec_usdt_spec_match(&sp, p))
			continue;
		hits++;
		if (c->op == USDT_LIST)
			do_list(c, f, p, &sp, kpath);
		else if (c->op == USDT_ADD)
			do_add(c, f, p, &sp, kpath);
		else
			do_del(c, p, &sp, kpath);
	}
	if (!hits) {
		struct pp_buf b = PP_BUF_INIT;

		spec_label(&b, &sp);
		if (!f->nr_probes)
			pp_err("'%s' has no USDT probes", sp.path);
		else
			pp_err("no USDT probe %s in '%s' (see pp usdt list %s)", pp_buf_str(&b),
			       sp.path, sp.path);
		pp_buf_release(&b);
		set_status(c, 2);
	}
out:
	rec_usdt_file_free(f);
	free(kpath);
	rec_usdt_spec_release(&sp);
}

int cmd_usdt(int argc, const char **argv)
{
	struct usdt_cmd c = { .op = USDT_LIST };
	char err[512];
	int n, quiet = 0;
	const struct pp_option opts[] = {
		PP_OPT_COUNT('v', "verbose", &c.verbose,
			     "list: addresses, arguments, uprobe; add, del: the lines written"),
		PP_OPT_COUNT('q', "quiet", &quiet, "no warnings"),
		PP_OPT_END(),
	};

	pp_progname = "pp usdt";
	if (pp_help_man(stdout, argc - 1, argv + 1, usdt_usage, opts, usdt_help))
		return 0;	/* pp(1)'s part (make man) */
	n = pp_parse_options(argc - 1, argv + 1, opts, 0, err, sizeof(err));
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, usdt_usage, opts);
		fputs(usdt_help, stdout);
		return 0;
	}
	if (n < 0) {
		pp_err("%s (see pp usdt --help)", err);
		return 2;
	}
	pp_log_level = quiet ? PP_LOG_SILENT : PP_LOG_INFO;
	argv++;
	if (n < 1) {
		pp_err("one of list, add or del is needed (see pp usdt --help)");
		return 2;
	}
	if (!strcmp(argv[0], "list")) {
		c.op = USDT_LIST;
	} else if (!strcmp(argv[0], "add")) {
		c.op = USDT_ADD;
	} else if (!strcmp(argv[0], "del")) {
		c.op = USDT_DEL;
	} else {
		pp_err("unknown usdt command '%s': list, add or del (see pp usdt --help)", argv[0]);
		return 2;
	}
	if (n < 2) {
		pp_err("%s needs a binary: [[provider:]name@]binpath (see pp usdt --help)", argv[0]);
		return 2;
	}
	if (c.op != USDT_LIST) {
		if (rec_tracefs_open(&c.tfs, err, sizeof(err))) {
			pp_err("%s", err);
			return 2;
		}
		if (!rec_tracefs_exists(&c.tfs, "uprobe_events")) {
			pp_err("this kernel has no uprobe events (CONFIG_UPROBE_EVENTS): no "
			       "uprobe_events in %s", c.tfs.root);
			rec_tracefs_release(&c.tfs);
			return 2;
		}
	}
	for (int i = 1; i < n; i++)
		run_spec(&c, argv[i]);
	fflush(stdout);
	rec_tracefs_release(&c.tfs);
	return c.status;
}
