/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The program's object and a load's options: what a load and a replace both open. */
#ifndef XRL_PROGRAM_H
#define XRL_PROGRAM_H

#include <stdbool.h>
#include "base/err.h"
#include "base/maps.h"
#include "rules/rule.h"

struct xrl_load_opts {
	const char *iface;
	bool generic;	/* XDP in generic (skb) mode instead of native */
	__u32 clock;	/* XRL_CLOCK_PRECISE or XRL_CLOCK_COARSE */
	__u32 max_keys; /* window states: the LRU's size */
	__u32 new_keys; /* per-source states created per second at most; 0: no cap */
	/* The sketch's columns (a power of 2, XRL_SKETCH_MIN_WIDTH to _MAX_WIDTH); 0: the default. */
	__u32 sketch_width;
	__u32 malformed;    /* enum xrl_mal_policy */
	__u32 max_prefixes; /* of the prefix and dst rules, sets included: sizes the range structure; 0 the default */
	/*
	 * The cells of every ring: windows of up to cells - 1 buckets. 0: as
	 * the rules need (xrl_ruleset_cells); on a loaded interface, as it is,
	 * or more when the rules need more.
	 */
	__u32 cells;
	/* The rules' counter slots (xrl_rule_ids_for); 0: as the rules need, or as the instance has. */
	__u32 rule_ids;
	/*
	 * The classifier's bitmaps (xrl_lbvs_bits): words a value, entries;
	 * the entries of the rules' maps (xrl_match_rules, _specs)
	 * (codec/match_maps.h); 0: as the rules need, or as the instance has.
	 */
	__u32 match_stride, match_entries, match_slots;
	bool force; /* replace another XDP program */
	/* Applied before the program is attached, so that it never runs without them; NULL: no rules. */
	struct xrl_ruleset *rules;
	/* The program passed frames go on to (chain.h: an id or a pinned path); NULL: as it is. */
	const char *then;
	/* Out: what the program carries (XRL_HAS_*, XRL_FEAT_*: specialise.h); the rest is pruned. */
	__u32 features;
	/* Out: why it carries more than its rules need, when it does (apply.h's note). */
	char features_note[XRL_ERRLEN];
	/* Out: what was finished or undone of a replace stopped midway before this one (journal.h); "": none. */
	char recovered[XRL_ERRLEN];
	/* XRL_LOAD_* given: on a loaded interface, the settings not given stay as they are. */
	__u32 given;
	/* Out: the program of a loaded instance was replaced in place (of this layout, or old_layout). */
	bool replaced;
	__u32 old_layout;
	__u32 prog_id; /* out: the program attached now */
};

struct xdp_ratelimit_bpf;
/*
 * The program's object, opened and set for o (its rodata, its maps' sizes),
 * not yet loaded. XDP_RATELIMIT_BPF_OBJECT names another build of the same
 * program to open instead of the one built in (for testing a program change).
 */
struct xdp_ratelimit_bpf *xrl_skel_open(const struct xrl_load_opts *o, char *err, size_t len);
/*
 * The error for the kernel's refusal ret (-errno) of the program, given the
 * kernel's release (uname -r): too old, too large for its verifier, or else.
 */
int xrl_load_refused(int ret, const char *release, char *err, size_t len);
/* The interface's MTU; -1 when it cannot be read. */
int xrl_iface_mtu(const char *iface);

#endif /* XRL_PROGRAM_H */
