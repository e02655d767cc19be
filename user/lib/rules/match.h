/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rules of several fields (XRL_KIND_MATCH): each field optional, a rule
 * matching when all its fields do, spelled as nftables spells them
 * ("proto udp sport 53 length 512-65535"). The fields beside the addresses
 * are the classifier's (include/xrl_lbvs.h); codec/match_lbvs.c turns a
 * rule into its per-field constraints. Included by rules/rule.h.
 */
#ifndef XRL_RULES_MATCH_H
#define XRL_RULES_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "xrl_common.h"
#include "xrl_lbvs.h"

/* The fields a match rule gives (xrl_match.given), and what xrl_match_eval reports. */
enum xrl_mfield {
	XRL_MF_SRC = 1 << 0,
	XRL_MF_DST = 1 << 1,
	XRL_MF_PROTO = 1 << 2,
	XRL_MF_TCPFLAGS = 1 << 3,
	XRL_MF_ICMP = 1 << 4,
	XRL_MF_SPORT = 1 << 5,
	XRL_MF_DPORT = 1 << 6,
	XRL_MF_LENGTH = 1 << 7,
	XRL_MF_TTL = 1 << 8,
	XRL_MF_DSCP = 1 << 9,
	XRL_MF_FRAG = 1 << 10,
	XRL_MF_PAYLOAD = 1 << 11,
	XRL_MF_ALL = (1 << 12) - 1,
};
/* The fields a later fragment lacks: a rule with one never matches a later fragment. */
#define XRL_MF_TRANSPORT (XRL_MF_TCPFLAGS | XRL_MF_ICMP | XRL_MF_SPORT | XRL_MF_DPORT | XRL_MF_PAYLOAD)

/* What a rule counts by (xrl_spec.per): bits of the window key; 0 is aggregate. */
#define XRL_PER_SRC 1	/* the masked source: per-source */
#define XRL_PER_DST 2	/* the masked destination */
#define XRL_PER_DPORT 4 /* and the destination port (with SRC or DST) */

/* Ranges a field of numbers takes at most ("sport { 53, 123, 1000-2000 }"). */
#define XRL_MATCH_RANGES 16
/* Payload bytes a fingerprint holds at most, and its furthest offset from the transport payload's start. */
#define XRL_MATCH_PAYLOAD 8
#define XRL_MATCH_PAYLOAD_OFF_MAX 1500

struct xrl_mrange {
	__u16 lo, hi;
};

/* A field of numbers: its ranges, sorted, disjoint and not adjacent; neg: every value outside them. */
struct xrl_mranges {
	__u8 n; /* 0: not given */
	__u8 neg;
	struct xrl_mrange r[XRL_MATCH_RANGES];
};

/* A source or destination: one prefix, or a named set (family 0 then), negated or not. */
struct xrl_maddr {
	__u8 neg;
	__u8 family;
	__u8 plen;
	__u8 addr[16];
	char set[XRL_SET_NAME_MAX];
};

/* A rule's match fields; a field is in use when its XRL_MF_* bit is in given. Zeroed where not. */
struct xrl_match {
	__u32 given;
	struct xrl_maddr src, dst;
	__u8 proto;		/* IP protocol (tcp flags imply tcp, icmp type icmp or icmpv6) */
	__u8 flags, flags_mask; /* TCP header byte 13: packet & flags_mask == flags */
	__u8 icmp_type;		/* the ICMP or ICMPv6 type (as proto says) */
	__u8 icmp_code;		/* with has_code */
	__u8 has_code;		/* 0: any code */
	__u8 payload_len;	/* 1 to XRL_MATCH_PAYLOAD */
	__u16 payload_off;	/* bytes from the transport payload's start */
	__u8 payload[XRL_MATCH_PAYLOAD], payload_mask[XRL_MATCH_PAYLOAD];
	struct xrl_mranges sport, dport, length, ttl, dscp, frag;
	/*
	 * A named port set ('dport @web'): the set's ranges, not sport's or
	 * dport's (n 0 then; neg as written). Last, so that a rule stored by a
	 * build before them (xrl_match_specs) reads with none.
	 */
	char sport_set[XRL_SET_NAME_MAX], dport_set[XRL_SET_NAME_MAX];
};

/* A packet as the predicate sees it: its addresses, the classifier's fields, its payload bytes. */
struct xrl_match_pkt {
	__u8 family; /* XRL_FAMILY_V4 or V6 */
	__u8 src[16], dst[16];
	struct xrl_lbvs_pkt v; /* as the program's parser sets them: 0 where the packet lacks a field */
	const __u8 *payload;   /* the transport payload */
	__u32 payload_len;     /* its bytes in the frame */
};

/* Values lo to hi of a classifier's field (struct xrl_lbvs_range's layout); a field as ranges takes at most XRL_MATCH_FIELD_RANGES. */
struct xrl_vrange {
	__u32 lo, hi;
};
/* Port ranges a named port set holds at most ('set web ports { 80, 443, 8000-8999 }'), merged where they touch. */
#define XRL_PORTSET_RANGES 128
/* Tcp flags under a mask of one bit: every other value (128); a port set negated: one more. */
#define XRL_MATCH_FIELD_RANGES (XRL_PORTSET_RANGES + 1)

/* The field a bit names ("sport", "tcp flags"), for explain and messages. */
const char *xrl_mfield_name(__u32 bit);

#endif /* XRL_RULES_MATCH_H */
