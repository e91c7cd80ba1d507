/* SPDX-License-Identifier: MIT */
/*
 * test-sys.c - the system-call seam (common/sys.c): PP_FAULT's rules, the counts,
 * and the capture writer through it (short writes and EINTR cost nothing, ENOSPC in
 * the middle of a segment leaves a capture that reads up to its last whole segment).
 * The suite runs in a process of its own, so the seam's global state is its own.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/err.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sys.h"
#include "format/format.h"
#include "tests/unit/unit.h"

static int arm(const char *spec, char *err, size_t sz)
{
	setenv("PP_FAULT", spec, 1);
	return pp_sys_faults_init(err, sz);
}

static void test_sys__parse(void)
{
	char err[160];

	unsetenv("PP_FAULT");
	CU_ASSERT_EQUAL(pp_sys_faults_init(err, sizeof(err)), 0);
	CU_ASSERT_FALSE(pp_sys_armed);
	CU_ASSERT_EQUAL(arm("nosuch:1:EIO", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no system call 'nosuch'"));
	CU_ASSERT_EQUAL(arm("write:0:EIO", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad rule 'write:0:EIO'"));
	CU_ASSERT_EQUAL(arm("write:2x:EIO", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(arm("write:2", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(arm("write:1:EWHAT", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown error 'EWHAT'"));
	CU_ASSERT_FALSE(pp_sys_armed);
	CU_ASSERT_EQUAL(arm("ioctl:2:EIO,,perf_event_open:3+:EMFILE,uprobe:1:short", err,
			    sizeof(err)), 0);
	CU_ASSERT_TRUE(pp_sys_armed);
	/* the Nth call only, or the Nth and on; other calls count apart */
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_IOCTL), 0);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_IOCTL), EIO);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_IOCTL), 0);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_PERF_EVENT_OPEN), 0);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_PERF_EVENT_OPEN), 0);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_PERF_EVENT_OPEN), EMFILE);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_PERF_EVENT_OPEN), EMFILE);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_UPROBE), PP_SYS_SHORT);
	CU_ASSERT_EQUAL(pp_sys_fault(PP_SYS_WRITE), 0);
	/* a wrapper fails without calling: errno says why */
	errno = 0;
	CU_ASSERT_EQUAL(pp_sys_perf_event_open(NULL, 0, 0, -1, 0), -1);
	CU_ASSERT_EQUAL(errno, EMFILE);
}

/* The bytes of @fd from its start. */
static size_t slurp(int fd, char *buf, size_t sz)
{
	ssize_t n = pread(fd, buf, sz, 0);

	return n > 0 ? (size_t)n : 0;
}

static void test_sys__writev_retries(void)
{
	char err[160], buf[64];
	struct iovec iov[3];
	size_t written = 0;
	int fd = memfd_create("sys", 0);

	CU_ASSERT_EQUAL(arm("write:1:short,write:2:EINTR,write:3:short,write:5:EINTR", err,
			    sizeof(err)), 0);
	iov[0] = (struct iovec){ "hello ", 6 };
	iov[1] = (struct iovec){ "", 0 };
	iov[2] = (struct iovec){ "world", 5 };
	CU_ASSERT_EQUAL(pp_writev_full(fd, iov, 3, &written), 0);
	CU_ASSERT_EQUAL(written, 11);
	CU_ASSERT_EQUAL(slurp(fd, buf, sizeof(buf)), 11);
	CU_ASSERT_EQUAL(memcmp(buf, "hello world", 11), 0);
	/* a lasting error after half a write: the half is there, the error is returned */
	CU_ASSERT_EQUAL(arm("write:1:short,write:2+:ENOSPC", err, sizeof(err)), 0);
	iov[0] = (struct iovec){ "abcdefgh", 8 };
	written = 99;
	CU_ASSERT_EQUAL(pp_writev_full(fd, iov, 1, &written), -ENOSPC);
	CU_ASSERT_EQUAL(written, 4);
	close(fd);
}

/* Write @nr_segments segments of samples; return the writer's close status. */
static int write_capture(int fd, unsigned nr_segments)
{
	struct ppf_writer_opts o = { .zstd_level = 1, .created_ns = 1 };
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_SOFTWARE, .name = "cpu-clock",
				    .selector = "cpu-clock", .filter = "", .format = "" };
	struct ppf_writer *w;
	int rc;

	if (ppf_writer_open_fd(fd, &o, &w))
		return -1;
	rc = ppf_write_event_desc(w, &d);
	for (unsigned s = 0; s < nr_segments && !rc; s++) {
		for (unsigned i = 0; i < 100 && !rc; i++) {
			struct ppf_sample x = { .time_ns = 1000 + s * 1000 + i, .id = 1,
						.cpu = i % 2, .pid = 7, .tid = 7, .period = 1 };
			rc = ppf_write_sample(w, &x);
		}
		if (!rc)
			rc = ppf_writer_flush(w);
	}
	int crc = ppf_writer_close(w);

	return rc ? rc : crc;
}

static void test_sys__capture_cut(void)
{
	char err[160];
	int fd = memfd_create("cap", 0);
	struct ppf_reader *r = NULL;
	struct ppf_record rec;
	unsigned samples = 0;

	/* 1 the file header, 2 the meta segment, 3 and 4 events, 5 half of the third events */
	CU_ASSERT_EQUAL(arm("write:5:short,write:6+:ENOSPC", err, sizeof(err)), 0);
	CU_ASSERT_NOT_EQUAL(write_capture(fd, 6), 0);
	unsetenv("PP_FAULT");
	CU_ASSERT_EQUAL(pp_sys_faults_init(err, sizeof(err)), 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_EQUAL_FATAL(ppf_reader_open_fd(fd, 0, &r), 0);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		samples += rec.type == PPF_REC_SAMPLE;
	CU_ASSERT_EQUAL(samples, 200);
	CU_ASSERT_TRUE(ppf_reader_stats(r)->truncated);
	CU_ASSERT_TRUE(ppf_reader_stats(r)->cut_mid_segment);
	ppf_reader_close(r);
	close(fd);
}

void test_sys__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_sys__parse, "PP_FAULT rules parse, count per call and fail the Nth"),
		PP_TEST(test_sys__writev_retries, "short and interrupted writes are finished, ENOSPC is not"),
		PP_TEST(test_sys__capture_cut, "ENOSPC mid-segment leaves the segments before it"),
	};
	pp_suite_add("sys", tests, PP_ARRAY_SIZE(tests));
}
