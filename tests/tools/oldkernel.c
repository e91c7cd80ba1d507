/* SPDX-License-Identifier: MIT */
/*
 * oldkernel.c - run a command as an older kernel would answer it (test-only).
 *
 *   oldkernel [-v] [--strict-size] VERSION -- COMMAND [ARGS...]
 *
 * VERSION is 4.18, 5.4, 5.10, 5.15 or 6.1.  A seccomp filter installed around
 * COMMAND (and inherited by its children) makes the interfaces that kernel
 * lacks fail the way it fails them:
 *   - a system call newer than it: ENOSYS (the filter alone);
 *   - perf_event_open() with an attr bit, a sample_type or a read_format flag
 *     newer than it: EINVAL; with an attr larger than it knows whose extra
 *     bytes are not all zero: E2BIG, the size it knows written into
 *     attr.size, as perf_copy_attr() does (--strict-size: any larger attr,
 *     to test that answer on its own);
 *   - open() of a tracefs file newer than it (buffer_percent,
 *     set_event_notrace_pid, buffer_subbuf_size_kb): ENOENT.
 * The last two need to read the caller's memory: the filter hands those
 * calls to this process (SECCOMP_RET_USER_NOTIF), which reads the attr or
 * the path through /proc/PID/mem and answers, or lets the call go on.
 * -v prints each refusal on stderr.  Exit status: COMMAND's, 125 for its own
 * failures.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>

#if !defined(__x86_64__)
#error "oldkernel: system call numbers are x86_64's"
#endif

/* What one kernel version lacks. */
struct kernel {
	const char *version;
	unsigned max_nr;		/* its highest x86_64 system call number */
	uint32_t attr_size;		/* sizeof(struct perf_event_attr) it knows */
	uint64_t sample_max;		/* PERF_SAMPLE_MAX */
	uint64_t format_max;		/* PERF_FORMAT_MAX */
	int flag_bits;			/* attr flag bits it knows (disabled = bit 0) */
	bool buffer_percent, notrace_pid, subbuf_size;	/* tracefs files it has */
};

static const struct kernel kernels[] = {
	/* 334 rseq; up to namespaces (bit 28); PHYS_ADDR the last sample */
	{ "4.18", 334, 112, 1u << 20, 1u << 4, 29, false, false, false },
	/* 435 clone3 (5.3); ksymbol, bpf_event (5.1), aux_output (5.4) */
	{ "5.4", 435, 112, 1u << 20, 1u << 4, 32, true, false, false },
	/* 440 process_madvise; cgroup (5.7), text_poke (5.9); AUX, CGROUP samples; aux_sample_size */
	{ "5.10", 440, 120, 1u << 22, 1u << 4, 34, true, true, false },
	/* 448 process_mrelease; build_id, inherit_thread, remove_on_exec, sigtrap (5.12-13) */
	{ "5.15", 448, 128, 1u << 25, 1u << 4, 38, true, true, false },
	/* 450 set_mempolicy_home_node; PERF_FORMAT_LOST (6.0) */
	{ "6.1", 450, 128, 1u << 25, 1u << 5, 38, true, true, false },
};

static const struct kernel *K;
static bool verbose, strict_size;

static int install(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, K->max_nr, 2, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

static int send_fd(int sock, int fd)
{
	char c = 0, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(cm = CMSG_FIRSTHDR(&m)))
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static ssize_t mem_rw(pid_t pid, uint64_t addr, void *buf, size_t n, bool write)
{
	char path[64];
	int fd;
	ssize_t r;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, write ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return -1;
	r = write ? pwrite(fd, buf, n, (off_t)addr) : pread(fd, buf, n, (off_t)addr);
	close(fd);
	return r;
}

/* The answer to perf_event_open(): 0 to let it go on, else the errno. */
static int perf_answer(pid_t pid, uint64_t uattr)
{
	unsigned char raw[512] = { 0 };
	struct perf_event_attr a;
	uint64_t flags;
	uint32_t size;

	if (mem_rw(pid, uattr, raw, sizeof(uint64_t) * 2, false) != 16)
		return 0;
	memcpy(&size, raw + offsetof(struct perf_event_attr, size), sizeof(size));
	if (size > sizeof(raw) || mem_rw(pid, uattr, raw, size, false) != (ssize_t)size)
		return 0;	/* the kernel answers that */
	if (size > K->attr_size) {
		bool tail = strict_size;

		for (uint32_t i = K->attr_size; i < size; i++)
			tail |= raw[i] != 0;
		if (tail) {
			uint32_t known = K->attr_size;

			mem_rw(pid, uattr + offsetof(struct perf_event_attr, size), &known,
			       sizeof(known), true);
			if (verbose)
				fprintf(stderr, "oldkernel %s: perf_event_open: E2BIG (attr of %u bytes)\n",
					K->version, size);
			return E2BIG;
		}
	}
	memset(&a, 0, sizeof(a));
	memcpy(&a, raw, size < sizeof(a) ? size : sizeof(a));
	memcpy(&flags, raw + offsetof(struct perf_event_attr, read_format) + 8, sizeof(flags));
	if ((a.sample_type & ~(K->sample_max - 1)) || (a.read_format & ~(K->format_max - 1)) ||
	    (flags >> K->flag_bits)) {
		if (verbose)
			fprintf(stderr, "oldkernel %s: perf_event_open: EINVAL (sample_type 0x%llx, "
				"read_format 0x%llx, flags 0x%llx)\n", K->version,
				(unsigned long long)a.sample_type, (unsigned long long)a.read_format,
				(unsigned long long)flags);
		return EINVAL;
	}
	return 0;
}

/* The answer to open(): ENOENT for a tracefs file this kernel has not. */
static int open_answer(pid_t pid, uint64_t upath)
{
	static const char *const files[] = { "/buffer_percent", "/set_event_notrace_pid",
					     "/buffer_subbuf_size_kb" };
	char path[4096];
	ssize_t n = mem_rw(pid, upath, path, sizeof(path) - 1, false);
	bool have[] = { K->buffer_percent, K->notrace_pid, K->subbuf_size };

	if (n <= 0)
		return 0;
	path[n] = '\0';
	path[strnlen(path, (size_t)n)] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t pl = strlen(path), fl = strlen(files[i]);

		if (!have[i] && pl >= fl && !strcmp(path + pl - fl, files[i]) &&
		    (strstr(path, "tracing/") || strstr(path, "instances/"))) {
			if (verbose)
				fprintf(stderr, "oldkernel %s: open %s: ENOENT\n", K->version, path);
			return ENOENT;
		}
	}
	return 0;
}

static void serve(int lfd, pid_t child)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		return;
	req = calloc(1, sz.seccomp_notif > sizeof(*req) ? sz.seccomp_notif : sizeof(*req));
	resp = calloc(1, sz.seccomp_notif_resp > sizeof(*resp) ? sz.seccomp_notif_resp :
							       sizeof(*resp));
	for (;;) {
		struct pollfd p = { lfd, POLLIN, 0 };
		int st, err = 0;

		if (waitpid(child, &st, WNOHANG) == child) {
			if (WIFEXITED(st))
				exit(WEXITSTATUS(st));
			exit(128 + WTERMSIG(st));
		}
		if (poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN))
			continue;
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, req))
			continue;
		if (req->data.nr == __NR_perf_event_open)
			err = perf_answer(req->pid, req->data.args[0]);
		else if (req->data.nr == __NR_openat)
			err = open_answer(req->pid, req->data.args[1]);
		else if (req->data.nr == __NR_open)
			err = open_answer(req->pid, req->data.args[0]);
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->error = err ? -err : 0;
		resp->flags = err ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}

int main(int argc, char **argv)
{
	int sv[2], i = 1, lfd;
	pid_t child;

	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--strict-size"))
			strict_size = true;
	}
	for (size_t k = 0; i < argc && k < sizeof(kernels) / sizeof(kernels[0]); k++)
		if (!strcmp(argv[i], kernels[k].version))
			K = &kernels[k];
	if (!K || i + 2 >= argc || strcmp(argv[i + 1], "--")) {
		fprintf(stderr, "usage: oldkernel [-v] [--strict-size] 4.18|5.4|5.10|5.15|6.1 -- COMMAND [ARGS...]\n");
		return 125;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 125;
	child = fork();
	if (child < 0)
		return 125;
	if (child == 0) {
		close(sv[0]);
		lfd = install();
		if (lfd < 0 || send_fd(sv[1], lfd)) {
			perror("oldkernel: seccomp");
			_exit(125);
		}
		close(lfd);
		close(sv[1]);
		execvp(argv[i + 2], argv + i + 2);
		perror("oldkernel: exec");
		_exit(127);
	}
	close(sv[1]);
	lfd = recv_fd(sv[0]);
	if (lfd < 0) {
		waitpid(child, NULL, 0);
		return 125;
	}
	signal(SIGINT, SIG_IGN);	/* the command's to handle; its exit ends this */
	serve(lfd, child);
	return 125;
}
