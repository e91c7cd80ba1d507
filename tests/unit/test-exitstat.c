/* SPDX-License-Identifier: MIT */
/*
 * test-exitstat.c - the VM exit rows of kvm-exit and bpf-kvm-exit (common/exit-stat.c)
 * and the exit reason questions they ask (common/exit-reasons.c).
 *
 * Rows come back in perf-prof's latency_dist order (instance, total largest first,
 * ISA, reason), keys that hash alike stay apart, a reset empties without forgetting.
 */
#include <stdlib.h>
#include <string.h>

#include "common/exit-stat.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static void test_exitstat__order_and_reset(void)
{
	struct pp_exit_stat st;
	struct pp_exit_row **v, *a, *b, *c, *d;
	bool all_vmx;
	size_t n;

	pp_exit_stat_init(&st);
	a = pp_exit_stat_row(&st, 7, PP_KVM_ISA_VMX, 48);
	b = pp_exit_stat_row(&st, 7, PP_KVM_ISA_VMX, 12);
	c = pp_exit_stat_row(&st, 3, PP_KVM_ISA_VMX, 30);
	d = pp_exit_stat_row(&st, (uint64_t)1 << 40 | 7, PP_KVM_ISA_VMX, 48);
	CU_ASSERT_PTR_EQUAL(pp_exit_stat_row(&st, 7, PP_KVM_ISA_VMX, 48), a);
	CU_ASSERT_PTR_NOT_EQUAL(d, a);	/* the instance is 64 bits wide */
	pp_hist_add(&a->h, 10);
	pp_hist_add(&b->h, 500);
	pp_hist_add(&c->h, 1);
	/* d has no calls: not printed */
	n = pp_exit_stat_sorted(&st, &v, &all_vmx);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT(all_vmx);
	CU_ASSERT_PTR_EQUAL(v[0], c);	/* instance 3 first */
	CU_ASSERT_PTR_EQUAL(v[1], b);	/* then instance 7, largest total first */
	CU_ASSERT_PTR_EQUAL(v[2], a);
	free(v);

	pp_hist_add(&pp_exit_stat_row(&st, 3, PP_KVM_ISA_SVM, 0x400)->h, 1);
	n = pp_exit_stat_sorted(&st, &v, &all_vmx);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT(!all_vmx);
	CU_ASSERT_EQUAL(v[0]->isa, PP_KVM_ISA_VMX);	/* same total: VMX before SVM */
	free(v);

	a->extra[0] = 5;
	pp_exit_stat_reset(&st);
	CU_ASSERT_EQUAL(a->extra[0], 0);
	CU_ASSERT_EQUAL(pp_hist_count(&a->h), 0);
	n = pp_exit_stat_sorted(&st, &v, &all_vmx);
	CU_ASSERT_EQUAL(n, 0);
	free(v);
	CU_ASSERT_PTR_EQUAL(pp_exit_stat_row(&st, 7, PP_KVM_ISA_VMX, 48), a);
	CU_ASSERT_EQUAL(st.nr, 5);
	pp_exit_stat_release(&st);
	CU_ASSERT_EQUAL(st.nr, 0);
}

static void test_exitstat__many_rows(void)
{
	struct pp_exit_stat st = { 0 };
	struct pp_exit_row **v;
	bool all_vmx;

	/* enough rows to grow the map many times; each key finds its own row again */
	for (uint32_t i = 0; i < 5000; i++)
		pp_hist_add(&pp_exit_stat_row(&st, i % 50, PP_KVM_ISA_VMX, i / 50)->h, i + 1);
	for (uint32_t i = 0; i < 5000; i++) {
		const struct pp_exit_row *r = pp_exit_stat_row(&st, i % 50, PP_KVM_ISA_VMX, i / 50);
		CU_ASSERT(r->ins == i % 50 && r->reason == i / 50 && pp_hist_max(&r->h) == i + 1);
	}
	CU_ASSERT_EQUAL(pp_exit_stat_sorted(&st, &v, &all_vmx), 5000);
	for (size_t i = 1; i < 5000; i++)
		CU_ASSERT(v[i - 1]->ins < v[i]->ins ||
			  (v[i - 1]->ins == v[i]->ins &&
			   pp_hist_sum(&v[i - 1]->h) >= pp_hist_sum(&v[i]->h)));
	free(v);
	pp_exit_stat_release(&st);
}

static void test_exitstat__reasons(void)
{
	char buf[64];

	CU_ASSERT(pp_exit_reason_is_hlt(PP_KVM_ISA_VMX, 12));
	CU_ASSERT(!pp_exit_reason_is_hlt(PP_KVM_ISA_VMX, 48));
	CU_ASSERT(pp_exit_reason_is_hlt(PP_KVM_ISA_SVM, 0x78));
	CU_ASSERT(!pp_exit_reason_is_hlt(PP_KVM_ISA_SVM, 12));
	CU_ASSERT(pp_exit_reason_is_hlt(PP_KVM_ISA_ARM, 0x01));
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_name(PP_KVM_ISA_VMX, 48, buf, sizeof(buf)),
			       "EPT_VIOLATION");
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_name(PP_KVM_ISA_VMX, 0x80000021u, buf, sizeof(buf)),
			       "INVALID_STATE FAILED_VMENTRY");
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_name(PP_KVM_ISA_SVM, 0x400, buf, sizeof(buf)), "npf");
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_name(PP_KVM_ISA_VMX, 999, buf, sizeof(buf)), "0x3e7");
}

void test_exitstat__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_exitstat__order_and_reset,
			"rows print by instance then total, a reset empties them"),
		PP_TEST(test_exitstat__many_rows, "5000 rows: each key keeps its own row"),
		PP_TEST(test_exitstat__reasons, "HLT per ISA, names with FAILED_VMENTRY, 0x.. unknown"),
	};

	pp_suite_add("exitstat", tests, PP_ARRAY_SIZE(tests));
}
