/* SPDX-License-Identifier: MIT */
/*
 * duty.c - a known CPU duty cycle, in user space then in system calls.
 *
 * Every period the load is busy for BUSY% of it from the moment it woke up,
 * then sleeps until the next period starts (an absolute clock_nanosleep, so
 * the cycle does not drift).
 * It runs one phase per mode given, each for -d seconds:
 *   user  arithmetic in user space, the clock polled between blocks of about
 *         20 us (through the vDSO: no system call);
 *   sys   getrandom(2) of -k bytes at a time, so nearly all the busy time is in
 *         the kernel; a rare call, so that counting it picks out this load.
 * With -c the load is pinned to one CPU, and each phase reads that CPU's line
 * of /proc/stat before and after it: the kernel's own view of the CPU in the
 * phase, other tasks included, to tell a noisy machine from a wrong answer.
 * Busy is the phase's length less the idle time, which the kernel measures
 * (NO_HZ); its user and system times are sampled at each tick, so a cycle
 * locked to the tick skews them (-j avoids that).  All are shares of the
 * phase's wall time, steal (time the hypervisor ran something else) apart.
 *
 * usage: duty [-c CPU] [-p PERIOD_MS] [-b BUSY_PCT] [-m MODES] [-d SECONDS]
 *             [-k BYTES] [-s SETTLE_MS] [-w FILE] [-j]
 *   -c CPU      pin to this CPU (default: not pinned)
 *   -p MS       period (default 10)
 *   -b PCT      busy share of each period, 0-100 (default 30)
 *   -m MODES    phases in order, a comma list of user and sys (default user,sys)
 *   -d S        seconds per phase, fractions allowed (default 3)
 *   -k BYTES    bytes per getrandom call (default 16384)
 *   -s MS       sleep before the first phase and after the last (default 100)
 *   -w FILE     write each busy window as "MODE START_NS END_NS" (CLOCK_MONOTONIC)
 *   -j          jitter: each period lasts P x [0.5, 1.5) (a fixed pseudo-random sequence)
 *               and is busy for BUSY% of its own length, so that the cycle cannot alias
 *               with a sampling grid (a 1 ms cpu-clock, the kernel's tick)
 *
 * One line per phase on stderr, then the ground truth:
 *   PHASE mode=M start_ns=N end_ns=N busy_ns=N calls=N own_pct=X stat_busy_pct=X
 *         stat_usr_pct=X stat_sys_pct=X stat_steal_pct=X
 * (busy_ns: the busy windows' wall time; own_pct: the CPU time the load had in the phase,
 * a share of the phase - less than busy_ns says when other tasks took the CPU from it.)
 *   LOAD duty period_ms=P busy_pct=B phases=M phase_s=D cpu=C pid=P calls=N wall_s=S
 *        user_s=S sys_s=S
 * (stat_* are -1 without -c; calls counts the getrandom calls of every phase.)
 */
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#define DUTY_MAX_PHASES 8

static const char usage[] =
	"usage: duty [-c CPU] [-p PERIOD_MS] [-b BUSY_PCT] [-m user,sys] [-d SECONDS]\n"
	"            [-k BYTES] [-s SETTLE_MS] [-w FILE] [-j]\n";

struct window {
	int sys;
	uint64_t start_ns, end_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The CPU time this process has had (the scheduler's, to the ns). */
static uint64_t cputime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / 1000000000ull), (long)(t_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* user, nice, system, idle, iowait, irq, softirq, steal of one CPU, in ticks. */
static int cpu_stat(long cpu, unsigned long long v[8])
{
	char name[32], line[512];
	FILE *f = fopen("/proc/stat", "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(name, sizeof(name), "cpu%ld ", cpu);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, strlen(name)) &&
			sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8;
	fclose(f);
	return found;
}

/* xorshift64: the same jitter every run */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static volatile uint64_t sink;

/* About 20 us of arithmetic, all in user space. */
static void user_block(void)
{
	uint64_t x = sink;

	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

int main(int argc, char **argv)
{
	unsigned long period_ms = 10, busy_pct = 30, settle_ms = 100;
	size_t bytes = 16384;
	double phase_s = 3, t0 = now_s();
	const char *modes = "user,sys", *wfile = NULL;
	int sys[DUTY_MAX_PHASES], nr_phases = 0, jitter = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	long cpu = -1;
	unsigned long long calls = 0;
	struct window *win = NULL;
	size_t nr_win = 0, cap_win = 0;
	struct rusage ru;
	char *buf, *list, *tok, *save;
	int c;

	while ((c = getopt(argc, argv, "c:p:b:m:d:k:s:w:jh")) != -1) {
		switch (c) {
		case 'c': cpu = (long)parse_ul(optarg, "-c"); break;
		case 'p': period_ms = parse_ul(optarg, "-p"); break;
		case 'b': busy_pct = parse_ul(optarg, "-b"); break;
		case 'm': modes = optarg; break;
		case 'd': phase_s = parse_num(optarg, "-d"); break;
		case 'k': bytes = parse_ul(optarg, "-k"); break;
		case 's': settle_ms = parse_ul(optarg, "-s"); break;
		case 'w': wfile = optarg; break;
		case 'j': jitter = 1; break;
		case 'h': load_usage(usage, 0);
		default: load_usage(usage, 2);
		}
	}
	if (!period_ms || busy_pct > 100 || !bytes)
		load_usage(usage, 2);
	list = strdup(modes);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nr_phases == DUTY_MAX_PHASES || (strcmp(tok, "user") && strcmp(tok, "sys")))
			load_usage(usage, 2);
		sys[nr_phases++] = !strcmp(tok, "sys");
	}
	free(list);
	if (cpu >= 0 && load_pin((int)cpu)) {
		perror("duty: sched_setaffinity");
		return 1;
	}
	buf = malloc(bytes);
	if (!buf)
		return 1;
	memset(buf, 0, bytes);
	sleep_until(mono_ns() + settle_ms * 1000000ull);

	for (int ph = 0; ph < nr_phases; ph++) {
		uint64_t period = period_ms * 1000000ull;
		uint64_t start = mono_ns(), end = start + (uint64_t)(phase_s * 1e9), busy_ns = 0;
		unsigned long long before[8] = { 0 }, after[8] = { 0 }, ph_calls = 0;
		double b = -1, u = -1, s = -1, st = -1, own;
		int have = cpu >= 0 && cpu_stat(cpu, before);
		uint64_t cpu0 = cputime_ns();

		for (uint64_t t = start, len; t < end; t += len) {
			uint64_t now = mono_ns(), from = now, stop;

			len = jitter ? period / 2 + rnd(&seed) % period : period;
			stop = from + len * busy_pct / 100;
			if (busy_pct) {
				do {
					if (sys[ph]) {
						if (getrandom(buf, bytes, 0) < 0) {
							perror("duty: getrandom");
							return 1;
						}
						ph_calls++;
					} else {
						user_block();
					}
					now = mono_ns();
				} while (now < stop);
				busy_ns += now - from;
				if (nr_win == cap_win) {
					cap_win = cap_win ? 2 * cap_win : 1024;
					win = realloc(win, cap_win * sizeof(*win));
					if (!win)
						return 1;
				}
				win[nr_win++] = (struct window){ sys[ph], from, now };
			}
			sleep_until(t + len);
		}
		end = mono_ns();
		own = 100.0 * (double)(cputime_ns() - cpu0) / (double)(end - start);
		if (have && cpu_stat(cpu, after)) {
			double d[8], wall = (double)(end - start) * 1e-9 * (double)sysconf(_SC_CLK_TCK);

			for (int i = 0; i < 8; i++)
				d[i] = (double)(after[i] - before[i]);
			/* idle is measured (NO_HZ), user and system are sampled at each tick */
			b = 100.0 * (1 - (d[3] + d[4]) / wall);
			u = 100.0 * (d[0] + d[1]) / wall;
			s = 100.0 * (d[2] + d[5] + d[6]) / wall;
			st = 100.0 * d[7] / wall;
		}
		calls += ph_calls;
		fprintf(stderr,
			"PHASE mode=%s start_ns=%llu end_ns=%llu busy_ns=%llu calls=%llu own_pct=%.1f "
			"stat_busy_pct=%.1f stat_usr_pct=%.1f stat_sys_pct=%.1f stat_steal_pct=%.1f\n",
			sys[ph] ? "sys" : "user", (unsigned long long)start, (unsigned long long)end,
			(unsigned long long)busy_ns, ph_calls, own, b, u, s, st);
	}
	sleep_until(mono_ns() + settle_ms * 1000000ull);

	if (wfile) {
		FILE *f = fopen(wfile, "w");

		if (!f) {
			perror(wfile);
			return 1;
		}
		for (size_t i = 0; i < nr_win; i++)
			fprintf(f, "%s %llu %llu\n", win[i].sys ? "sys" : "user",
				(unsigned long long)win[i].start_ns, (unsigned long long)win[i].end_ns);
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"LOAD duty period_ms=%lu busy_pct=%lu phases=%s phase_s=%g cpu=%ld pid=%d calls=%llu "
		"wall_s=%.3f user_s=%.3f sys_s=%.3f\n",
		period_ms, busy_pct, modes, phase_s, cpu, (int)getpid(), calls, now_s() - t0,
		tv_s(ru.ru_utime), tv_s(ru.ru_stime));
	free(win);
	free(buf);
	return 0;
}
