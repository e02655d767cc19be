/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Steps that must not stop halfway (a replace, an apply): the signals that
 * end a process by default are held until the step ends, so that a Ctrl-C or
 * a SIGTERM lands between whole steps. A SIGKILL or a crash cannot be held:
 * what it interrupts is finished or undone by the next command (journal.h).
 */
#ifndef XRL_CRITICAL_H
#define XRL_CRITICAL_H

#include <signal.h>

/* Holds SIGINT, SIGTERM, SIGHUP and SIGQUIT; *old gets the mask to give back. Nests. */
void xrl_signals_hold(sigset_t *old);
/* Gives the mask back: a signal that came meanwhile is delivered now. */
void xrl_signals_release(const sigset_t *old);

/* Every XDP program that was running when this returns has finished its frame (an RCU grace period). */
void xrl_wait_programs(void);

/*
 * The tests' fault points: when the environment's XRL_TEST_KILL_AT names
 * step, the process kills itself there with SIGKILL, as a crash or the OOM
 * killer would. Nothing else reads it.
 */
void xrl_fault_point(const char *step);
/* The tests' slow machine: when XRL_TEST_PAUSE_AT names step, the process sleeps a third of a second there. */
void xrl_fault_pause(const char *step);

#endif /* XRL_CRITICAL_H */
