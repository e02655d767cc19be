/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules of several fields in the maps: what crosses the kernel/user
 * boundary beside the classifier's tables (xrl_lbvs.h). Each rule set has
 * its half of every map, as the other kinds: apply writes the inactive
 * set's, then flips xrl_ctl.active_set.
 *  - xrl_match_cfgs, a set an entry: its classifier's configuration and
 *    what the rules ask past the classifier;
 *  - xrl_match_rules, a rule a bit: XRL_MATCH_SLOT(set, bit), the rule and
 *    the checks the classifier does not make (addresses, the fingerprint),
 *    sized for the rules;
 *  - xrl_match_specs, the same slots: the rule as written, for dump (the
 *    classifier's tables cannot be read back into rules);
 *  - xrl_match_tmp, per CPU: one packet's classification and judgements;
 *  - xrl_match_sets: which named sets the rules use as an address hold a
 *    packet's source and destination (below).
 */
#ifndef XRL_MATCH_ABI_H
#define XRL_MATCH_ABI_H

#include "xrl_common.h"
#include "xrl_lbvs.h"
#include "xrl_lpm.h"

#define XRL_MAP_LBVS_CLS "xrl_lbvs_cls"
#define XRL_MAP_LBVS_BITS "xrl_lbvs_bits"
#define XRL_MAP_MATCH_CFGS "xrl_match_cfgs"
#define XRL_MAP_MATCH_RULES "xrl_match_rules"
#define XRL_MAP_MATCH_SPECS "xrl_match_specs"
#define XRL_MAP_MATCH_TMP "xrl_match_tmp"
#define XRL_MAP_MATCH_SETS "xrl_match_sets"

/* Match rules a set holds at most: as many as the classifier's table. */
#define XRL_MATCH_MAX XRL_LBVS_MAX_RULES
/*
 * Rule bit of a set is entry XRL_MATCH_SLOT(set, bit) of xrl_match_rules
 * and xrl_match_specs, which are sized at load (2 entries a rule, both sets,
 * XRL_MATCH_SLOTS_MIN at least) and grown by apply as xrl_lbvs_bits is: the
 * sets interleave, so that a set's rules stay where they are when the maps
 * grow. A slot past the maps' end is no rule (the lookup fails).
 */
#define XRL_MATCH_SLOT(set, bit) (((__u32)(set)&1) + 2 * ((__u32)(bit) & (XRL_MATCH_MAX - 1)))
#define XRL_MATCH_SLOTS_MIN 128
/*
 * A set's class arrays start at XRL_LBVS_CLS_WORDS * set in xrl_lbvs_cls;
 * its class c (the builder's numbering) is entry XRL_MATCH_BITS_IX(set, c)
 * of xrl_lbvs_bits: the sets interleave, so that
 * a set's entries stay where they are when the map grows (apply, replace).
 */
#define XRL_MATCH_CLS_BASE(set) (((__u32)(set)&1) * XRL_LBVS_CLS_WORDS)
#define XRL_MATCH_BITS_IX(set, c) (((__u32)(set)&1) + 2 * (__u32)(c))
/* The classes the bitmaps hold for n rules at first: the loader's least (apply grows them). */
#define XRL_MATCH_CLASSES_MIN 1024
/* The program's context of a packet (bpf/pctx.h), copied for the judgement of the rules met: room for it. */
#define XRL_MATCH_PCTX_BYTES 192
/* Payload bytes a fingerprint holds at most. */
#define XRL_MATCH_PAYLOAD_MAX 8

/*
 * The named sets match rules use as an address ('src @NAME'), XRL_MATCH_SETS_MAX
 * at most a rule set, each a bit of a packet's membership word. Their
 * prefixes are flattened as prefix rules' are (xrl_lpm.h), into the same
 * xrl_lpm_ranges half, each range's slot a class: the class of the longest
 * prefix that holds it, whose word has the bit of every set with a prefix
 * holding it (an address's prefixes nest, so its longest one's ancestors are
 * all of them). xrl_match_sets holds the directory, laid out as
 * xrl_lpm_dir's (XRL_LPM_DIR with kind XRL_MSET_SRC or XRL_MSET_DST), then
 * each rule set's class words at XRL_MSET_CLASS. So a packet's source and
 * destination are each looked up once, and each rule met tests one bit.
 */
#define XRL_MATCH_SETS_MAX 64
#define XRL_MSET_SRC 0
#define XRL_MSET_DST 1
#define XRL_MSET_CLASSES 65536 /* a rule set's: the 16 bits of a range's slot */
#define XRL_MSET_CLASS(set, c) (XRL_LPM_DIR_WORDS + ((__u32)(set)&1) * XRL_MSET_CLASSES + ((__u32)(c)&0xffff))
#define XRL_MSET_WORDS (XRL_LPM_DIR_WORDS + 2 * XRL_MSET_CLASSES)
/* xrl_match_cfg.sets: the structures of xrl_match_sets the set's rules need. */
#define XRL_MATCH_SETS_SRC 1
#define XRL_MATCH_SETS_DST 2

/* xrl_match_cfgs: one set's. */
struct xrl_match_cfg {
	struct xrl_lbvs_cfg lbvs;
	__u32 nrules; /* 0: the set has no match rule, the packet is not classified */
	__u32 sets;   /* XRL_MATCH_SETS_*: look the packet's addresses up in xrl_match_sets */
};
_Static_assert(sizeof(struct xrl_match_cfg) == 8 + 4 * (4 + 2 * XRL_LBVS_FIELDS), "xrl_match_cfg layout");

/* An address a match rule checks past the classifier: a prefix or a named set, or every address outside it. */
struct xrl_match_addr {
	__u8 family; /* 0: the rule does not check it, or a set */
	__u8 plen;
	__u8 neg;
	__u8 set;      /* 0: a prefix; k + 1: the set of bit k (XRL_MATCH_SETS_MAX) */
	__u8 addr[16]; /* the prefix, its host bits clear */
};

struct xrl_match_rule {
	struct xrl_rule r;
	struct xrl_match_addr src, dst;
	__u16 pay_off; /* the fingerprint: bytes from the transport payload's start */
	__u8 pay_len;  /* 0: none */
	__u8 used;     /* 0: a free slot */
	__u8 pay[XRL_MATCH_PAYLOAD_MAX], pay_mask[XRL_MATCH_PAYLOAD_MAX];
	__u32 pad;
};
_Static_assert(sizeof(struct xrl_match_rule) == 72 + 40 + 4 + 16 + 4, "xrl_match_rule layout");

/* xrl_match_specs' value: the rule's fields as userspace writes them (struct xrl_match and the key), opaque here. */
#define XRL_MATCH_SPEC_BYTES 768

/*
 * The fields only rules of several fields read, as the parser finds them
 * (bpf/parsing.h), 0 where the packet lacks one: in xrl_match_tmp, not on
 * the program's stack, which the judgement's calls need.
 */
struct xrl_match_fields {
	__u16 sport;	/* host order */
	__u16 len;	/* IPv4 total length, IPv6 payload length + 40 */
	__u16 pay_off;	/* where the transport payload starts, from the frame's start (0: no transport header) */
	__u16 pay_len;	/* its bytes in the frame, up to the IP length */
	__u8 ttl;	/* TTL or hop limit */
	__u8 dscp;	/* the top 6 bits of TOS or traffic class */
	__u8 tcpflags;	/* TCP header byte 13 */
	__u8 icmp_code; /* with an ICMP type, when the header has it */
	__u8 frag;	/* XRL_LBVS_FRAG_* */
	__u8 pad[3];
	__u8 dst[16] __attribute__((aligned(4))); /* IPv4 in the first four bytes */
};

/* xrl_match_tmp: a packet's classification, the rules it met past their checks, and their judgements. */
struct xrl_match_tmp {
	struct xrl_match_fields f;
	struct xrl_lbvs_pkt v;
	struct xrl_lbvs_result res;
	__u16 n;	 /* rules met: slot[0..n) */
	__u8 allow;	 /* one of them allows the packet: slot[0] */
	__u8 classified; /* res holds the packet's classification */
	__u32 decider;	 /* the rule that decided, for a capture */
	__u32 out;	 /* what the judgements found (bpf/match.h: XRL_MATCH_OUT_*) */
	__u8 src[16];	 /* the packet's source, while a rule per destination is judged */
	__u8 pc[XRL_MATCH_PCTX_BYTES] __attribute__((aligned(8))); /* the program's packet context, for the callbacks */
	__u32 slot[XRL_LBVS_MAX_MATCH];				   /* in xrl_match_rules */
	__u32 judged[XRL_LBVS_MAX_MATCH];			   /* each one's XRL_J_* */
};

#endif /* XRL_MATCH_ABI_H */
