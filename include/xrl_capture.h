/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Capture (xdp-ratelimit capture): the frames the limiter drops or passes,
 * copied by the program into a BPF ring buffer while a capture runs, and
 * only then. What crosses the kernel/user boundary for it: the control
 * block, the per-CPU budget and counters, the record. None of it is part of
 * the map layout (XRL_LAYOUT_VERSION): a capture's maps hold nothing to
 * carry over, and an instance loaded without them is upgraded in place by a
 * load, which adds them.
 *
 * The flag is a lease: the capturer owns the control block (owner, taken by
 * compare-and-swap on the mmapped map, so two captures cannot both hold it)
 * and renews deadline while it runs; once deadline has passed the program
 * itself turns the capture off (session to 0), so a capturer killed with
 * SIGKILL, or stopped, leaves the flag on XRL_CAP_LEASE_MS at most, and never
 * needs anyone to clean up after it.
 */
#ifndef XRL_CAPTURE_H
#define XRL_CAPTURE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XRL_MAP_CAP_CTL "xrl_cap_ctl"
#define XRL_MAP_CAP_CPU "xrl_cap_cpu"
#define XRL_MAP_CAP_RING "xrl_cap_ring"
/* Every map a capture pins, for whoever lists or removes them. */
#define XRL_CAP_PINS                                               \
	{                                                          \
		XRL_MAP_CAP_CTL, XRL_MAP_CAP_CPU, XRL_MAP_CAP_RING \
	}

/* The ring's bytes (a power of 2 and of the page size). */
#define XRL_CAP_RING_BYTES (1U << 20)
/*
 * The most bytes of a frame a record holds: a per-CPU record of one page with
 * its header. A standard 1500-byte MTU frame (1518 with a VLAN tag) fits
 * whole; a longer one is cut there, its length kept.
 */
#define XRL_CAP_SNAP_MAX 3992
/* How long a capture stays on without its capturer renewing it, and how often it does. */
#define XRL_CAP_LEASE_MS 3000
#define XRL_CAP_RENEW_MS 500
/* The default budget: frames each CPU may copy a second, and the burst it may spend at once. */
#define XRL_CAP_RATE_DEFAULT 1000
#define XRL_CAP_RATE_MAX 1000000
/* The tick rate assumed when the kernel's is unknown: the highest, so the budget errs low. */
#define XRL_CAP_HZ_UNKNOWN 1000

/* Which verdicts a capture takes (xrl_cap_ctl.verdicts): a bit each, 1 << XDP_DROP, 1 << XDP_PASS. */
#define XRL_CAP_DROPPED (1U << 1)
#define XRL_CAP_PASSED (1U << 2)

/*
 * Why a frame got its verdict (xrl_cap_rec.why). Every frame the program sees
 * leaves by one of these; rule_id names the rule where there is one.
 */
enum xrl_cap_why {
	XRL_CAP_WHY_NONE = 0,
	XRL_CAP_WHY_OVER,      /* dropped: over the rule's limit */
	XRL_CAP_WHY_UNDER,     /* passed: under the limit of every rule that matched (rule_id: the first judged) */
	XRL_CAP_WHY_MONITOR,   /* passed: over a monitor rule's limit only */
	XRL_CAP_WHY_ALLOW,     /* passed: an allow rule */
	XRL_CAP_WHY_NO_RULE,   /* passed: IP, but no rule matches */
	XRL_CAP_WHY_NON_IP,    /* passed: not IPv4 or IPv6 */
	XRL_CAP_WHY_MALFORMED, /* by load --malformed: reason says why (enum xrl_malformed) */
	XRL_CAP_WHY_HIDDEN,    /* dropped: a header chain too long to follow, where port or protocol rules are */
	XRL_CAP_WHY_MAX,
};

/*
 * The control block (an mmapable array of one): written by the capturer,
 * read by the program. session is the flag: 0, off; the program tests it on
 * every frame and nothing else while it is 0.
 */
struct xrl_cap_ctl {
	__u64 session;	 /* the capture's id; 0: no capture (the program sets it so when deadline passes) */
	__u64 deadline;	 /* CLOCK_MONOTONIC_COARSE ns (bpf_ktime_get_coarse_ns) until which it stays on */
	__u64 owner;	 /* the capturer's claim: its pid in the low 32 bits, a nonce above; 0: none */
	__u32 verdicts;	 /* XRL_CAP_DROPPED, XRL_CAP_PASSED */
	__u32 rule_id;	 /* the deciding rule's id + 1; 0: any (and frames no rule decided) */
	__u32 snaplen;	 /* bytes of a frame copied, 1 to XRL_CAP_SNAP_MAX */
	__u32 rate;	 /* frames a second each CPU may copy */
	__u32 burst;	 /* ... at once, at most */
	__u8 src_family; /* XRL_FAMILY_V4 or _V6: only sources in src_addr/src_mask; 0: any source */
	__u8 pad[3];
	__u8 src_addr[16]; /* masked */
	__u8 src_mask[16];
	__u64 started_ns; /* CLOCK_MONOTONIC at the start, for status */
};
_Static_assert(sizeof(struct xrl_cap_ctl) == 88, "xrl_cap_ctl layout");

/* A record in the ring: this header, then caplen bytes of the frame. */
struct xrl_cap_rec {
	__u64 session;
	__u64 ts_ns;   /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u32 len;     /* the frame's length as XDP saw it */
	__u32 caplen;  /* bytes that follow */
	__u32 rule_id; /* the rule that decided (enum xrl_cap_why says how); with no rule, XRL_CAP_NO_RULE */
	__u16 cpu;
	__u8 verdict; /* XDP_DROP or XDP_PASS */
	__u8 why;     /* enum xrl_cap_why */
	__u8 reason;  /* XRL_CAP_WHY_MALFORMED: enum xrl_malformed */
	__u8 pad[7];
};
_Static_assert(sizeof(struct xrl_cap_rec) == 40, "xrl_cap_rec layout");
#define XRL_CAP_NO_RULE 0xffffffffU

/*
 * Per CPU (an array of one): the budget and what became of the frames that
 * matched the capture's filters, for the session it was last reset for; then
 * room for the record being made, which the stack has no room for.
 */
struct xrl_cap_cpu {
	__u64 session;	 /* the counters below are this session's */
	__u64 jiffies;	 /* when the budget was last refilled (and the lease checked) */
	__u64 credit;	 /* the budget: hz units a frame, rate units a tick, burst * hz at most */
	__u64 matched;	 /* frames of the verdict and filters asked for */
	__u64 captured;	 /* ... copied into the ring */
	__u64 lost_rate; /* ... not copied: over the budget */
	__u64 lost_full; /* ... not copied: the ring was full */
	__u64 pad;
	struct xrl_cap_rec rec;
	__u8 data[XRL_CAP_SNAP_MAX];
};
_Static_assert(sizeof(struct xrl_cap_cpu) == 4096, "xrl_cap_cpu layout");

#endif /* XRL_CAPTURE_H */
