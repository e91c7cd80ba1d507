/* SPDX-License-Identifier: MIT */
/*
 * plan.h - `--for 'ANALYZER ARGS'`: record what an analyzer invocation needs.
 *
 * The analyzer's plan hook (analyzers/<name>-plan.c) turns its options into
 * events, filters, sampling and stacks; rec_plan_apply() adds those to the
 * session.  Several --for are merged (the same selector asked twice is
 * opened once).
 */
#ifndef PP_RECORD_PLAN_H
#define PP_RECORD_PLAN_H

struct rec_session;

/**
 * rec_plan_apply() - add to @s the events that `ANALYZER ARGS` needs
 * @s: the session
 * @analyzer_args: "task-state -p 123", as given to --for
 * @msg: receives one line on failure (record/err.h)
 * @msg_sz: its size
 *
 * Return: 0, or a negative code with @msg set (an unknown analyzer, its
 * options, its events, or targets/rates that disagree with the command line).
 */
int rec_plan_apply(struct rec_session *s, const char *analyzer_args, char *msg, size_t msg_sz);

#endif
