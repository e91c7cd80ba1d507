/* SPDX-License-Identifier: MIT */
/*
 * test-registry.c - the analyzer contract, walked over the registry.
 *
 * Every line of analyzers/analyzers.def passes ana_analyzer_check(), is found
 * by its name, has the same plan in pp-record's table (--for) as in
 * pp-analyze's registry, and gets a hook table without NULLs from
 * ana_az_bind().  Broken analyzers made here are refused, each with its reason.
 * An alias (PP_ALIAS) finds its analyzer and plan in both tables.
 */
#include <string.h>

#include "analyze/internal.h"
#include "common/log.h"
#include "common/plan.h"
#include "record/plans.h"
#include "tests/unit/unit.h"

static int nr_def_lines(void)
{
	int n = 0;
#define PP_ANALYZER(c, name, plan, caps) n++;
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
	return n;
}

static void test_registry__every_analyzer_keeps_the_contract(void)
{
	char err[256] = "";

	CU_ASSERT_EQUAL(ana_analyzer_count(), (size_t)nr_def_lines());
	CU_ASSERT(ana_analyzer_count() >= 26);
	for (size_t i = 0; i < ana_analyzer_count(); i++) {
		const struct pp_analyzer *an = ana_analyzer_at(i);
		int rc = ana_analyzer_check(an, err, sizeof(err));

		if (rc)
			fprintf(stderr, "\n  %s\n", err);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_EQUAL(ana_analyzer_find(an->name), an);
		/* pp-record --for and pp-analyze parse the same options */
		CU_ASSERT_PTR_EQUAL(rec_plan_find(an->name), an->plan);
		CU_ASSERT_PTR_NOT_NULL(an->ops->init);
		CU_ASSERT_PTR_NOT_NULL(an->ops->event);
		CU_ASSERT_PTR_NOT_NULL(an->ops->finish);
	}
	CU_ASSERT_PTR_NULL(ana_analyzer_at(ana_analyzer_count()));
	CU_ASSERT_PTR_NULL(ana_analyzer_find("no-such-analyzer"));
	CU_ASSERT_PTR_NULL(rec_plan_find("no-such-analyzer"));
	CU_ASSERT_EQUAL(ana_registry_check(err, sizeof(err)), 0);
}

static void test_registry__capabilities(void)
{
	const struct pp_analyzer *top = ana_analyzer_find("top");
	const struct pp_analyzer *trace = ana_analyzer_find("trace");
	const struct pp_analyzer *list = ana_analyzer_find("list");

	CU_ASSERT_PTR_NOT_NULL_FATAL(top);
	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT(top->caps & PP_AZC_MERGE);
	CU_ASSERT(trace->caps & PP_AZC_STREAM);
	CU_ASSERT_PTR_EQUAL(list->plan, &pp_plan_none);	/* no -plan.c */
	CU_ASSERT_STRING_EQUAL(ana_analyzer_find("task-state")->c_name, "task_state");
}

/* Every PP_ALIAS line: pp-analyze and pp-record --for find the analyzer it names. */
static void test_registry__aliases(void)
{
	const struct pp_analyzer *bpf = ana_analyzer_find("bpf-kvm-exit"), *an = NULL;
	const char *alias;
	size_t n = 0;

	for (; (alias = ana_analyzer_alias_at(n, &an)); n++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(an);
		CU_ASSERT_PTR_EQUAL(ana_analyzer_find(alias), an);
		CU_ASSERT_PTR_EQUAL(rec_plan_find(alias), an->plan);
		CU_ASSERT_PTR_NULL(strchr(an->name, ':'));	/* the file name has none */
	}
	CU_ASSERT(n >= 1);
	/* perf-prof's name of bpf-kvm-exit */
	CU_ASSERT_PTR_NOT_NULL_FATAL(bpf);
	CU_ASSERT_PTR_EQUAL(ana_analyzer_find("bpf:kvm_exit"), bpf);
	CU_ASSERT_PTR_EQUAL(rec_plan_find("bpf:kvm_exit"), bpf->plan);
	/* aliases are names, not patterns or C names */
	CU_ASSERT_PTR_NULL(ana_analyzer_find("bpf:kvm_exi"));
	CU_ASSERT_PTR_NULL(ana_analyzer_find("bpf_kvm_exit"));
	CU_ASSERT_PTR_NULL(rec_plan_find("bpf_kvm_exit"));
	CU_ASSERT_PTR_NULL(rec_plan_find("task_state"));
}

static int stub_init(struct pp_az *az)
{
	return 0;
}

static void stub_event(struct pp_az *az, const struct pp_event *ev)
{
}

static int stub_finish(struct pp_az *az)
{
	return 0;
}

static int lost_seen;

static void count_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	lost_seen++;
}

struct fake_opts {
	int a;
};

static const struct pp_option fake_options[] = {
	PP_OPT_INT(0, "a", PP_AZOPT(struct fake_opts, a), "n", "an option"),
	PP_OPT_END(),
};

static const struct pp_option outside_options[] = {
	PP_OPT_INT(0, "b", (void *)64, "n", "an option past the struct"),
	PP_OPT_END(),
};

static void test_registry__broken_analyzers_refused(void)
{
	const struct pp_plan_ops plan = { .options = fake_options, .opts_size = sizeof(struct fake_opts) };
	const struct pp_plan_ops bad_plan = { .options = outside_options, .opts_size = sizeof(struct fake_opts) };
	struct pp_analyzer_ops ops = {
		.summary = "a test", .usage = "u", .init = stub_init, .event = stub_event,
		.finish = stub_finish,
	};
	struct pp_analyzer an = { .name = "fake-one", .c_name = "fake_one", .plan = &plan, .ops = &ops };
	char err[256] = "";

	CU_ASSERT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);

	ops.init = NULL;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'fake-one'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "required"));
	ops.init = stub_init;

	an.name = "fake_one";
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	an.name = "Fake-one";
	an.c_name = "Fake_one";
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	an.name = "fake-one";
	an.c_name = "fake_one";

	an.plan = &bad_plan;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "opts_size"));
	an.plan = NULL;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	an.plan = &plan;

	an.caps = PP_AZC_MERGE | PP_AZC_STREAM;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	an.caps = 1u << 7;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	an.caps = PP_AZC_MERGE;

	ops.flags = PP_AZ_NEED_EVENTS | PP_AZ_NO_EVENTS;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	ops.flags = PP_AZ_EXTRA_EVENTS;
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	ops.flags = 0;

	ops.summary = "";
	CU_ASSERT_NOT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
	ops.summary = "a test";
	CU_ASSERT_EQUAL(ana_analyzer_check(&an, err, sizeof(err)), 0);
}

static void test_registry__bind_fills_optional_hooks(void)
{
	const struct pp_analyzer_ops ops = {
		.summary = "a test", .usage = "u", .init = stub_init, .event = stub_event,
		.finish = stub_finish, .lost = count_lost,
	};
	const struct pp_analyzer an = { .name = "fake", .c_name = "fake", .plan = &pp_plan_none,
					.ops = &ops };
	struct pp_lost_ev l = { 0 };
	struct pp_mmap_ev m = { 0 };
	struct pp_sideband_ev sb = { 0 };
	struct pp_az az = { 0 };

	ana_az_bind(&az, &an);
	CU_ASSERT_PTR_EQUAL(az.an, &an);
	CU_ASSERT_STRING_EQUAL(az.name, "fake");
	CU_ASSERT_PTR_EQUAL(az.plan, &pp_plan_none);
	CU_ASSERT_PTR_EQUAL(az.ops->event, stub_event);
	CU_ASSERT_PTR_EQUAL(az.ops->lost, count_lost);	/* its own hook kept */
	CU_ASSERT_PTR_NOT_NULL_FATAL(az.ops->task_exit);
	CU_ASSERT_PTR_NOT_NULL_FATAL(az.ops->sideband);
	CU_ASSERT_PTR_NOT_NULL_FATAL(az.ops->mmap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(az.ops->interval);
	CU_ASSERT_PTR_NOT_NULL_FATAL(az.ops->release);
	/* the no-ops are callable, and the analyzer's own ops stay untouched */
	lost_seen = 0;
	az.ops->lost(&az, &l);
	az.ops->task_exit(&az, 1, 1, 0);
	az.ops->sideband(&az, &sb);
	az.ops->mmap(&az, &m);
	az.ops->interval(&az, 0);
	az.ops->release(&az);
	CU_ASSERT_EQUAL(lost_seen, 1);
	CU_ASSERT_PTR_NULL(an.ops->interval);
	CU_ASSERT_PTR_NULL(az.engine);
}

void test_registry__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_registry__every_analyzer_keeps_the_contract,
			"every analyzer of analyzers.def passes the registry's check"),
		PP_TEST(test_registry__capabilities, "capabilities and plans come from analyzers.def"),
		PP_TEST(test_registry__aliases,
			"an alias finds its analyzer in pp-analyze and its plan in pp-record"),
		PP_TEST(test_registry__broken_analyzers_refused,
			"an analyzer that breaks the contract is refused, with the reason"),
		PP_TEST(test_registry__bind_fills_optional_hooks,
			"an instance's hook table has no NULL dispatch hook"),
	};

	pp_suite_add("registry", tests, PP_ARRAY_SIZE(tests));
}
