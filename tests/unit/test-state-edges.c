/* SPDX-License-Identifier: MIT */
/*
 * test-state-edges.c - the edges of a state's capture ranges (analyze/state/edges.c):
 * a join has each head of the later range meet the earlier's tail of its key, keeps
 * a head that found nothing as the joined range's (unless the earlier has its own or
 * lost events), drops the earlier's tails at a loss of the later, and leaves one edge.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/state/state.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static uint64_t *val(uint64_t v)
{
	uint64_t *p = pp_xmalloc(sizeof(*p));

	*p = v;
	return p;
}

/*
 * Edge @id of @t (made when missing), filled from @spec: "h1:11 t4:42" is the head
 * of key 1 with value 11 and the tail of key 4 with value 42.
 */
static struct ana_edge *edge(struct ana_edges *t, unsigned id, const char *spec)
{
	struct ana_edge *e;
	unsigned long long key, v;
	char kind;
	int n;

	t->v = pp_xgrow(t->v, &t->nr, (size_t)id + 1, sizeof(*t->v));
	if (!t->v[id])
		t->v[id] = pp_xcalloc(1, sizeof(struct ana_edge));
	e = t->v[id];
	for (; sscanf(spec, " %c%llu:%llu%n", &kind, &key, &v, &n) == 3; spec += n)
		pp_u64map_put(kind == 'h' ? &e->heads : &e->tails, key, val(v));
	return e;
}

/* What the meetings saw: key * 1000 + head's value + tail's value (0: none), summed. */
struct meetings {
	unsigned nr;
	uint64_t sum;
};

static bool meet(void *arg, uint64_t key, const void *head, void *tail)
{
	struct meetings *m = arg;

	m->nr++;
	m->sum += key * 1000 + *(const uint64_t *)head + (tail ? *(uint64_t *)tail : 0);
	return !tail;
}

static uint64_t at(const struct pp_u64map *m, uint64_t key)
{
	const uint64_t *v = pp_u64map_get(m, key);

	return v ? *v : 0;
}

static void test_state_edges__join(void)
{
	struct ana_edges t = { 0 };
	struct meetings m = { 0 };
	const struct ana_edge *j;

	edge(&t, 0, "h1:11 t1:12 t4:42")->end_ns = 100;
	/* b's head 1 meets a's tail 12, head 2 nothing (a's head now); tail 1 replaces a's */
	edge(&t, 2, "h1:5 h2:7 t3:33 t1:13")->end_ns = 200;
	ana_edge_join(&t, 0, 2, meet, &m);
	CU_ASSERT_EQUAL(m.nr, 2);
	CU_ASSERT_EQUAL(m.sum, 1000 + 5 + 12 + 2000 + 7);
	CU_ASSERT_PTR_NULL(ana_edges_get(&t, 2));
	j = ana_edge_of(&t, 0);
	CU_ASSERT_EQUAL(at(&j->heads, 1), 11);	/* a's own head of 1 stays */
	CU_ASSERT_EQUAL(at(&j->heads, 2), 7);
	CU_ASSERT_EQUAL(j->heads.nr, 2);
	CU_ASSERT_EQUAL(at(&j->tails, 1), 13);
	CU_ASSERT_EQUAL(at(&j->tails, 3), 33);
	CU_ASSERT_EQUAL(at(&j->tails, 4), 42);	/* b did not touch 4: a's stays */
	CU_ASSERT_EQUAL(j->tails.nr, 3);
	CU_ASSERT_EQUAL(j->end_ns, 200);
	CU_ASSERT_FALSE(j->lost);
	ana_edge_release(&t);
	CU_ASSERT_EQUAL(t.nr, 0);
}

static void test_state_edges__loss(void)
{
	struct ana_edges t = { 0 };
	struct meetings m = { 0 };
	const struct ana_edge *j;

	edge(&t, 1, "t4:42 t5:52");
	edge(&t, 2, "h5:1 t6:62")->lost = true;	/* head 5 is met before the loss */
	ana_edge_join(&t, 1, 2, meet, &m);
	CU_ASSERT_EQUAL(m.nr, 1);
	CU_ASSERT_EQUAL(m.sum, 5000 + 1 + 52);
	j = ana_edge_of(&t, 1);
	CU_ASSERT_TRUE(j->lost);
	CU_ASSERT_EQUAL(j->tails.nr, 1);	/* 4 dropped by the loss */
	CU_ASSERT_EQUAL(at(&j->tails, 6), 62);
	CU_ASSERT_EQUAL(j->heads.nr, 0);

	/* a range after a lossy one: its heads that found nothing go no further back */
	edge(&t, 3, "h8:2");
	ana_edge_join(&t, 1, 3, meet, &m);
	CU_ASSERT_EQUAL(ana_edge_of(&t, 1)->heads.nr, 0);
	ana_edge_release(&t);
}

static void test_state_edges__missing(void)
{
	struct ana_edges t = { 0 };
	struct meetings m = { 0 };
	const struct ana_edge *e = ana_edge_of(&t, 7);

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);	/* none read: an empty edge */
	CU_ASSERT_EQUAL(e->heads.nr + e->tails.nr, 0);
	edge(&t, 4, "h9:3");
	ana_edge_join(&t, 2, 4, meet, &m);	/* @before made where none was read */
	CU_ASSERT_EQUAL(t.nr, 5);
	CU_ASSERT_PTR_NULL(ana_edges_get(&t, 4));
	CU_ASSERT_EQUAL(at(&ana_edge_of(&t, 2)->heads, 9), 3);
	ana_edge_join(&t, 2, 9, meet, &m);	/* @after missing too: nothing changes */
	CU_ASSERT_EQUAL(t.nr, 10);
	CU_ASSERT_EQUAL(m.nr, 1);
	CU_ASSERT_EQUAL(at(&ana_edge_of(&t, 2)->heads, 9), 3);
	ana_edge_release(&t);
}

void test_state_edges__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_state_edges__join,
			"a join meets heads and tails, keeps lone heads, takes the later tails"),
		PP_TEST(test_state_edges__loss,
			"a loss in the later range drops the earlier's tails and ends its heads"),
		PP_TEST(test_state_edges__missing,
			"edges never read are empty, and a join makes the ones it needs"),
	};

	pp_suite_add("state_edges", tests, PP_ARRAY_SIZE(tests));
}
