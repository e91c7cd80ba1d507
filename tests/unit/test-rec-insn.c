/* SPDX-License-Identifier: MIT */
/*
 * test-rec-insn.c - pp-record's instruction bytes at breakpoint IPs
 * (record/perf/insn.c) without a kernel: an ELF core file laid out like
 * /proc/kcore stands in for the kernel, this process's own /proc/PID/mem
 * for a user process, and the KV records are read back from the capture.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "common/log.h"
#include "format/format.h"
#include "record/perf/evsel.h"
#include "record/perf/insn.h"
#include "tests/unit/unit.h"

#define KBASE 0xffffffff81000000ull
#define KSIZE 0x100u
#define KOFF 0x1000u

/* A core file with a PT_NOTE and one PT_LOAD of KSIZE bytes (byte i = i ^ 0x5a) at KBASE. */
static int fake_kcore(char *path, size_t sz)
{
	int fd = memfd_create("kcore", 0);
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 };
	Elf64_Phdr ph[2] = {
		{ .p_type = PT_NOTE, .p_offset = 0x200, .p_filesz = 0x10 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = KOFF, .p_vaddr = KBASE,
		  .p_filesz = KSIZE, .p_memsz = KSIZE },
	};
	uint8_t text[KSIZE];

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	for (unsigned i = 0; i < KSIZE; i++)
		text[i] = (uint8_t)(i ^ 0x5a);
	if (fd < 0 || pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, sizeof(ph), sizeof(eh)) != sizeof(ph) ||
	    pwrite(fd, text, sizeof(text), KOFF) != sizeof(text))
		return -1;
	snprintf(path, sz, "/proc/self/fd/%d", fd);
	return fd;
}

static void test_rec_insn__kcore_reader(void)
{
	char path[64];
	int fd = fake_kcore(path, sizeof(path));
	struct rec_kcore kc;
	uint8_t buf[32];

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(rec_kcore_open(path, &kc), 0);
	CU_ASSERT_EQUAL(kc.nr_segs, 1);
	CU_ASSERT_EQUAL(rec_kcore_read(&kc, KBASE + 0x10, buf, 4), 4);
	CU_ASSERT_EQUAL(buf[0], 0x10 ^ 0x5a);
	CU_ASSERT_EQUAL(buf[3], 0x13 ^ 0x5a);
	CU_ASSERT_EQUAL(rec_kcore_read(&kc, KBASE + KSIZE - 3, buf, 32), 3);	/* the segment's end */
	CU_ASSERT_EQUAL(rec_kcore_read(&kc, KBASE - 1, buf, 4), -1);
	CU_ASSERT_EQUAL(rec_kcore_read(&kc, KBASE + KSIZE, buf, 4), -1);
	rec_kcore_close(&kc);
	CU_ASSERT(rec_kcore_open("/nonexistent/kcore", &kc) < 0);
	rec_kcore_close(&kc);
	CU_ASSERT(rec_kcore_open("/proc/self/status", &kc) < 0);	/* not an ELF core */
	rec_kcore_close(&kc);
	close(fd);
}

struct kv_list {
	char key[32][64];
	char val[32][128];
	size_t n;
};

static void read_kvs(int fd, struct kv_list *l)
{
	struct ppf_reader *r;
	struct ppf_record rec;

	l->n = 0;
	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, PPF_READ_STRICT, &r) == 0);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		if (rec.type == PPF_REC_KV && !strncmp(rec.u.kv.key, "insn.", 5) && l->n < 32) {
			snprintf(l->key[l->n], sizeof(l->key[0]), "%s", rec.u.kv.key);
			snprintf(l->val[l->n], sizeof(l->val[0]), "%s", rec.u.kv.value);
			l->n++;
		}
	ppf_reader_close(r);
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* 40 bytes of "user code" in this process: the IP is at user_text + 20. */
static const uint8_t user_text[40] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	0x48, 0x89, 0x07, 0x90, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
};

static void test_rec_insn__saved_once_as_kv(void)
{
	char path[64], want[128], b[64], a[64];
	int kfd = fake_kcore(path, sizeof(path)), cfd = memfd_create("cap", 0);
	struct rec_insn *ri = rec_insn_new(path);
	struct ppf_writer_opts o = { .own_fd = false };
	struct ppf_writer *w;
	struct kv_list l;
	uint64_t uip = (uint64_t)(uintptr_t)(user_text + 20), saved, failed;
	uint8_t k[KSIZE];

	for (unsigned i = 0; i < KSIZE; i++)
		k[i] = (uint8_t)(i ^ 0x5a);
	CU_ASSERT_FATAL(kfd >= 0 && cfd >= 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(cfd, &o, &w) == 0);
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 1, KBASE + 0x20, true), 0);
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 2, KBASE + 0x20, true), 0);	/* kernel: per IP */
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 1, KBASE + 0x5, true), 0);	/* 5 bytes before */
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 1, KBASE + KSIZE, true), 0);	/* none after */
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 1, KBASE, true), 0);		/* none before */
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, (uint32_t)getpid(), uip, false), 0);
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, (uint32_t)getpid(), uip, false), 0);
	CU_ASSERT_EQUAL(rec_insn_hit(ri, w, 0x7ffffff0, uip, false), 0);	/* no such process */
	rec_insn_count(ri, &saved, &failed);
	CU_ASSERT_EQUAL(saved, 4);
	CU_ASSERT_EQUAL(failed, 2);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);

	read_kvs(cfd, &l);
	CU_ASSERT_EQUAL_FATAL(l.n, 4);
	CU_ASSERT_STRING_EQUAL(l.key[0], "insn.ffffffff81000020");
	hex(b, k + 0x20 - 15, 15);
	hex(a, k + 0x20, 15);
	snprintf(want, sizeof(want), "%s:%s", b, a);
	CU_ASSERT_STRING_EQUAL(l.val[0], want);
	CU_ASSERT_STRING_EQUAL(l.key[1], "insn.ffffffff81000005");
	hex(b, k, 5);
	hex(a, k + 5, 15);
	snprintf(want, sizeof(want), "%s:%s", b, a);
	CU_ASSERT_STRING_EQUAL(l.val[1], want);
	CU_ASSERT_STRING_EQUAL(l.key[2], "insn.ffffffff81000100");
	hex(b, k + KSIZE - 15, 15);
	snprintf(want, sizeof(want), "%s:", b);
	CU_ASSERT_STRING_EQUAL(l.val[2], want);
	snprintf(want, sizeof(want), "insn.%d.%llx", (int)getpid(), (unsigned long long)uip);
	CU_ASSERT_STRING_EQUAL(l.key[3], want);
	CU_ASSERT_STRING_EQUAL(l.val[3], "05060708090a0b0c0d0e0f10111213:4889079018191a1b1c1d1e1f202122");

	/* a file that starts mid-recording gets them all again */
	CU_ASSERT_FATAL(ftruncate(cfd, 0) == 0);
	CU_ASSERT_FATAL(lseek(cfd, 0, SEEK_SET) == 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(cfd, &o, &w) == 0);
	CU_ASSERT_EQUAL(rec_insn_write_all(ri, w), 0);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	read_kvs(cfd, &l);
	CU_ASSERT_EQUAL(l.n, 4);

	rec_insn_free(ri);
	close(cfd);
	close(kfd);
}

static void test_rec_insn__wanted(void)
{
	struct rec_evsel e;

	memset(&e, 0, sizeof(e));
	e.kind = PPF_EV_BREAKPOINT;
	e.attr.type = PERF_TYPE_BREAKPOINT;
	e.attr.bp_type = HW_BREAKPOINT_W;
#if defined(__x86_64__)
	CU_ASSERT_TRUE(rec_insn_wanted(&e));
#else
	CU_ASSERT_FALSE(rec_insn_wanted(&e));
#endif
	e.attr.bp_type = HW_BREAKPOINT_RW;
	CU_ASSERT_FALSE(rec_insn_wanted(&e));
	e.attr.bp_type = HW_BREAKPOINT_X;
	CU_ASSERT_FALSE(rec_insn_wanted(&e));
	e.kind = PPF_EV_TRACEPOINT;
	e.attr.type = PERF_TYPE_TRACEPOINT;
	CU_ASSERT_FALSE(rec_insn_wanted(&e));
}

void test_rec_insn__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_rec_insn__kcore_reader,
			"kernel addresses map to core-file offsets through PT_LOAD headers"),
		PP_TEST(test_rec_insn__saved_once_as_kv,
			"bytes around kernel and user IPs become insn.* KV records, once per IP"),
		PP_TEST(test_rec_insn__wanted, "only write breakpoints get their instructions saved"),
	};
	pp_suite_add("rec_insn", tests, PP_ARRAY_SIZE(tests));
}
