/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Aggregating the per-CPU windows and counters into the figures users read. */
#ifndef XRL_STATS_H
#define XRL_STATS_H

#include "base/maps.h"
#include "rules/rule.h"

/* Now on the clock the program reads (enum xrl_clock). */
int xrl_clock_now(__u32 clock, __u64 *now);

/*
 * Sums one window over every CPU's ring: each CPU's buckets are judged by
 * their own starts, so buckets of different cycles at the same index never
 * mix. Rings whose gen differs from gen belong to an older window shape.
 * stride is the distance between two CPUs' values; ring_off and gen_off
 * locate the ring and gen inside one value; cells: the rings'. With last, the
 * last whole interval that has ended (xrl_window_last_at) instead of the window.
 */
struct xrl_sum xrl_aggregate(const void *percpu, int ncpus, size_t stride, size_t ring_off, size_t gen_off, __u32 gen,
			     __u32 buckets, __u32 cells, __u64 interval, __u64 now, bool last);

/* Sentinel's QPS: a window's sum over its interval, per second. */
double xrl_qps(__u64 sum, __u64 interval);

struct xrl_rule_report {
	struct xrl_spec spec;
	__u64 pass, block;	       /* totals since the rule was created */
	__u64 pass_bytes, block_bytes; /* the same packets' frame lengths */
	struct xrl_sum window;	       /* the rule-level window at now */
	double pass_qps, block_qps;
	/*
	 * Over the last whole interval that has ended (the n buckets before
	 * now's), per second: what the window let through, none of it partly
	 * elapsed, so a source held at its limit reads its limit in every reading.
	 */
	struct xrl_sum last;
	__u64 last_ns; /* what it spans: the rule's interval; 0 before one has ended */
	double pass_rate, block_rate;
	/*
	 * A rule of several windows: the blocks each window decided (the first
	 * over, in order), window k of spec (xrl_spec_window); they add up to
	 * block. Every packet passed passed each window.
	 */
	__u64 win_block[XRL_MAX_WINDOWS];
};

int xrl_rule_report(const struct xrl_maps *m, const struct xrl_spec *s, __u64 now, struct xrl_rule_report *out);

/* The global counters, summed over CPUs. */
int xrl_counters_read(const struct xrl_maps *m, struct xrl_counters *out);

/* The cap on new per-source states each of ncpus CPUs applies, for load --new-keys N (0: none). */
static inline __u32 xrl_new_keys_cpu(__u32 new_keys, int ncpus)
{
	return new_keys ? (new_keys / (__u32)ncpus ?: 1) : 0;
}

/*
 * How many CPUs have reached the cap on new per-source states (new_keys, as
 * loaded) in the current second, when a new source's packet there is judged
 * by the sketch instead of getting a window; 0 when there is no cap.
 */
int xrl_new_keys_capped(const struct xrl_maps *m, __u32 new_keys, int *cpus);

struct xrl_key_report {
	struct xrl_key key;
	int rule; /* index in the rule set */
	struct xrl_sum window;
	double pass_qps, block_qps;
	struct xrl_sum last; /* as in struct xrl_rule_report */
	__u64 last_ns;
	double pass_rate, block_rate;
};

/* The k busiest window keys by QPS; *n is set to how many were found. */
int xrl_top_keys(const struct xrl_maps *m, const struct xrl_ruleset *set, __u64 now, size_t k,
		 struct xrl_key_report *out, size_t *n, size_t *tracked);

/* One key's window over every CPU; -ENOENT when the key has no state. */
int xrl_key_window(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_rule *r, __u64 now,
		   struct xrl_sum *sum);

/*
 * What the sketch (xrl_sketch.h) estimates for a key without a state, as the
 * program would judge it at now in a sketch width columns wide: the least of
 * its cells' window sums (a cell of another interval counts as full while
 * its window lasts).
 */
int xrl_sketch_estimate(const struct xrl_maps *m, __u32 width, const struct xrl_key *key, const struct xrl_rule *r,
			__u64 now, __u64 *est);

/*
 * Where a warm-up rule's key is on its ramp at now (xrl_warm_threshold), as
 * the program would judge its next packet: *eff the threshold then of full
 * (the rule's packet or byte threshold), *elapsed how far into the ramp
 * (ns; the period or more once warm). A key without a state, or idle for a
 * whole period, is at the ramp's start. Without warm-up: full, 0.
 */
int xrl_warm_point(const struct xrl_maps *m, const struct xrl_key *key, const struct xrl_rule *r, __u64 full, __u64 now,
		   __u64 *eff, __u64 *elapsed);

const char *xrl_malformed_name(int reason);
/* A load --malformed policy (enum xrl_mal_policy) as the command line spells it. */
const char *xrl_mal_policy_name(__u32 policy);

#endif /* XRL_STATS_H */
