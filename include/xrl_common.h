/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Everything that crosses the kernel/user boundary: map keys and values,
 * flags, limits, map and pin names. Layouts are fixed: explicit padding and
 * size asserts, since userspace reads these maps from bpffs.
 */
#ifndef XRL_COMMON_H
#define XRL_COMMON_H

#include "xrl_window.h"
#include "xrl_sketch.h"

/* Bumped whenever a map layout below changes; kept in the ctl map. */
#define XRL_LAYOUT_VERSION 10
/* The oldest layout a build takes over in place (user/lib/layouts: a file a layout, test_carry checks). */
#define XRL_LAYOUT_OLDEST 8

#define XRL_PIN_ROOT "/sys/fs/bpf/xdp-ratelimit"

#define XRL_MAX_RULES 4096     /* per map (port, prefix, dst) */
#define XRL_MAX_RULE_IDS 32768 /* counter slots: two sets' worth, at most (the loader sizes them) */
#define XRL_MIN_RULE_IDS 256   /* ... at least */
#define XRL_DEFAULT_KEYS 65536
#define XRL_LATCH_BITS 10
#define XRL_LATCHES (1 << XRL_LATCH_BITS) /* per CPU: keys known to be over their limit, at least */
/*
 * ... and at most (the loader sizes them for the table's keys: xrl_latch_bits_for):
 * 512 KiB a CPU, room for a flood from the thousands of sources of a reflection;
 * and past XRL_LATCHES, no more than XRL_LATCH_BUDGET bytes over all CPUs
 * (with many, a flood's sources are spread over them: 1024 a CPU at 256 CPUs).
 */
#define XRL_LATCH_MAX_BITS 13
#define XRL_LATCH_BUDGET (16U << 20)
/* A key's latch is in one of this many adjacent slots from its home (xrl_latch_home): a set. */
#define XRL_LATCH_WAYS 4
/*
 * How a key's latch slot is found, recorded in xrl_ctl: the top bits of the
 * key's 64-bit hash (xrl_key_hash). 0 was a build's before it, which a
 * retired layout describes (user/lib/layouts/).
 */
#define XRL_LATCH_SLOTS 1
/* The most packets (or bytes) a rule's window may admit: a bucket counts passes in 32 bits. */
#define XRL_MAX_THRESHOLD 4294967295U
/*
 * The smallest frame a rule can judge: an Ethernet header and an IPv4 header
 * with no options (a later fragment, or a protocol without ports). A byte
 * window is latched over only when its room is under this: a smaller frame
 * could not pass either.
 */
#define XRL_MIN_JUDGED_FRAME 34
/* In xrl_key.rule_id: the key of a rule's byte window, beside its packet window's. */
#define XRL_KEY_BYTES (1U << 31)
/* Compare-and-swap attempts on a contended window before a packet is judged over. */
#define XRL_RESERVE_TRIES 4

/* Map names (at most 15 characters: the kernel's object name limit). */
#define XRL_MAP_PORT_IDX "xrl_port_idx"
#define XRL_MAP_PORT_RULES "xrl_port_rules"
#define XRL_MAP_LPM_RULES "xrl_lpm_rules"
#define XRL_MAP_LPM_DIR "xrl_lpm_dir"
#define XRL_MAP_LPM_RANGES "xrl_lpm_ranges"
#define XRL_MAP_SETS "xrl_sets"
#define XRL_MAP_SET_ITEMS "xrl_set_items"
#define XRL_MAP_DSTS "xrl_dsts"
#define XRL_MAP_PROTO_RULES "xrl_proto_rules"
#define XRL_MAP_STATE "xrl_state"
#define XRL_MAP_RULE_STATS "xrl_rule_stats"
#define XRL_MAP_COUNTERS "xrl_counters"
#define XRL_MAP_CTL "xrl_ctl"
#define XRL_MAP_LATCHES "xrl_latches"
#define XRL_MAP_SCRATCH "xrl_scratch"
#define XRL_MAP_SKETCH "xrl_sketch"
#define XRL_MAP_FLEET "xrl_fleet"
#define XRL_MAP_THEN "xrl_then"
#define XRL_MAP_WINDOWS "xrl_windows"
#define XRL_MAP_PCTX "xrl_pctx" /* per CPU, the packet judged's context: nothing between packets */

/* Rule flags. */
#define XRL_F_ALLOW (1U << 0)	    /* prefix and dst rules: matching traffic bypasses every limit */
#define XRL_F_MONITOR (1U << 1)	    /* count what would be blocked, pass it */
#define XRL_F_PER_SOURCE (1U << 2)  /* one window per masked source; else one per rule */
#define XRL_F_GLOBAL (1U << 3)	    /* aggregate only: one limit across a fleet (xdp-ratelimit sync) */
#define XRL_F_NO_PKT_RATE (1U << 4) /* a byte rate only: no packet window (threshold unused) */
#define XRL_F_PER_DST (1U << 5)	    /* one window per masked destination (src_mask4, src_mask6); not with PER_SOURCE */
#define XRL_F_PER_DPORT (1U << 6)   /* ... and per destination port, with PER_SOURCE or PER_DST */
#define XRL_F_NO_LEASE (1U << 7)    /* a rule of several windows, one of them of bytes: no lease (apply sets it) */

#define XRL_PROTO_ICMP 1
#define XRL_PROTO_TCP 6
#define XRL_PROTO_UDP 17
#define XRL_PROTO_ICMPV6 58

#define XRL_FAMILY_V4 4
#define XRL_FAMILY_V6 6

/* How a byte rate was written (xrl_rule.byte_unit): bits or bytes, SI prefixes (K = 1000). */
enum xrl_byte_unit {
	XRL_BU_NONE = 0, /* no byte rate */
	XRL_BU_BIT,
	XRL_BU_KBIT,
	XRL_BU_MBIT,
	XRL_BU_GBIT,
	XRL_BU_B,
	XRL_BU_KB,
	XRL_BU_MB,
	XRL_BU_GB,
	XRL_BU_MAX,
};

struct xrl_rule {
	__u64 threshold;   /* packets per interval: rate * interval (none with XRL_F_NO_PKT_RATE) */
	__u64 interval_ns; /* window length */
	__u64 rate;	   /* as configured: rate packets per rate_unit_ms */
	__u32 rate_unit_ms;
	__u32 buckets; /* n */
	__u32 id;      /* slot in xrl_rule_stats */
	__u32 gen;     /* shape generation: state of another gen starts fresh */
	__u16 flags;   /* XRL_F_* */
	/*
	 * A rule of several windows: 1 + the counter slot of its next window, a
	 * rule of its own in xrl_windows (XRL_WINDOW_NEXT); 0: none. Where
	 * layout 8's flags had their high bits, always 0 there.
	 */
	__u16 next;
	__u8 src_mask4; /* per-source mask, IPv4 */
	__u8 src_mask6; /* per-source mask, IPv6 */
	__u8 byte_unit; /* enum xrl_byte_unit of byte_rate; XRL_BU_NONE: no byte rate */
	__u8 pad;
	__u64 byte_threshold; /* bytes per interval (frame lengths as XDP sees them); 0: no byte rate */
	__u64 byte_rate;      /* as configured: byte_rate byte_units per byte_unit_ms */
	__u32 byte_unit_ms;
	__u32 warmup_ms; /* Sentinel's warm-up period (xrl_warm_threshold); 0: none */
};
_Static_assert(sizeof(struct xrl_rule) == 72, "xrl_rule layout");

/*
 * A rule of several windows ('rate 20/s rate 600/min'): its first window in
 * the rule itself, each next one a struct xrl_rule in xrl_windows at a
 * counter slot of its own (its id: its key, its latch, its stats slot, its
 * gen), its threshold a packet one or, with XRL_F_NO_PKT_RATE, a byte one,
 * its scope and mask the rule's. A packet passes the rule only when every
 * window has room; the first window over decides.
 */
#define XRL_MAX_WINDOWS 4
#define XRL_WINDOW_NEXT(r) ((__u32)(r)->next - 1)

/*
 * Port rules: two arrays, whose lookups the verifier inlines (no helper call
 * and no hashing on the packet path). xrl_port_idx, indexed by set, protocol
 * and port, holds the rule's slot in xrl_port_rules, or 0 for no rule. Set s
 * owns slots XRL_PORT_SLOT(s, 0) up to XRL_PORT_SLOT(s, XRL_MAX_RULES - 1).
 * proto is XRL_PROTO_TCP or XRL_PROTO_UDP.
 */
#define XRL_PORT_IDX(set, proto, port) \
	((((__u32)(set)&1) << 17) | ((__u32)((proto) == XRL_PROTO_UDP) << 16) | (__u16)(port))
#define XRL_PORT_IDX_ENTRIES (1U << 18)
#define XRL_PORT_SLOT(set, i) (1 + ((__u32)(set)&1) * XRL_MAX_RULES + (__u32)(i))
#define XRL_PORT_SLOTS (1 + 2 * XRL_MAX_RULES)

struct xrl_port_rule {
	struct xrl_rule r;
	__u16 port; /* destination port, host order */
	__u8 proto; /* XRL_PROTO_TCP or XRL_PROTO_UDP */
	__u8 used;  /* 0: a free slot */
	__u32 pad;
};
_Static_assert(sizeof(struct xrl_port_rule) == 80, "xrl_port_rule layout");

/*
 * Protocol rules: one array that holds the rules themselves, indexed by set
 * and selector, so the packet path does at most two inlined lookups: the
 * packet's most specific selector (tcp-syn, an ICMP type, or fragments), then
 * its IP protocol number. The first found is the protocol rule that applies.
 */
#define XRL_SEL_SYN 256	      /* TCP with SYN and without ACK */
#define XRL_SEL_FRAGMENTS 257 /* IPv4 non-first fragments, IPv6 fragments with an offset */
#define XRL_SEL_ICMP(type) (512 + (__u32)(__u8)(type))
#define XRL_SEL_ICMPV6(type) (768 + (__u32)(__u8)(type))
#define XRL_SELS 1024 /* per set: 0..255 are IP protocol numbers */
#define XRL_PROTO_IDX(set, sel) (((__u32)(set)&1) * XRL_SELS + ((__u32)(sel) & (XRL_SELS - 1)))
#define XRL_PROTO_IDX_ENTRIES (2 * XRL_SELS)

struct xrl_proto_rule {
	struct xrl_rule r;
	__u16 sel; /* XRL_SEL_* or a protocol number */
	__u8 used; /* 0: no rule */
	__u8 pad;
	__u32 pad2;
};
_Static_assert(sizeof(struct xrl_proto_rule) == 80, "xrl_proto_rule layout");

/*
 * Prefix and dst rules, each a single prefix or a named set of them: one
 * array of rules, both rule sets' (slot XRL_LPM_SLOT(set, i); 0 is no rule),
 * found by the address through the range structure of include/xrl_lpm.h.
 */
#define XRL_LPM_SLOT(set, i) (1 + ((__u32)(set)&1) * XRL_MAX_RULES + (__u32)(i))
#define XRL_LPM_SLOTS (1 + 2 * XRL_MAX_RULES)
#define XRL_LPM_SRC 0 /* prefix rules: matched by the source address */
#define XRL_LPM_DST 1 /* dst rules: matched by the destination address */

struct xrl_lpm_rule {
	struct xrl_rule r;
	__u8 addr[16]; /* a single rule's prefix */
	__u8 family;   /* a single rule's: XRL_FAMILY_V4 or V6; 0 for a set's rule */
	__u8 plen;
	__u8 kind; /* XRL_LPM_SRC or XRL_LPM_DST */
	__u8 used; /* 0: a free slot */
	__u32 set; /* a set's rule: 1 + its set's index in xrl_sets (of the same rule set); 0: a single prefix */
};
_Static_assert(sizeof(struct xrl_lpm_rule) == 96, "xrl_lpm_rule layout");

/* Named prefix sets: XRL_MAX_SETS a rule set, what 'dump' writes back of each. */
#define XRL_MAX_SETS 256
#define XRL_SET_NAME_MAX 32  /* a name's bytes, its NUL included */
#define XRL_SET_PATH_MAX 256 /* a set file's absolute path, its NUL included; "" for a set written inline */
#define XRL_SET_IX(set, i) (((__u32)(set)&1) * XRL_MAX_SETS + (__u32)(i))

struct xrl_set {
	char name[XRL_SET_NAME_MAX];
	char path[XRL_SET_PATH_MAX];
	__u32 n4, n6; /* its prefixes of each family; a port set: n4 its ranges (4 bytes each, lo and hi big-endian) */
	__u32 used;   /* 0: none; XRL_SET_USED_PREFIXES or XRL_SET_USED_PORTS */
	__u32 items;  /* where its prefixes start in its rule set's half of xrl_set_items, in bytes */
};
#define XRL_SET_USED_PREFIXES 1
#define XRL_SET_USED_PORTS 2 /* a named port set of the rules of several fields ('dport @NAME'): userspace's alone */
_Static_assert(sizeof(struct xrl_set) == 304, "xrl_set layout");

/*
 * Port rules narrowed to a destination: one LPM trie keyed by set, family,
 * protocol and port, then the destination address; looked up only when the
 * active set has some (XRL_HAS_PORT_DSTS). prefixlen counts the 64 header
 * bits plus the address prefix. (Entries of proto 0 were dst rules, before
 * they moved to the range structure: never looked up.)
 */
struct xrl_dst_key {
	__u32 prefixlen;
	__u8 set;
	__u8 family; /* XRL_FAMILY_V4 or XRL_FAMILY_V6 */
	__u8 proto;  /* 0: a dst rule; XRL_PROTO_TCP or XRL_PROTO_UDP: a narrowed port rule */
	__u8 zero;
	__u16 port; /* a narrowed port rule's destination port, host order; else 0 */
	__u16 zero2;
	__u8 addr[16]; /* 4-byte aligned, as the program's copy of the packet's address */
};
_Static_assert(sizeof(struct xrl_dst_key) == 28, "xrl_dst_key layout");
#define XRL_DST_HDR_BITS 64

/* The state of one window: a rule, and the masked source when per-source. */
struct xrl_key {
	__u32 rule_id;
	__u16 port;  /* port rules: the destination port; else 0 */
	__u8 family; /* 0 for an aggregate rule */
	__u8 proto;
	__u8 addr[16];
};
_Static_assert(sizeof(struct xrl_key) == 24, "xrl_key layout");

/*
 * Value of xrl_state: one window per key, shared by every CPU (see
 * xrl_reserve in xrl_window.h), so a key costs the same at 2 CPUs or 256.
 * Its ring is last, and the map holds cells of its cells (the loader sizes
 * the value: xrl_state_size), as many as the longest window in use needs:
 * a key of the default 2-bucket window takes 80 bytes, not 1040.
 */
struct xrl_state {
	__u32 gen;    /* rule gen this ring was built for */
	__u32 leased; /* a CPU leased passes since a CPU last took back what leases had left (bpf/lease.h) */
	__u64 warm;   /* a warm-up rule's: when this key's warm-up began (xrl_warm_idle); else when made */
	struct xrl_ring ring;
};
_Static_assert(sizeof(struct xrl_state) == 32 + 8 * XRL_RING_WORDS, "xrl_state layout");

/* The value of xrl_state for rings of cells cells: their blocks after them, then a long ring's base (struct xrl_base). */
static inline __u32 xrl_state_size(__u32 cells)
{
	return (__u32) __builtin_offsetof(struct xrl_state, ring) + xrl_ring_size(cells);
}

/*
 * Per CPU (xrl_scratch): room for a reservation's snapshot of a ring, which
 * the stack has no room for, and, with long rings, what xrl_judge_slow
 * hands xrl_judge_long when a key's base does not decide. Sized at load:
 * a load of short rings has the snapshot's words only (xrl_scratch_size).
 */
struct xrl_scratch {
	__u64 snap[XRL_MAX_CELLS];
	__u64 thr, full, until; /* xrl_judge_slow's threshold (warming), the rule's, and its bucket's end */
	__u32 mine, lease;	/* the latch slot may take this key's lease; the passes asked for it */
};

static inline __u32 xrl_scratch_size(__u32 cells)
{
	return xrl_ring_long(cells) ? (__u32)sizeof(struct xrl_scratch) : XRL_SHORT_CELLS * (__u32)sizeof(__u64);
}

/*
 * The rules' counter slots for n rules: the set in force and the next share
 * them, so twice as many, a power of 2, XRL_MIN_RULE_IDS to XRL_MAX_RULE_IDS.
 */
static inline __u32 xrl_rule_ids_for(__u32 n)
{
	__u32 ids = XRL_MIN_RULE_IDS;

	while (ids < 2 * n && ids < XRL_MAX_RULE_IDS)
		ids *= 2;
	return ids;
}

/* The cells of rings for windows of up to n buckets: the window's, the bucket that left it, and at least 3. */
static inline __u32 xrl_cells_for(__u32 n)
{
	return n < 2 ? 3 : n + 1;
}

/*
 * Per CPU, XRL_LATCHES of them, indexed by xrl_key_hash: a key found over its
 * limit, until the end of the bucket it was found in (the sum cannot fall
 * before then). A flood is answered here, with no hash lookup and no clock
 * read but the jiffies (see xrl_latch_live). Blocks counted here reach the key's
 * ring when the latch retires; userspace adds the ones still here.
 */
struct xrl_latch {
	struct xrl_key key;
	__u32 gen;	     /* 0: empty */
	__u32 epoch;	     /* the bucket it is over in */
	__u32 threshold;     /* as long as the threshold is still this */
	__u16 idx;	     /* that bucket's slot in the key's ring */
	__u16 kind;	     /* XRL_LATCH_*: an over latch, one the sketch made, or a lease */
	__u64 born;	     /* a lease: when the key's state it was counted in was made (xrl_state's warm) */
	__u64 until_jiffies; /* a jiffies value below this proves that bucket has not ended */
	__u64 word; /* serial << 32 | count: an over latch's blocks not yet in the ring, a lease's passes left */
};
/* A latch's word: XRL_LATCH_SERIAL, xrl_latch_count and its operations (xrl_lword_*) in xrl_window.h. */
#define XRL_LATCH_OVER 0   /* the key is over in that bucket */
#define XRL_LATCH_SKETCH 1 /* ... and has no state: the sketch found it over (see xrl_judge_sketch) */
/*
 * Passes taken in that bucket of the key's window for this CPU's later
 * packets of the key (xrl_reserve_lease), spent with no shared write while
 * the jiffies prove the bucket has not ended (until_jiffies); what is left
 * is taken back from the bucket. 0 left: the key's slot, a candidate.
 */
#define XRL_LATCH_LEASE 2
_Static_assert(sizeof(struct xrl_latch) == 64, "xrl_latch layout");

/*
 * The latches' bits a CPU for a table of max_keys on ncpus possible CPUs:
 * its keys rounded up to a power of 2, XRL_LATCH_BITS to XRL_LATCH_MAX_BITS,
 * within XRL_LATCH_BUDGET.
 */
static inline __u32 xrl_latch_bits_for(__u32 max_keys, int ncpus)
{
	__u64 most = XRL_LATCH_BUDGET / sizeof(struct xrl_latch) / (__u64)(ncpus > 0 ? ncpus : 1);
	__u32 b = XRL_LATCH_BITS;

	while (b < XRL_LATCH_MAX_BITS && (1U << b) < max_keys && (2ULL << b) <= most)
		b++;
	return b;
}

/*
 * Per-CPU, per rule id: totals and the rule-level window behind its QPS, and
 * what the program derives from the rule once rather than once a packet.
 */
struct xrl_rule_stats {
	__u32 gen;	   /* rule gen the ring was made for */
	__u16 shape_ok;	   /* the window shape below is valid, so the rule limits */
	__u16 proof_ticks; /* jiffies past proof_from that prove slot still holds the time (0: none) */
	__u64 pass;
	__u64 block;
	/*
	 * Derived by the program on this CPU from the shape (buckets, interval)
	 * it last saw, rebuilt when the gen or the shape differs: a rule read
	 * torn while userspace rewrites it heals with the next packet.
	 */
	__u32 buckets;
	__u32 proof_from; /* the jiffies (low 32 bits) read with the precise clock that set slot */
	__u64 interval;
	__u64 blen;	      /* bucket length: interval / buckets */
	struct xrl_slot slot; /* the current bucket, until time leaves it */
	/* A rule with a byte rate: the frame lengths (as XDP sees them) of what pass and block count. */
	__u64 pass_bytes;
	__u64 block_bytes;
	struct xrl_ring ring; /* last: the map holds cells of its cells, as xrl_state's (xrl_rule_stats_size) */
};
_Static_assert(sizeof(struct xrl_rule_stats) == 112 + 8 * XRL_RING_WORDS, "xrl_rule_stats layout");

/* The value of xrl_rule_stats for rings of cells cells: a rule's ring has no base (a ring one CPU owns). */
static inline __u32 xrl_rule_stats_size(__u32 cells)
{
	return (__u32) __builtin_offsetof(struct xrl_rule_stats, ring.c) + 2 * cells * 8;
}

/*
 * xrl_fleet, per rule id: a global rule's share of its fleet-wide limit on
 * this node, written by the sync agent (xdp-ratelimit sync), with what stats
 * and status show of the agent's view. The program reads allowance only: the
 * packets per window this node may pass, used instead of the rule's threshold
 * while gen is the rule's gen; 0 means the rule's threshold. The agent never
 * sits on the packet path, and its allowance lasts until expires_ns only: if
 * the agent dies or is blocked, the program falls back to fallback at that
 * moment, the figure of the agent's --on-redis-loss policy, which the other
 * members keep aside for this one once it is silent (fleet/redis.c), so that
 * the fleet stays within its limit.
 */
struct xrl_fleet {
	__u64 allowance;    /* packets per window; 0: the rule's own threshold */
	__u32 gen;	    /* the rule gen it was set for: another gen's is ignored */
	__u32 policy;	    /* enum xrl_fleet_policy in force */
	__u32 nodes;	    /* members seen alive at the last good sync */
	__u32 failures;	    /* syncs failed in a row */
	__u64 synced_ms;    /* CLOCK_REALTIME of the last good sync; 0: never */
	__u64 attempt_ms;   /* CLOCK_REALTIME of the last attempt */
	__u64 fleet_demand; /* every member's pass + block in its window, summed */
	__u64 total_fails;  /* syncs failed since this rule's entry was made */
	__u32 agent_pid;
	__u32 interval_ms;
	__u64 expires_ns; /* bpf_ktime_get_coarse_ns (CLOCK_MONOTONIC_COARSE) past which allowance lapses; 0: never */
	__u64 fallback;	  /* the allowance then (0: the rule's threshold) */
	__u32 fallback_policy; /* enum xrl_fleet_policy it comes from */
	__u32 pad;
};
_Static_assert(sizeof(struct xrl_fleet) == 88, "xrl_fleet layout");

enum xrl_fleet_policy {
	XRL_FLEET_NONE = 0,   /* no agent has written this rule */
	XRL_FLEET_SHARED = 1, /* in sync: a share in proportion to demand */
	XRL_FLEET_LOCAL = 2,  /* Redis lost: the limit / the members last seen */
	XRL_FLEET_LAST = 3,   /* Redis lost: the last share kept */
	XRL_FLEET_OPEN = 4,   /* Redis lost: the whole limit */
};

/* Why a frame was judged malformed. */
enum xrl_malformed {
	XRL_MAL_ETH = 0,  /* shorter than an Ethernet header */
	XRL_MAL_VLAN,	  /* VLAN tag truncated, or more tags than we parse (XRL_VLAN_MAX): evasive */
	XRL_MAL_IPV4,	  /* IPv4 header truncated, or not version 4 */
	XRL_MAL_IPV4_IHL, /* IHL below 5 or beyond the frame */
	XRL_MAL_IPV4_LEN, /* total length below the header or beyond the frame */
	XRL_MAL_IPV6,	  /* IPv6 header truncated, not version 6, or payload length beyond the frame */
	XRL_MAL_IPV6_EXT, /* extension header truncated or past the payload, or more than 8 */
	XRL_MAL_L4,	  /* TCP or UDP header truncated */
	/*
	 * Frames a host accepts but the rules cannot judge, dropped by the default
	 * policy (XRL_MALPOL_EVASIVE): a first fragment too short for its
	 * transport header, or a TCP fragment at offset 8 that rewrites it
	 * (RFC 1858, RFC 3128); an IPv6 header chain longer than the parser
	 * follows (XRL_IPV6_EXT_MAX headers). Also XRL_MAL_VLAN, above.
	 */
	XRL_MAL_FRAG_TINY,
	XRL_MAL_IPV6_CHAIN,
	XRL_MAL_MAX,
};

/* What the program does with a malformed frame: load --malformed. */
enum xrl_mal_policy {
	XRL_MALPOL_PASS = 0,	/* pass them all: crafted frames then evade every rule */
	XRL_MALPOL_DROP = 1,	/* drop them all */
	XRL_MALPOL_EVASIVE = 2, /* the default: drop what would evade a rule, pass what the host drops itself */
	XRL_MALPOL_MAX,
};

/* Per-CPU global counters: seen == passed + dropped. */
struct xrl_counters {
	__u64 seen;
	__u64 passed;
	__u64 dropped;
	__u64 non_ip;	      /* not IPv4 or IPv6: passed, no rule applies */
	__u64 no_rule;	      /* IP, but no rule matched */
	__u64 allowed;	      /* matched an allow prefix */
	__u64 monitored;      /* would have been dropped, passed by a monitor rule */
	__u64 keys_new;	      /* window states created */
	__u64 keys_failed;    /* window state could not be created: passed */
	__u64 sketch_judged;  /* rule judgements of new sources past the cap, by the sketch (xrl_sketch.h) */
	__u64 sketch_blocked; /* ... of which over their limit there */
	__u64 malformed[XRL_MAL_MAX];
	/* Not counters: this CPU's state creations in the current second (the cap). */
	__u64 new_keys_second;
	__u64 new_keys_count;
};
_Static_assert(sizeof(struct xrl_counters) == 8 * (13 + XRL_MAL_MAX), "xrl_counters layout");

/* Control block, array of one: which rule set the program reads, and how it was loaded. */
struct xrl_ctl {
	__u32 layout;	  /* XRL_LAYOUT_VERSION of whoever created the maps */
	__u32 active_set; /* 0 or 1; the program reads it, then that set's kinds */
	__u32 next_gen;	  /* userspace: next rule gen to hand out */
	__u32 clock;	  /* enum xrl_clock the program was loaded with */
	__u32 malformed;  /* enum xrl_mal_policy, as loaded */
	__u32 xdp_flags;  /* XDP_FLAGS_* mode it was attached with */
	__u32 ifindex;
	__u32 max_keys;
	__u32 new_keys;	    /* per second, as loaded; 0: no cap */
	__u32 sketch_width; /* the sketch's columns, as loaded: XRL_SKETCH_DEPTH rows of them */
	__u8 kinds[2];	    /* per rule set: XRL_HAS_* of the rules it holds */
	__u8 cells;	    /* the rings' cells, as loaded: windows of up to cells - 1 buckets */
	__u8 latch_slots;   /* XRL_LATCH_SLOTS of the program the latches are placed by */
	/* The XDP program load --force detached from the interface (for status); 0: none. */
	__u32 replaced_id;
	char replaced_name[16]; /* its name, as the kernel keeps it (BPF_OBJ_NAME_LEN) */
};
_Static_assert(sizeof(struct xrl_ctl) == 64, "xrl_ctl layout");

/*
 * xrl_ctl.kinds: which maps a rule set has rules in. The program skips the
 * lookup in a map where the active set has none (the trie's is a helper call).
 */
#define XRL_HAS_PORTS (1U << 0)
#define XRL_HAS_PREFIXES (1U << 1) /* prefix rules in the range structure */
#define XRL_HAS_PROTOS (1U << 2)
#define XRL_HAS_DSTS (1U << 3)	    /* dst rules in the range structure */
#define XRL_HAS_PORT_DSTS (1U << 4) /* port rules narrowed to a destination, in xrl_dsts */

/*
 * xrl_config.features: what the loaded program carries, as xdp-filter's
 * _features section says of its variants. The rule kinds are their
 * XRL_HAS_* bits; the others are what a rule may ask of every packet it
 * matches. The verifier prunes the code of a feature left out, so a set
 * without it pays nothing for it. A program must carry every feature of
 * the set it reads (it ignores a kind, a byte rate or a fleet allowance it
 * does not carry), which is why apply swaps in a program that carries the
 * new set's features before it flips to that set (apply.c). Not features: a monitor
 * rule (tested only once a packet is over), the sketch (carried only with
 * a cap on new keys: xrl_config.new_keys_cpu), generic mode (gso_mtu).
 */
#define XRL_FEAT_BYTES (1U << 5) /* byte rates, and rules with no packet rate */
/* Warm-up ramps: the slow path tests a rule's warmup_ms only when the program carries them. */
#define XRL_FEAT_WARMUP (1U << 6)
#define XRL_FEAT_GLOBAL (1U << 7) /* global rules: the fleet allowance's lookup */
/* Rules of several fields: the parser's reads of their fields, the classifier (bpf/match.h). */
#define XRL_FEAT_MATCH (1U << 8)
/* Rules of several windows: their next windows' lookups in xrl_windows. */
#define XRL_FEAT_WINDOWS (1U << 9)
#define XRL_FEAT_ALL 0x3ffU

enum xrl_clock {
	XRL_CLOCK_PRECISE = 0, /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	XRL_CLOCK_COARSE = 1,  /* bpf_ktime_get_coarse_ns: CLOCK_MONOTONIC_COARSE */
	XRL_CLOCK_TEST = 2,    /* xrl_test_now, set by tests */
};

/* Fixed at load time (rodata): the verifier prunes what it turns off. */
struct xrl_config {
	__u32 clock;	    /* enum xrl_clock */
	__u32 malformed;    /* enum xrl_mal_policy */
	__u32 new_keys_cpu; /* per-source states each CPU may create per second; 0: no cap */
	__u32 sketch_width; /* columns of the sketch (a power of 2); xrl_sketch holds XRL_SKETCH_DEPTH times that */
	/*
	 * Generic mode: the interface's MTU at load. A frame there may be a GSO
	 * or GRO super-packet; one longer than the MTU counts in packet windows
	 * as the segments the stack delivers (xrl_gso_segs). 0: native mode.
	 */
	__u32 gso_mtu;
	/* The cells of every ring (xrl_state, xrl_rule_stats): their maps' values are sized for as many. */
	__u32 cells;
	__u32 features;	  /* XRL_FEAT_* and XRL_HAS_*: what the program carries (the rest pruned) */
	__u32 latch_bits; /* the latches per CPU, as loaded: 1 << latch_bits (xrl_latch_bits_for) */
};
_Static_assert(sizeof(struct xrl_config) == 32, "xrl_config layout");

#endif /* XRL_COMMON_H */
