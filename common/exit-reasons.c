/* SPDX-License-Identifier: MIT */
/*
 * exit-reasons.c - names of VM exit reasons for exit_reason_str(): VMX, SVM, arm64.
 *
 * The numbers are hardware ABI: VMX basic exit reasons (Intel SDM vol. 3
 * appendix C, the kernel's uapi asm/vmx.h), SVM exit codes (AMD APM vol. 2
 * appendix C, uapi asm/svm.h, with KVM's lower-case names) and arm64 ESR
 * exception classes (asm/esr.h).  Only the common reasons are listed.
 * Also the two questions the exit analyzers ask (exit-reasons.h).
 */
#include <stddef.h>
#include <stdio.h>

#include "common/exit-reasons.h"
#include "common/expr.h"
#include "common/log.h"

struct reason {
	uint32_t val;
	const char *name;
};

static const struct reason vmx_reasons[] = {
	{ 0, "EXCEPTION_NMI" }, { 1, "EXTERNAL_INTERRUPT" }, { 2, "TRIPLE_FAULT" },
	{ 3, "INIT_SIGNAL" }, { 4, "SIPI_SIGNAL" }, { 7, "INTERRUPT_WINDOW" },
	{ 8, "NMI_WINDOW" }, { 9, "TASK_SWITCH" }, { 10, "CPUID" }, { 12, "HLT" },
	{ 13, "INVD" }, { 14, "INVLPG" }, { 15, "RDPMC" }, { 16, "RDTSC" }, { 18, "VMCALL" },
	{ 19, "VMCLEAR" }, { 20, "VMLAUNCH" }, { 21, "VMPTRLD" }, { 22, "VMPTRST" },
	{ 23, "VMREAD" }, { 24, "VMRESUME" }, { 25, "VMWRITE" }, { 26, "VMOFF" },
	{ 27, "VMON" }, { 28, "CR_ACCESS" }, { 29, "DR_ACCESS" }, { 30, "IO_INSTRUCTION" },
	{ 31, "MSR_READ" }, { 32, "MSR_WRITE" }, { 33, "INVALID_STATE" },
	{ 34, "MSR_LOAD_FAIL" }, { 36, "MWAIT_INSTRUCTION" }, { 37, "MONITOR_TRAP_FLAG" },
	{ 39, "MONITOR_INSTRUCTION" }, { 40, "PAUSE_INSTRUCTION" },
	{ 41, "MCE_DURING_VMENTRY" }, { 43, "TPR_BELOW_THRESHOLD" }, { 44, "APIC_ACCESS" },
	{ 45, "EOI_INDUCED" }, { 46, "GDTR_IDTR" }, { 47, "LDTR_TR" },
	{ 48, "EPT_VIOLATION" }, { 49, "EPT_MISCONFIG" }, { 50, "INVEPT" }, { 51, "RDTSCP" },
	{ 52, "PREEMPTION_TIMER" }, { 53, "INVVPID" }, { 54, "WBINVD" }, { 55, "XSETBV" },
	{ 56, "APIC_WRITE" }, { 57, "RDRAND" }, { 58, "INVPCID" }, { 59, "VMFUNC" },
	{ 60, "ENCLS" }, { 61, "RDSEED" }, { 62, "PML_FULL" }, { 63, "XSAVES" },
	{ 64, "XRSTORS" }, { 67, "UMWAIT" }, { 68, "TPAUSE" }, { 74, "BUS_LOCK" },
	{ 75, "NOTIFY" },
};

static const struct reason svm_reasons[] = {
	{ 0x000, "read_cr0" }, { 0x003, "read_cr3" }, { 0x004, "read_cr4" },
	{ 0x008, "read_cr8" }, { 0x010, "write_cr0" }, { 0x013, "write_cr3" },
	{ 0x014, "write_cr4" }, { 0x018, "write_cr8" }, { 0x020, "read_dr0" },
	{ 0x021, "read_dr1" }, { 0x022, "read_dr2" }, { 0x023, "read_dr3" },
	{ 0x024, "read_dr4" }, { 0x025, "read_dr5" }, { 0x026, "read_dr6" },
	{ 0x027, "read_dr7" }, { 0x030, "write_dr0" }, { 0x031, "write_dr1" },
	{ 0x032, "write_dr2" }, { 0x033, "write_dr3" }, { 0x034, "write_dr4" },
	{ 0x035, "write_dr5" }, { 0x036, "write_dr6" }, { 0x037, "write_dr7" },
	{ 0x040, "DE_excp" }, { 0x041, "DB_excp" }, { 0x043, "BP_excp" },
	{ 0x046, "UD_excp" }, { 0x047, "NM_excp" }, { 0x04d, "GP_excp" },
	{ 0x04e, "PF_excp" }, { 0x050, "MF_excp" }, { 0x051, "AC_excp" },
	{ 0x052, "MC_excp" }, { 0x060, "interrupt" }, { 0x061, "nmi" }, { 0x062, "smi" },
	{ 0x063, "init" }, { 0x064, "vintr" }, { 0x065, "cr0_sel_write" },
	{ 0x066, "read_idtr" }, { 0x067, "read_gdtr" }, { 0x068, "read_ldtr" },
	{ 0x069, "read_rt" }, { 0x06a, "write_idtr" }, { 0x06b, "write_gdtr" },
	{ 0x06c, "write_ldtr" }, { 0x06d, "write_rt" }, { 0x06e, "rdtsc" },
	{ 0x06f, "rdpmc" }, { 0x070, "pushf" }, { 0x071, "popf" }, { 0x072, "cpuid" },
	{ 0x073, "rsm" }, { 0x074, "iret" }, { 0x075, "swint" }, { 0x076, "invd" },
	{ 0x077, "pause" }, { 0x078, "hlt" }, { 0x079, "invlpg" }, { 0x07a, "invlpga" },
	{ 0x07b, "io" }, { 0x07c, "msr" }, { 0x07d, "task_switch" },
	{ 0x07e, "ferr_freeze" }, { 0x07f, "shutdown" }, { 0x080, "vmrun" },
	{ 0x081, "hypercall" }, { 0x082, "vmload" }, { 0x083, "vmsave" }, { 0x084, "stgi" },
	{ 0x085, "clgi" }, { 0x086, "skinit" }, { 0x087, "rdtscp" }, { 0x088, "icebp" },
	{ 0x089, "wbinvd" }, { 0x08a, "monitor" }, { 0x08b, "mwait" },
	{ 0x08c, "mwait_cond" }, { 0x08d, "xsetbv" }, { 0x08e, "rdpru" },
	{ 0x08f, "write_efer_trap" }, { 0x0a3, "invpcid" }, { 0x400, "npf" },
	{ 0x401, "avic_incomplete_ipi" }, { 0x402, "avic_unaccelerated_access" },
	{ 0x403, "vmgexit" },
};

static const struct reason arm_reasons[] = {
	{ 0x00, "UNKNOWN" }, { 0x01, "WFx" }, { 0x03, "CP15_32" }, { 0x04, "CP15_64" },
	{ 0x05, "CP14_MR" }, { 0x06, "CP14_LS" }, { 0x07, "FP_ASIMD" }, { 0x08, "CP10_ID" },
	{ 0x09, "PAC" }, { 0x0c, "CP14_64" }, { 0x0d, "BTI" }, { 0x0e, "ILL" },
	{ 0x11, "SVC32" }, { 0x12, "HVC32" }, { 0x13, "SMC32" }, { 0x15, "SVC64" },
	{ 0x16, "HVC64" }, { 0x17, "SMC64" }, { 0x18, "SYS64" }, { 0x19, "SVE" },
	{ 0x1a, "ERET" }, { 0x1c, "FPAC" }, { 0x1d, "SME" }, { 0x1f, "IMP_DEF" },
	{ 0x20, "IABT_LOW" }, { 0x21, "IABT_CUR" }, { 0x22, "PC_ALIGN" },
	{ 0x24, "DABT_LOW" }, { 0x25, "DABT_CUR" }, { 0x26, "SP_ALIGN" },
	{ 0x28, "FP_EXC32" }, { 0x2c, "FP_EXC64" }, { 0x2f, "SERROR" },
	{ 0x30, "BREAKPT_LOW" }, { 0x31, "BREAKPT_CUR" }, { 0x32, "SOFTSTP_LOW" },
	{ 0x33, "SOFTSTP_CUR" }, { 0x34, "WATCHPT_LOW" }, { 0x35, "WATCHPT_CUR" },
	{ 0x38, "BKPT32" }, { 0x3a, "VECTOR32" }, { 0x3c, "BRK64" },
};

static const char *lookup(const struct reason *t, size_t n, uint64_t val)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].val == val)
			return t[i].name;
	return NULL;
}

const char *pp_exit_reason_str(int isa, uint64_t val)
{
	switch (isa) {
	case 1:
		return lookup(vmx_reasons, PP_ARRAY_SIZE(vmx_reasons), val & 0xffff);
	case 2:
		return lookup(svm_reasons, PP_ARRAY_SIZE(svm_reasons), val);
	case 3:
		return lookup(arm_reasons, PP_ARRAY_SIZE(arm_reasons), val);
	default:
		return NULL;
	}
}

bool pp_exit_reason_is_hlt(uint32_t isa, uint32_t reason)
{
	switch (isa) {
	case PP_KVM_ISA_SVM:
		return reason == 0x78;
	case PP_KVM_ISA_ARM:
		return reason == 0x01;
	default:
		return (reason & 0xffff) == 12;
	}
}

char *pp_exit_reason_name(uint32_t isa, uint32_t reason, char *buf, size_t sz)
{
	const char *n = pp_exit_reason_str((int)isa, reason);

	if (!n)
		snprintf(buf, sz, "0x%x", reason);
	else if (isa == PP_KVM_ISA_VMX && (reason & 0x80000000u))
		snprintf(buf, sz, "%s FAILED_VMENTRY", n);
	else
		snprintf(buf, sz, "%s", n);
	return buf;
}
