/* SPDX-License-Identifier: MIT */
/*
 * task-state.h - the options of the task-state analyzer, shared by
 * task-state.c and task-state-plan.c (which pp-record links).
 */
#ifndef PP_AZ_TASK_STATE_H
#define PP_AZ_TASK_STATE_H

#include <stdbool.h>

struct task_state_opts {
	bool interruptible;	/* -S */
	bool no_interruptible;	/* --no-interruptible: every state but S */
	bool uninterruptible;	/* -D */
	bool ptrace;		/* --ptrace: accepted, pp-record follows new threads itself */
};

#endif
