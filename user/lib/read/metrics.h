/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Every figure of the loaded instances in one reading: what 'metrics' exports. */
#ifndef XRL_METRICS_H
#define XRL_METRICS_H

#include "capture/capture.h"
#include "read/cost.h"
#include "base/err.h"
#include "read/status.h"
#include "read/stats.h"

struct xrl_rule_totals {
	struct xrl_spec spec;
	/* Since the rule was created. A monitor rule's over-limit packets pass: monitored, not blocked. */
	__u64 passed, blocked, monitored;
	__u64 passed_bytes, blocked_bytes, monitored_bytes; /* their frames' lengths as XDP sees them */
};

struct xrl_instance_metrics {
	struct xrl_status st; /* name, attachment, keys tracked, memory: what status shows */
	struct xrl_counters counters;
	struct xrl_rule_totals *rules; /* st.rules of them */
	/* The running capture's counters (all 0 while none runs); has_capture: the instance has capture maps. */
	bool has_capture;
	struct xrl_cap_counts cap;
	struct xrl_cost cost; /* the program's run time and runs (counted while kernel.bpf_stats_enabled is 1) */
	char err[XRL_ERRLEN]; /* set when it could not be read: nothing else is then */
};

/*
 * Reads the instances of this network namespace: the interfaces named in
 * ifaces (n of them), or every one loaded here and not gone when n is 0.
 * *out is malloc'd; xrl_metrics_free frees it. An instance that cannot be
 * read (another version's, say), and a named interface that is not loaded,
 * are listed with their err set (xdp_ratelimit_up 0), and the others are
 * read: one interface never hides the figures of the rest. Each is mended
 * first (xrl_status_list). -errno with err only when nothing can be listed.
 */
int xrl_metrics_read(char *const *ifaces, size_t n, xrl_mend_fn *mend, struct xrl_instance_metrics **out, size_t *count,
		     char *err, size_t len);
void xrl_metrics_free(struct xrl_instance_metrics *v, size_t count);

#endif /* XRL_METRICS_H */
