/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the program costs on a live server: the kernel's own run time and
 * run count of a program (bpf_prog_info), which it keeps while its BPF
 * statistics are on (the sysctl kernel.bpf_stats_enabled, or a
 * BPF_ENABLE_STATS descriptor held open).
 */
#ifndef XRL_COST_H
#define XRL_COST_H

#include <stdbool.h>
#include <linux/types.h>

struct xrl_cost {
	bool on;    /* the kernel counts now */
	__u64 ns;   /* run time, summed, since the statistics were first on */
	__u64 runs; /* ... and runs */
};

/* The figures of program id; -errno when it cannot be read. */
int xrl_cost_read(__u32 prog_id, struct xrl_cost *c);
/* Turns the statistics on while the descriptor returned stays open; -errno. */
int xrl_cost_enable(void);
/* ns a run between two readings a and b (0 when none ran). */
double xrl_cost_ns_per_run(const struct xrl_cost *a, const struct xrl_cost *b);

#endif /* XRL_COST_H */
