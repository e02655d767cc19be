/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Capture (include/xrl_capture.h): the program's side. Every exit of
 * xrl_verdict goes through XRL_CAP_EXIT, which costs a frame one inlined
 * array lookup and one load while no capture runs (session 0). While one
 * does, xrl_cap_frame, a global function verified once, filters the frame
 * (verdict, rule, source), spends the CPU's budget and copies it into the
 * ring.
 */
#ifndef XRL_BPF_CAPTURE_H
#define XRL_BPF_CAPTURE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "xrl_capture.h"
#include "xrl_key.h"
#include "clock.h"
#include "parsing.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XRL_CAP_RING_BYTES);
} xrl_cap_ring SEC(".maps");

/* Mmapable: the capturer claims it by compare-and-swap on owner (user/lib/capture/capture.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xrl_cap_ctl);
} xrl_cap_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrl_cap_cpu);
} xrl_cap_cpu SEC(".maps");

/*
 * How a frame left xrl_verdict, in one word for xrl_cap_frame: its verdict,
 * why (enum xrl_cap_why) and the malformed reason. The rule that decided it
 * (xrl_decider) travels beside it.
 */
#define XRL_CAP_HOW(why, reason) (((__u32)(why) << 8) | ((__u32)(reason) << 16))

/* Whether a capture runs: the only cost of this file to a frame while none does. */
static __always_inline int xrl_cap_on(void)
{
	struct xrl_cap_ctl *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&xrl_cap_ctl, &zero);
	return c && c->session;
}

int xrl_cap_frame(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 how, __u32 rule);

/* The frame leaves with verdict: offered to a capture when one runs; how and rule are read only then. */
#define XRL_CAP_EXIT(ctx, p, verdict, how, rule)                                \
	({                                                                      \
		int xrl_cap_v_ = (verdict);                                     \
		if (xrl_cap_on())                                               \
			xrl_cap_frame(ctx, p, (__u32)xrl_cap_v_ | (how), rule); \
		xrl_cap_v_;                                                     \
	})

/* Whether p's source is in the capture's --src prefix. */
static __always_inline int xrl_cap_src_ok(const struct xrl_cap_ctl *c, const struct xrl_pkt *p)
{
	__u32 a, m, w, i;

	if (!c->src_family)
		return 1;
	if (p->family != c->src_family)
		return 0;
	for (i = 0; i < 4; i++) {
		__builtin_memcpy(&a, XRL_ALIGNED4(p->src + 4 * i), 4);
		__builtin_memcpy(&m, XRL_ALIGNED4(c->src_mask + 4 * i), 4);
		__builtin_memcpy(&w, XRL_ALIGNED4(c->src_addr + 4 * i), 4);
		if ((a & m) != w)
			return 0;
	}
	return 1;
}

/*
 * The CPU's state for session s, reset for a new one; and once a tick, the
 * lease checked (past its deadline the program turns the capture off
 * itself) and the budget refilled. NULL: no capture on this frame.
 */
static __always_inline struct xrl_cap_cpu *xrl_cap_cpu_at(struct xrl_cap_ctl *c, __u64 s)
{
	__u64 hz = CONFIG_HZ ? CONFIG_HZ : XRL_CAP_HZ_UNKNOWN, cap = (__u64)c->burst * hz, j, d;
	struct xrl_cap_cpu *pc;
	__u32 zero = 0;

	pc = bpf_map_lookup_elem(&xrl_cap_cpu, &zero);
	if (!pc)
		return NULL;
	j = xrl_jiffies();
	if (pc->session == s && pc->jiffies == j)
		return pc;
	if (xrl_now_coarse() >= c->deadline) {
		__sync_val_compare_and_swap(&c->session, s, 0);
		return NULL;
	}
	if (pc->session != s) {
		pc->session = s;
		pc->credit = cap;
		pc->matched = 0;
		pc->captured = 0;
		pc->lost_rate = 0;
		pc->lost_full = 0;
	} else {
		d = j - pc->jiffies;
		pc->credit += d >= hz ? cap : d * c->rate;
		if (pc->credit > cap)
			pc->credit = cap;
	}
	pc->jiffies = j;
	return pc;
}

/*
 * Offers a frame to the capture: how as XRL_CAP_EXIT packs it, and the
 * rule that decided it (XRL_CAP_NO_RULE: none).
 * A global function: verified once, whatever the exit it is called from.
 */
__noinline int xrl_cap_frame(struct xdp_md *ctx, const struct xrl_pkt *p, __u32 how, __u32 rule)
{
	__u64 hz = CONFIG_HZ ? CONFIG_HZ : XRL_CAP_HZ_UNKNOWN, s;
	__u32 zero = 0, verdict = how & 0xff, len, caplen;
	struct xrl_cap_cpu *pc;
	struct xrl_cap_ctl *c;

	c = bpf_map_lookup_elem(&xrl_cap_ctl, &zero);
	if (!c || !p || verdict > XDP_PASS)
		return 0;
	s = c->session;
	if (!s)
		return 0;
	pc = xrl_cap_cpu_at(c, s);
	if (!pc || !(c->verdicts & (1U << verdict)) || !xrl_cap_src_ok(c, p))
		return 0;
	if (c->rule_id && rule + 1 != c->rule_id)
		return 0;
	pc->matched++;
	if (pc->credit < hz) {
		pc->lost_rate++;
		return 0;
	}
	pc->credit -= hz;
	len = (__u32)(ctx->data_end - ctx->data);
	caplen = len < c->snaplen ? len : c->snaplen;
	if (caplen > XRL_CAP_SNAP_MAX)
		caplen = XRL_CAP_SNAP_MAX;
	/* bpf_xdp_load_bytes is Linux 5.18's: on an older kernel the record has no bytes (the command refuses to start there). */
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_xdp_load_bytes))
		caplen = 0;
	else if (caplen && bpf_xdp_load_bytes(ctx, 0, pc->data, caplen))
		caplen = 0;
	pc->rec.session = s;
	pc->rec.ts_ns = xrl_cfg.clock == XRL_CLOCK_TEST ? xrl_test_now : bpf_ktime_get_ns();
	pc->rec.len = len;
	pc->rec.caplen = caplen;
	pc->rec.rule_id = rule;
	pc->rec.cpu = (__u16)bpf_get_smp_processor_id();
	pc->rec.verdict = (__u8)verdict;
	pc->rec.why = (how >> 8) & 0xff;
	pc->rec.reason = (how >> 16) & 0xff;
	if (bpf_ringbuf_output(&xrl_cap_ring, &pc->rec, sizeof(pc->rec) + caplen, BPF_RB_NO_WAKEUP))
		pc->lost_full++;
	else
		pc->captured++;
	return 0;
}

#endif /* XRL_BPF_CAPTURE_H */
