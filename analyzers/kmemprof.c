/* SPDX-License-Identifier: MIT */
/*
 * kmemprof.c - bytes and objects allocated and freed, per call stack.
 *
 * perf-prof's kmemprof: -e ALLOC[,ALLOC...] -e FREE[,FREE...] related by key
 * (usually the pointer: -k ptr or key=), over the shared two-event engine
 * with its kmemprof implementation.  ALLOC events need size=EXPR (default
 * bytes_alloc when the event has it) and stacks; each interval prints the
 * top 10 allocating and freeing stacks, and the allocations never freed.
 */
#include "analyze/analyzer.h"
#include "analyze/latency/latency.h"

static int kmemprof_init(struct pp_az *az)
{
	struct ana_te_config cfg = { .impl = ANA_TE_KMEMPROF };

	return ana_te_az_init(az, &cfg);
}

const struct pp_analyzer_ops az_kmemprof_ops = {
	.summary = "bytes and objects allocated and freed per call stack (alloc -e, free -e)",
	.usage = "pp-analyze FILE kmemprof -e ALLOC//size=EXPR/stack/ -e FREE [-k EXPR] [-i MS]",
	.examples =
		"  pp-analyze pp.capture kmemprof -e 'kmem:kmalloc//size=bytes_alloc/stack/' -e kmem:kfree -k ptr\n"
		"  pp-analyze pp.capture kmemprof -e 'kmem:kmalloc//stack/,kmem:kmalloc_node//stack/' "
		"-e kmem:kfree -k ptr -i 5000\n"
		"  pp-analyze pp.capture kmemprof -e 'kmem:mm_page_alloc//size=4096<<order/key=pfn/stack/' "
		"-e 'kmem:mm_page_free//key=pfn/stack/'\n"
		"  pp-record --for \"kmemprof -e kmem:kmalloc -e kmem:kfree\" --duration 5 -o km.capture\n",
	.flags = PP_AZ_NEED_EVENTS,
	.init = kmemprof_init,
	ANA_TE_HOOKS,
};
