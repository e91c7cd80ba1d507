/* SPDX-License-Identifier: MIT */
/*
 * test-azmem.c - the plans of kmemleak, blktrace, kvm-exit, kvmmmu, breakpoint
 * and misc: the events pp-record is asked for, from the analyzers' arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/blktrace.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"
#include "record/plans.h"
#include "tests/unit/unit.h"

/*
 * Build analyzer @name's plan (found as pp-record --for finds it) for the
 * NULL-terminated @args; the events joined by " | " in @out.
 */
static int plan_of(const char *name, const char **args, struct pp_plan *p, char *out, size_t sz)
{
	const struct pp_plan_ops *ops = rec_plan_find(name);
	char err[256] = "";
	int argc = 0, rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	while (args[argc])
		argc++;
	memset(p, 0, sizeof(*p));
	rc = pp_plan_build(name, ops, argc, args, p, err, sizeof(err));
	out[0] = '\0';
	for (size_t i = 0; !rc && i < p->nr_events; i++)
		snprintf(out + strlen(out), sz - strlen(out), "%s%s", i ? " | " : "", p->events[i]);
	if (rc)
		snprintf(out, sz, "%s", err);
	return rc;
}

static void test_azmem__kmemleak_stacks_on_allocations(void)
{
	const char *args[] = { "--alloc",
			       "kmem:kmalloc//ptr=ptr/size=bytes_alloc/,kmem:a,kmem:b/x>1",
			       "--free", "kmem:kfree//ptr=ptr/", "-g", NULL };
	const char *noargs[] = { "--alloc", "kmem:kmalloc", NULL };
	struct pp_plan p;
	char out[1024];

	CU_ASSERT_EQUAL(plan_of("kmemleak", args, &p, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "kmem:kmalloc//ptr=ptr/size=bytes_alloc/stack/ | "
				    "kmem:a//stack/ | kmem:b/x>1/stack/ | kmem:kfree//ptr=ptr/");
	CU_ASSERT_FALSE(p.callchain);	/* not on the releases */
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("kmemleak", noargs, &p, out, sizeof(out)), PP_EUSAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--free"));
	pp_plan_release(&p);
}

static void test_azmem__breakpoint_defaults(void)
{
	const char *args[] = { "0x1234", "0x10/8:r", "jiffies:x", "0x20/2:rw", NULL };
	const char *bad_len[] = { "0x1234/3", NULL };
	const char *bad_type[] = { "0x1234:q", NULL };
	const char *too_many[] = { "1", "2", "3", "4", "5", NULL };
	struct pp_plan p;
	char out[1024];

	CU_ASSERT_EQUAL(plan_of("breakpoint", args, &p, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "mem:0x1234/1:w | mem:0x10/8:rw | mem:jiffies/8:x | "
				    "mem:0x20/2:rw");
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("breakpoint", bad_len, &p, out, sizeof(out)), PP_ESYNTAX);
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("breakpoint", bad_type, &p, out, sizeof(out)), PP_ESYNTAX);
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("breakpoint", too_many, &p, out, sizeof(out)), PP_EUSAGE);
	pp_plan_release(&p);
}

static void test_azmem__blktrace_filters(void)
{
	struct blktrace_dev disk = { .dev = 8u << 20 }, part = { .dev = 8u << 20, .part = true,
								  .start = 2048, .size = 1000 };
	const char *args[] = { "-d", "259:3", NULL };
	struct blktrace_dev d;
	struct pp_plan p;
	char out[1024], err[256], *f;

	f = az_blktrace_filter(&disk);
	CU_ASSERT_STRING_EQUAL(f, "dev==8388608");
	free(f);
	f = az_blktrace_filter(&part);
	CU_ASSERT_STRING_EQUAL(f, "dev==8388608&&sector>=2048&&sector<=3047");
	free(f);
	/* MAJOR:MINOR needs no device node; 259:3 is no partition here unless sysfs says so */
	if (az_blktrace_dev_resolve("259:3", &d, err, sizeof(err)) == 0 && !d.part) {
		CU_ASSERT_EQUAL(d.dev, 259u << 20 | 3);
		CU_ASSERT_EQUAL(plan_of("blktrace", args, &p, out, sizeof(out)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "block:block_rq_issue/dev==271581187/"));
		CU_ASSERT_EQUAL(p.nr_events, BLKTRACE_NR_EVENTS);
		CU_ASSERT_TRUE(p.all_cpus);
		pp_plan_release(&p);
	}
	CU_ASSERT_NOT_EQUAL(az_blktrace_dev_resolve("/dev/pp-no-such-disk", &d, err, sizeof(err)),
			    0);
}

static void test_azmem__kvm_and_misc(void)
{
	const char *kx[] = { "--filter", "exit_reason==48", NULL };
	const char *mmu[] = { "--spte", "--mmio", "-e", "kvm:kvm_page_fault", NULL };
	const char *misc[] = { NULL };
	const char *misc_e[] = { "-e", "sched:sched_switch", NULL };
	struct pp_plan p;
	char out[1024];

	CU_ASSERT_EQUAL(plan_of("kvm-exit", kx, &p, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "kvm:kvm_exit/exit_reason==48/ | kvm:kvm_entry");
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("kvmmmu", mmu, &p, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "kvmmmu:kvm_mmu_get_page | kvmmmu:kvm_mmu_prepare_zap_page | "
				    "kvmmmu:kvm_mmu_set_spte | kvmmmu:mark_mmio_spte | "
				    "kvm:kvm_page_fault");
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("misc", misc, &p, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "dummy");
	CU_ASSERT_TRUE(p.sideband && p.all_cpus);
	pp_plan_release(&p);
	CU_ASSERT_EQUAL(plan_of("misc", misc_e, &p, out, sizeof(out)), PP_EUSAGE);
	pp_plan_release(&p);
}

void test_azmem__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_azmem__kmemleak_stacks_on_allocations,
			"kmemleak -g puts stacks on the allocation events only"),
		PP_TEST(test_azmem__breakpoint_defaults,
			"breakpoint arguments get perf-prof's defaults; bad ones are refused"),
		PP_TEST(test_azmem__blktrace_filters,
			"blktrace device filters: whole disk, partition range, MAJOR:MINOR"),
		PP_TEST(test_azmem__kvm_and_misc,
			"kvm-exit, kvmmmu and misc record what they need"),
	};

	pp_suite_add("azmem", tests, PP_ARRAY_SIZE(tests));
}
