// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout 8 (0.5.0) as far as it differs from the current layout, for a
 * replace that takes such an instance over (life/carry.c, life/replace.c)
 * and for stats. Every map not named here kept its key, value and meaning
 * and is taken over as it is.
 *  - every ring had 16 cells, a bucket of full epoch q of a window of n
 *    buckets in cell q % n; now a ring has the cells the loader sized it for
 *    (the longest window's buckets and one), the bucket in cell q % cells.
 *    xrl_state's value is the same up to its ring, whose cells the carry
 *    moves (xrl_ring_recell);
 *  - xrl_rule_stats: the ring moved after pass_bytes and block_bytes;
 *  - xrl_ctl: cells in a byte that was padding (0 in layout 8), and
 *    latch_slots in another: a latch of key k was in slot xrl_key_slot8(k);
 *  - xrl_scratch: 17 words, was 16 (it holds nothing between packets);
 *  - prefix and dst rules: in the range structure (xrl_lpm.h: xrl_lpm_rules,
 *    xrl_lpm_dir, xrl_lpm_ranges, xrl_sets, xrl_set_items, new maps), no
 *    longer in the LPM tries: a replace moves them from the old instance's
 *    xrl_prefixes (gone) and xrl_dsts (carry_tries);
 *  - xrl_eval, the judgements' slots of the program before the pipeline: gone;
 *  - the maps of the rules of several fields (xrl_match.h), xrl_windows (the
 *    next windows of rules of several) and xrl_pctx (the packet's context,
 *    nothing between packets): new, made empty by a replace, as for a 0.6.0
 *    build's instance made before them (xrl_match_pin: base/maps.c opens
 *    them when they are there);
 *  - xrl_rule: flags in 16 bits, then next (a rule's next window), where
 *    layout 8's flags had their high bits, always 0: its rules read the same
 *    (on a little-endian host, as every build so far).
 * The development builds of 0.6.0 before XRL_LATCH_SLOTS (layout 9 with
 * xrl_ctl.latch_slots 0) kept layout 8's latches, and some its xrl_eval.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "layouts/layout8.h"
#include "base/err.h"
#include "base/objinfo.h"
#include "codec/lpm_set.h"
#include "rules/rule.h"

static const char *const lacks[] = { XRL_MAP_LPM_RULES, XRL_MAP_LPM_DIR,   XRL_MAP_LPM_RANGES,
				     XRL_MAP_SETS,	XRL_MAP_SET_ITEMS, NULL };
static const char *const emptied[] = { XRL_MAP_SCRATCH, NULL };
static const char *const gone[] = { "xrl_prefixes", "xrl_eval", NULL };

/* Layout 8 recorded no cells: its rings held 17, for any window it took (of up to 16 buckets). */
static void ctl_read(struct xrl_ctl *ctl)
{
	if (!ctl->cells)
		ctl->cells = XRL_SHORT_CELLS;
}

static __u32 rule_stats_cells(__u32 vsz)
{
	return vsz == sizeof(struct xrl_rule_stats8) ? XRL_LAYOUT8_CELLS : 0;
}

static void rule_stats_read(const void *old, __u32 cells, struct xrl_rule_stats *n)
{
	const struct xrl_rule_stats8 *o = old;

	(void)cells; /* XRL_LAYOUT8_CELLS: rule_stats_cells */
	memset(n, 0, sizeof(*n));
	memcpy(n, o->head, sizeof(o->head));
	n->pass_bytes = o->pass_bytes;
	n->block_bytes = o->block_bytes;
	xrl_cells16_read(&o->last, XRL_LAYOUT8_CELLS, &n->ring);
}

/*
 * The latch slot of key k as layout 8 placed it: the low bits of a 32-bit
 * multiplicative hash. An instance such a build still runs keeps its latches
 * there until a replace takes it over (the carry starts the new program's
 * anew and folds the old ones' blocks into their windows).
 */
static __u32 xrl_key_slot8(const struct xrl_key *k)
{
	__u32 w, h = 0, i;

	for (i = 0; i < sizeof(*k) / 4; i++) {
		memcpy(&w, (const __u8 *)k + 4 * i, 4);
		h = (h ^ w) * 0x9e3779b1U;
	}
	return (h ^ (h >> 15)) & (XRL_LATCHES - 1);
}

/* The prefix rules' trie key of layout 8: the set and the family, then the address. */
struct trie_key8 {
	__u32 prefixlen; /* 16 header bits plus the prefix's */
	__u8 set;
	__u8 family;
	__u8 addr[16];
	__u8 pad[2];
};

/*
 * Rule set half's prefix rules, from the LPM trie xrl_prefixes (its value the
 * rule), and its dst rules, from xrl_dsts with proto 0, written into the range
 * structure of m. 0 too when there are none.
 */
static int lpm_from_tries(const struct xrl_maps *m, int prefixes_fd, int dsts_fd, __u8 half, char *err, size_t len)
{
	struct xrl_ruleset rs = {};
	struct trie_key8 pk, *ppk = NULL;
	struct xrl_dst_key dk, *pdk = NULL;
	struct xrl_lpm_map lm;
	int ret = 0;

	while (!ret && prefixes_fd >= 0 && !bpf_map_get_next_key(prefixes_fd, ppk, &pk)) {
		struct xrl_spec s = { .kind = XRL_KIND_PREFIX };

		ppk = &pk;
		if (pk.set != half || bpf_map_lookup_elem(prefixes_fd, &pk, &s.r))
			continue;
		s.family = pk.family;
		s.plen = (__u8)(pk.prefixlen - 16);
		memcpy(s.addr, pk.addr, 16);
		ret = xrl_ruleset_add(&rs, &s, err, len);
	}
	while (!ret && dsts_fd >= 0 && !bpf_map_get_next_key(dsts_fd, pdk, &dk)) {
		struct xrl_spec s = { .kind = XRL_KIND_DST };

		pdk = &dk;
		if (dk.set != half || dk.proto || bpf_map_lookup_elem(dsts_fd, &dk, &s.r))
			continue;
		s.family = dk.family;
		s.plen = (__u8)(dk.prefixlen - XRL_DST_HDR_BITS);
		memcpy(s.addr, dk.addr, 16);
		ret = xrl_ruleset_add(&rs, &s, err, len);
	}
	if (!ret && rs.n) {
		ret = xrl_lpm_map_open(m->lpm_dir, m->lpm_ranges, m->set_items, &lm);
		if (ret) {
			xrl_fail(ret, err, len, "cannot map the range structure: %s", strerror(-ret));
		} else {
			ret = xrl_lpm_write(m, &lm, half, &rs, err, len);
			xrl_lpm_map_close(&lm);
		}
	}
	xrl_ruleset_free(&rs);
	return ret;
}

/* The rules in force of an instance that keeps its prefix and dst rules in LPM tries, into the new range structure. */
static int carry_tries(const char *dir, const struct xrl_maps *nm, __u8 half, char *err, size_t len)
{
	int pfx = xrl_pin_open(dir, "xrl_prefixes"), dsts, ret;

	if (pfx < 0)
		return 0;
	dsts = xrl_pin_open(dir, XRL_MAP_DSTS);
	ret = lpm_from_tries(nm, pfx, dsts, half, err, len);
	if (ret)
		snprintf(err + strlen(err), len - strlen(err), "; the running program was left in place");
	close(pfx);
	if (dsts >= 0)
		close(dsts);
	return ret;
}

const struct xrl_retired xrl_layout8 = {
	.layout = XRL_LAYOUT8,
	.latch_slots = 0,
	.ctl_read = ctl_read,
	.lacks = lacks,
	.emptied = emptied,
	.rings_moved = true,
	.state_read = xrl_layout9_state_read, /* two-word cells, as layout 9's */
	.rule_stats_cells = rule_stats_cells,
	.rule_stats_read = rule_stats_read,
	.latch_slot = xrl_key_slot8,
	.carry_rules = carry_tries,
	.gone = gone,
};

const struct xrl_retired xrl_layout9_latches8 = {
	.layout = 9,
	.latch_slots = 0,
	.rings_moved = true,
	.state_read = xrl_layout9_state_read,
	.rule_stats_read = xrl_layout9_rule_stats_read,
	.latch_slot = xrl_key_slot8,
	.carry_rules = carry_tries,
	.gone = gone,
};
