/* SPDX-License-Identifier: MIT */
/*
 * dio.c - N direct-I/O reads of a fixed size, for block-layer tracing (blktrace).
 *
 * O_DIRECT bypasses the page cache, so each pread() becomes (at least) one block request
 * even if the file was just written.  The file is created, or extended, with buffered writes
 * and an fsync first when it is missing or shorter than --file-size; that phase is not part
 * of the LOAD counts.  Offsets are aligned to --size: sequential (wrapping at the end of the
 * file) or, with --random, drawn from a fixed-seed generator.  The buffer is page-aligned.
 * Filesystems without O_DIRECT make the open fail with EINVAL: the program then says so and
 * exits with status 3, so a test can tell "unsupported here" from a real failure.
 *
 * usage: dio [-f FILE] [-n N] [-s SIZE] [-F FILE_SIZE] [-R]
 *   -f, --file PATH       file to read (default ./dio.dat)
 *   -n, --count N         reads (default 100)
 *   -s, --size B          bytes per read, a multiple of 512; K/M suffix (default 4096)
 *   -F, --file-size B     file size, K/M/G suffix (default: 256 reads' worth, at least 1M)
 *   -R, --random          random aligned offsets instead of sequential ones
 *
 * Last line on stderr:
 *   LOAD dio reads=N size=B bytes=N*B file_size=B pattern=seq|random created=0|1 file=PATH
 *        pid=P tids=T ops=N wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#define DIO_ALIGN 4096

static const char usage[] =
	"usage: dio [-f FILE] [-n N] [-s SIZE] [-F FILE_SIZE] [-R]\n"
	"  -f, --file PATH       file to read (default ./dio.dat; created if missing)\n"
	"  -n, --count N         O_DIRECT reads (default 100)\n"
	"  -s, --size B          bytes per read, multiple of 512 (default 4096)\n"
	"  -F, --file-size B     file size (default max(256 * size, 1M))\n"
	"  -R, --random          random aligned offsets (default: sequential)\n"
	"Prints 'LOAD dio reads= size= bytes= file_size= pattern= ...' on stderr.\n"
	"Exit status 3: the filesystem does not support O_DIRECT.\n";

static void die(const char *what, const char *path)
{
	fprintf(stderr, "dio: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

__attribute__((noreturn)) static uint64_t parse_size_bad(const char *s)
{
	fprintf(stderr, "dio: bad size '%s'\n", s);
	exit(2);
}

/* "4096", "64K", "1M", "2G" -> bytes; exits on junk */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return parse_size_bad(s);
	switch (*end) {
	case 'k': case 'K':
		return end[1] ? parse_size_bad(s) : v << 10;
	case 'm': case 'M':
		return end[1] ? parse_size_bad(s) : v << 20;
	case 'g': case 'G':
		return end[1] ? parse_size_bad(s) : v << 30;
	case 0:
		return v;
	}
	return parse_size_bad(s);
}

/* make sure PATH holds at least file_sz bytes; returns 1 when it wrote them */
static int dio_file_prepare(const char *path, uint64_t file_sz)
{
	static char chunk[1 << 16];
	struct stat st;
	uint64_t off;
	int fd;

	if (stat(path, &st) == 0 && (uint64_t)st.st_size >= file_sz)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot create", path);
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 7 + 1);
	for (off = 0; off < file_sz; off += sizeof(chunk)) {
		size_t len = sizeof(chunk);

		if (file_sz - off < len)
			len = (size_t)(file_sz - off);

		if (pwrite(fd, chunk, len, (off_t)off) != (ssize_t)len)
			die("cannot write", path);
	}
	if (fsync(fd) || close(fd))
		die("cannot sync", path);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "file-size", required_argument, NULL, 'F' },
		{ "random", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "dio.dat";
	uint64_t count = 100, size = 4096, file_sz = 0, nr_slots, slot = 0;
	uint32_t rnd = 2463534242u;
	int random_off = 0, created, fd, opt;
	struct rusage ru;
	double t0, wall;
	void *buf;

	while ((opt = load_getopt(argc, argv, "f:n:s:F:Rh", opts, usage)) != -1) {
		switch (opt) {
		case 'f':
			path = optarg;
			break;
		case 'n':
			count = parse_size(optarg);
			break;
		case 's':
			size = parse_size(optarg);
			break;
		case 'F':
			file_sz = parse_size(optarg);
			break;
		case 'R':
			random_off = 1;
			break;
		}
	}
	if (!size || size % 512)
		load_usage(usage, 2);
	if (!file_sz)
		file_sz = size * 256 > (1u << 20) ? size * 256 : (1u << 20);
	nr_slots = file_sz / size;
	if (!nr_slots) {
		fprintf(stderr, "dio: file size %llu is smaller than one read\n",
			(unsigned long long)file_sz);
		return 2;
	}
	created = dio_file_prepare(path, file_sz);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == EINVAL) {
		fprintf(stderr, "dio: the filesystem of '%s' does not support O_DIRECT\n", path);
		return 3;
	}
	if (fd < 0)
		die("cannot open", path);
	if (posix_memalign(&buf, DIO_ALIGN, (size_t)size)) {
		fprintf(stderr, "dio: out of memory\n");
		return 1;
	}

	t0 = now_s();
	for (uint64_t i = 0; i < count; i++) {
		ssize_t got;

		if (random_off) {
			rnd ^= rnd << 13;
			rnd ^= rnd >> 17;
			rnd ^= rnd << 5;
			slot = rnd % nr_slots;
		}
		got = pread(fd, buf, (size_t)size, (off_t)(slot * size));
		if (got == -1 && errno == EINVAL) {
			fprintf(stderr, "dio: O_DIRECT read refused (EINVAL) on '%s'\n", path);
			return 3;
		}
		if (got < 0)
			die("cannot read", path);
		if (got != (ssize_t)size) {
			fprintf(stderr, "dio: short read (%zd of %llu bytes) from '%s'\n", got,
				(unsigned long long)size, path);
			return 1;
		}
		if (!random_off)
			slot = (slot + 1) % nr_slots;
	}
	wall = now_s() - t0;
	close(fd);
	free(buf);

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD dio reads=%llu size=%llu bytes=%llu file_size=%llu pattern=%s "
		"created=%d file=%s pid=%d tids=%d ops=%llu wall_s=%.6f user_s=%.6f sys_s=%.6f\n",
		(unsigned long long)count, (unsigned long long)size,
		(unsigned long long)(count * size), (unsigned long long)file_sz,
		random_off ? "random" : "seq", created, path, (int)getpid(),
		(int)syscall(SYS_gettid), (unsigned long long)count, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
