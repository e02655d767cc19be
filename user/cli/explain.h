/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * explain: the packet it is asked about, and the rules that packet meets:
 * the shorthands' as explain's own lookups find them (explain_match.c), the
 * rules of several fields by the program's classifier on the maps
 * (read/match_meets.h).
 */
#ifndef XRL_EXPLAIN_H
#define XRL_EXPLAIN_H

#include "codec/lpm_set.h"
#include "rules/rule.h"

struct explain_opts {
	const char *src_arg, *dst_arg, *port_arg, *proto_arg, *type_arg;
	bool fragment;
	/* The fields only rules of several fields read (explain_match_fields): as given, or the defaults. */
	__u32 sport, ttl, length, dscp, code;
	bool sport_given, ttl_given, length_given, code_given;
	const char *flags_arg, *payload_arg;
	__u8 tcpflags, payload[XRL_MATCH_PAYLOAD];
	__u32 payload_len;
	__u32 size; /* the frame's length, for byte rates; 0: not given (XRL_EXPLAIN_SIZE) */
	struct xrl_spec src, dst, port;
	__u8 proto;	   /* the packet's IP protocol; 0 with no --proto or --dport */
	__u16 sel;	   /* its most specific protocol selector, or 0xffff */
	const char *label; /* what the packet is, for the heading */
	char label_buf[64];
};

/* Where each kind of rule the packet may meet sits in explain_match's answer. */
enum { EXPLAIN_PREFIX, EXPLAIN_PORT, EXPLAIN_PROTO, EXPLAIN_DST, EXPLAIN_KINDS };

/*
 * The rules of set a packet eo describes meets, by kind (NULL where none),
 * and for a prefix or dst rule the prefix that holds its address (held).
 */
void explain_match(const struct xrl_maps *m, const struct xrl_ctl *ctl, const struct xrl_ruleset *set,
		   const struct explain_opts *eo, const struct xrl_spec *match[EXPLAIN_KINDS],
		   struct xrl_pfx held[EXPLAIN_KINDS]);

struct cli_ctx;
/* --flags (names or a number), --payload (hex) and --code into ctx's explain_opts: 0, or -1 (usage said). */
int explain_prepare_fields(struct cli_ctx *ctx);

/* The packet eo describes as the predicate and the classifier see it (XRL_FRAME_DEFAULT: the frame's size when not given). */
void explain_match_pkt(const struct explain_opts *eo, __u32 size, struct xrl_match_pkt *p);

#endif /* XRL_EXPLAIN_H */
