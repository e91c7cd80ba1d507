/* SPDX-License-Identifier: MIT */
/*
 * exit-reasons.h - what the VM exit analyzers (kvm-exit, bpf-kvm-exit) ask of
 * an exit reason: its printed name and whether it is a halt.
 *
 * The numbers are kvm:kvm_exit's isa field (1 VMX, 2 SVM, 3 arm64) and
 * exit_reason.  The name table itself is pp_exit_reason_str() (expr.h: the
 * expression built-in exit_reason_str() uses it too).
 */
#ifndef PP_COMMON_EXIT_REASONS_H
#define PP_COMMON_EXIT_REASONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_KVM_ISA_VMX 1
#define PP_KVM_ISA_SVM 2
#define PP_KVM_ISA_ARM 3

/**
 * pp_exit_reason_is_hlt() - whether exit @reason of @isa is the guest halting
 * (VMX basic reason 12, SVM 0x78, arm64 WFx): a halted guest waits on purpose,
 * so --than does not print such exits.
 */
bool pp_exit_reason_is_hlt(uint32_t isa, uint32_t reason);

/**
 * pp_exit_reason_name() - the printed name of exit @reason: "EPT_VIOLATION",
 * "INVALID_STATE FAILED_VMENTRY" (VMX, bit 31 set), "npf"; "0x%x" when unknown
 * Return: @buf.
 */
char *pp_exit_reason_name(uint32_t isa, uint32_t reason, char *buf, size_t sz);

#endif
