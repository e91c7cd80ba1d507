/* SPDX-License-Identifier: MIT */
/*
 * front-env.h - what the `pp` front end (front/) tells the programs it runs,
 * through their environment: the names, each with who sets it, who reads it
 * and what it means.  Both sides use these constants; docs/production.md
 * ("What pp tells its programs") says the same in prose.
 *
 * Each is set only for the child that reads it and only by pp: a user who
 * sets one by hand gets that child's pp-driven behaviour.
 * Not here: knobs a user sets (PP_PYTHON, PP_JOBS, PP_FAULT ...): docs/.
 */
#ifndef PP_COMMON_FRONT_ENV_H
#define PP_COMMON_FRONT_ENV_H

/*
 * PP_ENV_LIVE_RECORDER - "1": this pp-analyze reads a live pp-record's stream.
 * Set by pp (front/live.c) for the pp-analyze of `pp ANALYZER ...`; read by
 * pp-analyze (analyze/cmdutil.c): an empty stream means pp-record failed
 * before writing and said why in one line, so pp-analyze adds none.
 */
#define PP_ENV_LIVE_RECORDER "PP_LIVE_RECORDER"

/*
 * PP_ENV_NOTRACE_PID - the pid of the live pp-analyze, in decimal.
 * Set by pp (front/live.c) for the pp-record of `pp ANALYZER ...`; read by
 * pp-record (record/ftrace/ftrace.c): that process's events (and its children's, a
 * system() per event) stay out of the recording as pp-record's own do, so the
 * analysis does not watch itself.
 */
#define PP_ENV_NOTRACE_PID "PP_NOTRACE_PID"

/*
 * PP_ENV_PERF_PROF_ERRORS - "1": report as perf-prof does.
 * Set by pp (front/main.c) under the name perf-prof, for the pp-record that
 * answers `--symbols`, `usdt` and `kcore`; read by pp-record (record/main.c,
 * record/cmd-usdt.c, record/cmd-kcore.c): an unreadable binary or a missing
 * /proc/kcore is said as perf-prof says it (nothing, or one line on stdout)
 * and exits 0, as perf-prof's scripts expect.
 */
#define PP_ENV_PERF_PROF_ERRORS "PP_PERF_PROF_ERRORS"

/*
 * PP_ENV_ANALYZE - the path of the pp-analyze beside pp.
 * Set by `pp fleet` (front/fleet.c) unless already set; read by pp.fleet
 * (analyze/python/fleet.py, as the text "PP_ANALYZE"): the workers' pp-analyze
 * when --pp-analyze names none.
 */
#define PP_ENV_ANALYZE "PP_ANALYZE"

#endif
