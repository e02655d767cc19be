// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include "base/critical.h"

void xrl_signals_hold(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigaddset(&s, SIGQUIT);
	sigprocmask(SIG_BLOCK, &s, old);
}

void xrl_signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void xrl_fault_point(const char *step)
{
	const char *at = getenv("XRL_TEST_KILL_AT");

	if (at && !strcmp(at, step))
		kill(getpid(), SIGKILL);
}

void xrl_wait_programs(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(50000); /* nohz_full: no grace period to ask for; XDP runs far shorter than this */
}

void xrl_fault_pause(const char *step)
{
	/* Read once: the finish asks before each key it carries, and the new program waits on it. */
	static const char *at;
	static bool read;

	if (!read) {
		at = getenv("XRL_TEST_PAUSE_AT");
		read = true;
	}
	if (at && !strcmp(at, step))
		usleep(300000);
}
