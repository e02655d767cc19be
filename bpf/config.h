/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the loader fixed at load time (rodata, struct xrl_config): the clock,
 * the malformed-frame policy, the rings' cells and the features the program
 * carries. The verifier knows these values, so it prunes every branch they
 * turn off: a rule set without a feature costs nothing for it.
 */
#ifndef XRL_BPF_CONFIG_H
#define XRL_BPF_CONFIG_H

#include "vmlinux.h"
#include "xrl_common.h"

const volatile struct xrl_config xrl_cfg = {
	.clock = XRL_CLOCK_PRECISE,
	.malformed = XRL_MALPOL_EVASIVE,
	.sketch_width = XRL_SKETCH_DEFAULT_WIDTH,
	.cells = XRL_SHORT_CELLS,
	.features = XRL_FEAT_ALL,     /* the loader sets its rule set's (user/lib/codec/specialise.c) */
	.latch_bits = XRL_LATCH_BITS, /* the loader sizes the latches (xrl_latch_bits_for) */
};

/*
 * The cells of every ring, as the loader sized their maps' values: a
 * constant to the verifier, which checks each cell's index against it, and
 * bounds each loop over a ring by it.
 */
#define XRL_CELLS xrl_cfg.cells

/*
 * Whether this program carries feature f (XRL_FEAT_*, XRL_HAS_*): a load
 * from rodata the verifier knows, so every branch under a feature left out
 * is pruned, and a global function called only there is never verified.
 */
static __always_inline int xrl_carries(__u32 f)
{
	return xrl_cfg.features & f;
}

/* Whether the active set has rules of kind f (its kinds) that this program judges. */
static __always_inline int xrl_uses(__u8 kinds, __u32 f)
{
	return xrl_carries(f) && (kinds & f);
}

/* Whether rule r has a byte rate. */
static __always_inline int xrl_has_bytes(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_BYTES) && r->byte_threshold;
}

/* Whether rule r has no packet rate: its byte window alone judges it. */
static __always_inline int xrl_bytes_only(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_BYTES) && (r->flags & XRL_F_NO_PKT_RATE);
}

/* Whether rule r has next windows (a rule of several windows: XRL_WINDOW_NEXT, in xrl_windows). */
static __always_inline int xrl_has_windows(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_WINDOWS) && r->next;
}

/* Whether rule r ramps its threshold up (Sentinel's warm-up). */
static __always_inline int xrl_has_warmup(const struct xrl_rule *r)
{
	return xrl_carries(XRL_FEAT_WARMUP) && r->warmup_ms;
}

#endif /* XRL_BPF_CONFIG_H */
