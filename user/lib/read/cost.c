// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <bpf/bpf.h>
#include "read/cost.h"
#include "base/objinfo.h"

static bool stats_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0;
}

int xrl_cost_read(__u32 prog_id, struct xrl_cost *c)
{
	struct bpf_prog_info info;
	int ret;

	c->on = stats_on();
	ret = xrl_prog_info(prog_id, &info);
	c->ns = info.run_time_ns;
	c->runs = info.run_cnt;
	return ret;
}

int xrl_cost_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

double xrl_cost_ns_per_run(const struct xrl_cost *a, const struct xrl_cost *b)
{
	__u64 runs = b->runs - a->runs;

	return runs ? (double)(b->ns - a->ns) / (double)runs : 0;
}
