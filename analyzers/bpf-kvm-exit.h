/* SPDX-License-Identifier: MIT */
/*
 * bpf-kvm-exit.h - the options of the bpf-kvm-exit analyzer (perf-prof's
 * bpf:kvm_exit), shared by bpf-kvm-exit.c and bpf-kvm-exit-plan.c (which
 * pp-record links).
 */
#ifndef PP_AZ_BPF_KVM_EXIT_H
#define PP_AZ_BPF_KVM_EXIT_H

#include <stdint.h>

struct bpf_kvm_exit_opts {
	uint64_t threshold_ns;	/* --threshold: only exits longer than this count (0: 1 ms) */
	const char *output2;	/* --output2 FILE: per process, the largest non-HLT delay */
};

#endif
