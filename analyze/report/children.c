/* SPDX-License-Identifier: MIT */
/*
 * children.c - other analyzers run inside the report's pass.
 *
 * A child is built as pp-analyze builds an instance from its command line (its
 * options and the common ones parsed, its selectors matched, its ->init()), but it
 * is not one of the session's instances: the report delivers to it.  The report
 * takes every event type of the capture (PP_AZ_ALL_EVENTS); its ->event() looks
 * the type up in its own dispatch table and calls each matching child as the
 * core's deliver() would, the selector's filter applied.  Children take no -C,
 * -p, -t (the core's post-filters) nor -i (the core's ticks reach only its own
 * instances): the report refuses them.  Losses, exits and side-band records reach
 * every child.  A child writes CSV into a memory stream; at the end it is
 * finished and released at once, so that the files it wrote are complete.
 * The temporary directory holds those files and goes with the report.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/report/internal.h"
#include "common/argv.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/vec.h"

int ana_rpt_new(struct pp_az *az, struct ana_rpt **out)
{
	struct ana_rpt *r = pp_xcalloc(1, sizeof(*r));
	const char *tmp = getenv("TMPDIR"), *file;
	struct pp_buf b = PP_BUF_INIT;

	*out = r;
	r->az = az;
	r->s = az->s;
	az->engine = r;
	pp_buf_addf(&b, "%s/pp-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	r->tmpdir = pp_buf_detach(&b);
	if (!mkdtemp(r->tmpdir)) {
		int e = errno;

		pp_err("%s: cannot create a temporary directory '%s': %s", az->name, r->tmpdir,
		       strerror(e));
		free(r->tmpdir);
		r->tmpdir = NULL;
		return -e;
	}
	/* "-" is a live stream: there is no file to give the commands */
	file = strcmp(r->s->path, "-") ? r->s->path : "CAPTURE";
	pp_argv_join(&b, 1, &file);
	r->file_shown = pp_buf_detach(&b);
	return 0;
}

const char *ana_rpt_tmp_path(struct ana_rpt *r, const char *name)
{
	pp_buf_reset(&r->tmp_path);
	pp_buf_addf(&r->tmp_path, "%s/%s", r->tmpdir, name);
	return pp_buf_str(&r->tmp_path);
}

bool ana_rpt_type_sampled(const struct ana_evtype *t)
{
	return !(t->desc_flags & PPF_EVF_COUNTING);
}

static void disp_add(struct ana_rpt *r, struct ana_rpt_child *c, struct ana_sel *sel)
{
	void **slot = pp_u64map_slot(&r->disp, sel->type->id);
	struct rpt_disp_list *l = *slot;

	if (!l)
		l = *slot = pp_xcalloc(1, sizeof(*l));
	PP_VEC_PUSH(l->v, l->nr, l->cap, ((struct rpt_disp){ c, sel }));
	r->last = NULL;
}

/* Release what the instance holds; its output stays. */
static void child_stop(struct ana_rpt_child *c)
{
	struct pp_az *az = &c->az;

	if (c->live)
		az->ops->release(az);
	c->live = false;
	if (c->fp) {
		fclose(c->fp);	/* c->out, c->out_sz now final */
		c->fp = NULL;
	}
	ana_az_release_sels(az);
	pp_strlist_release(&az->opt.events);
	free(az->priv);
	free(az->opts);
	az->priv = az->opts = NULL;
}

static void child_free(struct ana_rpt_child *c)
{
	child_stop(c);
	for (int i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	free(c->cmd);
	free(c->out);
	free(c);
}

static char *command_line(struct ana_rpt *r, const char *const *argv)
{
	struct pp_buf b = PP_BUF_INIT;
	int n = 0;

	while (argv[n])
		n++;
	pp_buf_addf(&b, "pp-analyze %s ", r->file_shown);
	pp_argv_join(&b, n, argv);
	return pp_buf_detach(&b);
}

/* Parse the child's options into its instance (instance.c's az_parse(), without exits). */
static int child_parse(struct ana_rpt_child *c, const struct pp_analyzer *an)
{
	struct pp_az *az = &c->az;
	char err[256];
	int n = ana_az_start(az, an, c->argc, (const char **)c->argv, err, sizeof(err));

	if (n == PP_OPT_HELP)
		snprintf(err, sizeof(err), "--help is not for a report section");
	if (n < 0 || n == PP_OPT_HELP) {
		pp_err("report: %s: %s", c->cmd, err);
		return PP_EUSAGE;
	}
	if (az->opt.cpus || az->opt.pids || az->opt.tids || az->opt.output || az->opt.format ||
	    az->opt.interval_ns || az->opt.exit_n) {
		pp_err("report: %s: -C, -p, -t, -o, --format, -i and -N are not for a section",
		       c->cmd);
		return PP_EUSAGE;
	}
	az->args = (const char **)c->argv + 1;
	az->nr_args = n;
	return 0;
}

int ana_rpt_child_add(struct ana_rpt *r, const char *const *argv, const char *const *shown,
		      struct ana_rpt_child **out)
{
	const struct pp_analyzer *an = ana_analyzer_find(argv[0]);
	struct ana_rpt_child *c = pp_xcalloc(1, sizeof(*c));
	struct pp_az *az = &c->az;
	int rc;

	*out = NULL;
	while (argv[c->argc])
		c->argc++;
	c->argv = pp_xcalloc((size_t)c->argc + 1, sizeof(*c->argv));
	for (int i = 0; i < c->argc; i++)
		c->argv[i] = pp_xstrdup(argv[i]);
	c->cmd = command_line(r, shown ? shown : argv);
	if (!an) {
		pp_err("report: no analyzer '%s'", argv[0]);
		child_free(c);
		return PP_EUSAGE;
	}
	rc = child_parse(c, an);
	if (rc)
		goto err;
	az->s = r->s;
	c->fp = open_memstream(&c->out, &c->out_sz);
	if (!c->fp) {
		rc = -errno;
		goto err;
	}
	az->out.fp = c->fp;
	az->out.format = ANA_FMT_CSV;
	/* losses are said once, in the report's summary, not by every child on stderr */
	az->lost_noted = az->corrupt_noted = UINT64_MAX;
	rc = ana_az_select(az);
	if (!rc)
		rc = az->ops->init(az);
	c->live = true;		/* an ->init() that failed may have allocated: release */
	if (rc)
		goto err;
	for (size_t i = 0; i < az->nr_sels; i++)
		disp_add(r, c, &az->sels[i]);
	PP_VEC_PUSH(r->children, r->nr_children, r->cap_children, c);
	*out = c;
	return 0;
err:
	child_free(c);
	return rc < 0 ? rc : PP_EUSAGE;
}

const char *ana_rpt_child_cmd(const struct ana_rpt_child *c)
{
	return c->cmd;
}

void ana_rpt_az_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ana_rpt *r = az->engine;
	struct rpt_disp_list *l;
	struct pp_event e;

	if (ev->flags & PPF_SF_LATE)
		r->nr_late++;
	if (r->last && r->last_id == ev->type->id) {
		l = r->last;
	} else {
		l = pp_u64map_get(&r->disp, ev->type->id);
		if (!l)
			return;
		r->last = l;
		r->last_id = ev->type->id;
	}
	e = *ev;
	for (size_t i = 0; i < l->nr; i++) {
		struct pp_az *caz = &l->v[i].c->az;
		struct ana_sel *sel = l->v[i].sel;

		if (sel->filter && !ana_filter_pass(r->s, sel->filter, &e))
			continue;
		e.sel = sel;
		caz->nr_delivered++;
		caz->ops->event(caz, &e);
	}
}

void ana_rpt_az_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct ana_rpt *r = az->engine;

	for (size_t i = 0; i < r->nr_children; i++)
		if (r->children[i]->live)
			r->children[i]->az.ops->lost(&r->children[i]->az, l);
}

void ana_rpt_az_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct ana_rpt *r = az->engine;

	for (size_t i = 0; i < r->nr_children; i++)
		if (r->children[i]->live)
			r->children[i]->az.ops->task_exit(&r->children[i]->az, pid, tid, time_ns);
}

void ana_rpt_az_sideband(struct pp_az *az, const struct pp_sideband_ev *sb)
{
	struct ana_rpt *r = az->engine;

	for (size_t i = 0; i < r->nr_children; i++)
		if (r->children[i]->live)
			r->children[i]->az.ops->sideband(&r->children[i]->az, sb);
}

int ana_rpt_children_finish(struct ana_rpt *r)
{
	int failed = 0;

	for (size_t i = 0; i < r->nr_children; i++) {
		struct ana_rpt_child *c = r->children[i];

		if (!c->live)
			continue;
		c->rc = c->az.ops->finish(&c->az);
		if (c->rc || c->az.exit_status)
			failed++;
		child_stop(c);
	}
	return failed;
}

static void tmpdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct pp_buf p = PP_BUF_INIT;

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		pp_buf_reset(&p);
		pp_buf_addf(&p, "%s/%s", dir, de->d_name);
		unlink(pp_buf_str(&p));
	}
	if (d)
		closedir(d);
	rmdir(dir);
	pp_buf_release(&p);
}

void ana_rpt_free(struct ana_rpt *r)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!r)
		return;
	for (size_t i = 0; i < r->nr_children; i++)
		child_free(r->children[i]);
	free(r->children);
	while (pp_u64map_next(&r->disp, &it, &k, &v)) {
		struct rpt_disp_list *l = v;
		free(l->v);
		free(l);
	}
	pp_u64map_release(&r->disp);
	if (r->tmpdir)
		tmpdir_remove(r->tmpdir);
	free(r->tmpdir);
	free(r->file_shown);
	pp_buf_release(&r->tmp_path);
	pp_buf_release(&r->body);
	pp_buf_release(&r->nav);
	pp_buf_release(&r->flames);
	pp_buf_release(&r->heatmaps);
	free(r);
}

void ana_rpt_az_release(struct pp_az *az)
{
	ana_rpt_free(az->engine);
	az->engine = NULL;
}
