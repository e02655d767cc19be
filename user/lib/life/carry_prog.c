// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "life/carry_prog.h"
#include "base/err.h"
#include "carry.skel.h"

struct xrl_carry_prog {
	struct carry_bpf *skel;
	cpu_set_t home; /* the caller's CPUs, given back once a rule's call ran on its CPU */
	int pinned;	/* the CPU the thread is held on; -1: its own CPUs */
};

int xrl_carry_prog_open(struct xrl_carry_prog **pp, int state, __u32 state_cells, int stats, __u32 stats_cells,
			char *err, size_t len)
{
	struct xrl_carry_prog *p = calloc(1, sizeof(*p));
	struct utsname u;
	int ret;

	*pp = NULL;
	if (!p)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	p->pinned = -1;
	p->skel = carry_bpf__open();
	if (!p->skel) {
		ret = -errno;
		free(p);
		return xrl_fail(ret, err, len, "cannot open the carrier's BPF object: %s", strerror(-ret));
	}
	p->skel->rodata->state_cells = state_cells;
	p->skel->rodata->stats_cells = stats_cells;
	ret = bpf_map__reuse_fd(p->skel->maps.xrl_state, state);
	if (!ret)
		ret = bpf_map__reuse_fd(p->skel->maps.xrl_rule_stats, stats);
	if (!ret)
		ret = carry_bpf__load(p->skel);
	if (ret) {
		carry_bpf__destroy(p->skel);
		free(p);
		return xrl_fail(
			ret, err, len,
			"the kernel (%s) refuses the program that carries the counts into the new maps (%s): a replace that makes new maps needs Linux 5.19 or later; the running program was left in place (an unload and a load make the change, the windows starting empty)",
			uname(&u) ? "?" : u.release, strerror(-ret));
	}
	*pp = p;
	return 0;
}

static int run(int prog, struct xrl_carry_args *a)
{
	LIBBPF_OPTS(bpf_test_run_opts, t, .ctx_in = a, .ctx_size_in = sizeof(*a));

	if (bpf_prog_test_run_opts(prog, &t))
		return -errno;
	if (t.retval == XRL_CARRY_NO_ENTRY)
		return -ENOENT;
	return t.retval ? -EBUSY : 0;
}

/* A few rounds: a cell moves under the add only while another CPU moves it to a newer bucket. */
static int run_rounds(int prog, struct xrl_carry_args *a)
{
	int ret, k;

	for (k = 0; k < 8; k++) {
		ret = run(prog, a);
		if (ret != -EBUSY)
			return ret;
	}
	return ret;
}

int xrl_carry_prog_state(struct xrl_carry_prog *p, struct xrl_carry_args *a)
{
	return run_rounds(bpf_program__fd(p->skel->progs.xrl_carry_state), a);
}

int xrl_carry_prog_rule(struct xrl_carry_prog *p, struct xrl_carry_args *a)
{
	cpu_set_t on;

	if (p->pinned != (int)a->cpu) {
		if (p->pinned < 0 && sched_getaffinity(0, sizeof(p->home), &p->home))
			CPU_ZERO(&p->home);
		CPU_ZERO(&on);
		CPU_SET(a->cpu, &on);
		/* A CPU offline runs no program; one outside our cpuset leaves a race of one frame's add. */
		if (!sched_setaffinity(0, sizeof(on), &on))
			p->pinned = (int)a->cpu;
	}
	return run_rounds(bpf_program__fd(p->skel->progs.xrl_carry_rule), a);
}

void xrl_carry_prog_close(struct xrl_carry_prog *p)
{
	if (!p)
		return;
	if (p->pinned >= 0 && CPU_COUNT(&p->home))
		sched_setaffinity(0, sizeof(p->home), &p->home);
	carry_bpf__destroy(p->skel);
	free(p);
}
