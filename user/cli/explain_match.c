// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * explain's classifier of the shorthands: the rules a packet meets, looked up
 * as the program looks; and the packet as the rules of several fields see it,
 * whose classification is the program's own (read/match_meets.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codec/dsts.h"
#include "cli.h"
#include "explain.h"
#include "xrl_lbvs.h"

/*
 * The prefix or dst rule (kind) the program would find for addr, the range
 * structure answering, and the prefix that holds addr (of its set, for a
 * set's rule).
 */
static const struct xrl_spec *lpm_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
				       const struct xrl_ruleset *set, __u8 kind, __u8 family, const __u8 *addr,
				       struct xrl_pfx *held)
{
	__u32 id;
	size_t i;

	memset(held, 0, sizeof(*held));
	if (xrl_lpm_match(m, ctl->active_set & 1, kind, family, addr, &id, held))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (xrl_spec_in_lpm(&set->v[i]) && set->v[i].r.id == id)
			return &set->v[i];
	return NULL;
}

/*
 * The rule of set in the dst trie the program would find for a packet to dst
 * (to port/proto when proto is not 0: a narrowed port rule), by its id.
 */
static const struct xrl_spec *dst_trie_rule(const struct xrl_maps *m, const struct xrl_ctl *ctl,
					    const struct xrl_ruleset *set, const struct xrl_spec *dst, __u8 proto,
					    __u16 port)
{
	struct xrl_rule r;
	size_t i;

	if (xrl_dst_match(m->dsts, ctl->active_set & 1, proto, port, dst->family, dst->addr, &r))
		return NULL;
	for (i = 0; i < set->n; i++)
		if (set->v[i].kind == XRL_KIND_PORT && set->v[i].family && set->v[i].r.id == r.id)
			return &set->v[i];
	return NULL;
}

/* The protocol rule a packet meets: its most specific selector, else its protocol (as the program looks). */
static const struct xrl_spec *proto_rule(const struct xrl_ruleset *set, const struct explain_opts *eo)
{
	struct xrl_spec want = { .kind = XRL_KIND_PROTO };
	int idx = -1;

	if (eo->sel != 0xffff) {
		want.sel = eo->sel;
		idx = xrl_ruleset_find(set, &want);
	}
	if (idx < 0 && (eo->proto_arg || eo->port_arg)) {
		want.sel = eo->proto;
		idx = xrl_ruleset_find(set, &want);
	}
	return idx >= 0 ? &set->v[idx] : NULL;
}

void explain_match(const struct xrl_maps *m, const struct xrl_ctl *ctl, const struct xrl_ruleset *set,
		   const struct explain_opts *eo, const struct xrl_spec *match[EXPLAIN_KINDS],
		   struct xrl_pfx held[EXPLAIN_KINDS])
{
	const struct xrl_spec *src = &eo->src;

	memset(match, 0, EXPLAIN_KINDS * sizeof(match[0]));
	memset(held, 0, EXPLAIN_KINDS * sizeof(held[0]));
	match[EXPLAIN_PREFIX] = lpm_rule(m, ctl, set, XRL_LPM_SRC, src->family, src->addr, &held[EXPLAIN_PREFIX]);
	/* A port rule narrowed to the packet's destination wins over the port's own. */
	if (eo->port_arg && !eo->fragment && eo->dst_arg)
		match[EXPLAIN_PORT] = dst_trie_rule(m, ctl, set, &eo->dst, eo->port.proto, eo->port.port);
	if (eo->port_arg && !eo->fragment && !match[EXPLAIN_PORT]) {
		int idx = xrl_ruleset_find(set, &eo->port);

		match[EXPLAIN_PORT] = idx >= 0 ? &set->v[idx] : NULL;
	}
	match[EXPLAIN_PROTO] = proto_rule(set, eo);
	if (eo->dst_arg)
		match[EXPLAIN_DST] =
			lpm_rule(m, ctl, set, XRL_LPM_DST, eo->dst.family, eo->dst.addr, &held[EXPLAIN_DST]);
}

void explain_match_pkt(const struct explain_opts *eo, __u32 size, struct xrl_match_pkt *p)
{
	__u16 *v = p->v.v;
	bool l4 = !eo->fragment;

	memset(p, 0, sizeof(*p));
	p->family = eo->src.family;
	memcpy(p->src, eo->src.addr, sizeof(p->src));
	if (eo->dst_arg)
		memcpy(p->dst, eo->dst.addr, sizeof(p->dst));
	v[XRL_LBVS_PROTO] = eo->proto;
	v[XRL_LBVS_FRAG] = eo->fragment ? XRL_LBVS_FRAG_LATER : XRL_LBVS_FRAG_NONE;
	/* The IP length: the frame's less its Ethernet header, unless given. */
	v[XRL_LBVS_LENGTH] = (__u16)(eo->length_given ? eo->length : size - 14);
	v[XRL_LBVS_TTL] = (__u16)(eo->ttl_given ? eo->ttl : 64);
	v[XRL_LBVS_DSCP] = (__u16)eo->dscp;
	if (!l4)
		return;
	if (eo->proto == XRL_PROTO_TCP || eo->proto == XRL_PROTO_UDP) {
		v[XRL_LBVS_DPORT] = eo->port_arg ? eo->port.port : 0;
		v[XRL_LBVS_SPORT] = (__u16)eo->sport;
	}
	if (eo->proto == XRL_PROTO_TCP)
		v[XRL_LBVS_TCPFLAGS] = eo->flags_arg ? eo->tcpflags : eo->sel == XRL_SEL_SYN ? 0x02 : 0;
	if ((eo->proto == XRL_PROTO_ICMP || eo->proto == XRL_PROTO_ICMPV6) && eo->sel != 0xffff)
		v[XRL_LBVS_ICMP] = (__u16)((eo->sel & 0xff) << 8 | eo->code);
	if (eo->payload_arg) {
		p->payload = eo->payload;
		p->payload_len = eo->payload_len;
	}
}

/* --flags (names or a number) and --payload (hex): the fields only rules of several fields read. */
int explain_prepare_fields(struct cli_ctx *ctx)
{
	static const char *const names[8] = { "fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr" };
	struct explain_opts *eo = ctx->opts;
	char buf[64], *w, *save = NULL, *end;
	size_t i, n;

	if (eo->flags_arg) {
		unsigned long v = strtoul(eo->flags_arg, &end, 0);

		if (*eo->flags_arg && !*end && v <= 255) {
			eo->tcpflags = (__u8)v;
		} else {
			snprintf(buf, sizeof(buf), "%s", eo->flags_arg);
			for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				for (i = 0; i < 8 && strcmp(w, names[i]); i++)
					;
				if (i == 8) {
					cli_usage(
						ctx->cmd,
						"--flags '%s': '%s' is not a TCP flag: expected fin, syn, rst, psh, ack, urg, ece, cwr, or a number",
						eo->flags_arg, w);
					return -1;
				}
				eo->tcpflags |= (__u8)(1U << i);
			}
		}
	}
	if (eo->payload_arg) {
		n = strlen(eo->payload_arg);
		if (!n || n % 2 || n / 2 > XRL_MATCH_PAYLOAD) {
			cli_usage(ctx->cmd, "--payload '%s': expected 1 to %d bytes in hex, like 17000203",
				  eo->payload_arg, XRL_MATCH_PAYLOAD);
			return -1;
		}
		for (i = 0; i < n / 2; i++) {
			char byte[3] = { eo->payload_arg[2 * i], eo->payload_arg[2 * i + 1], 0 };

			eo->payload[i] = (__u8)strtoul(byte, &end, 16);
			if (*end) {
				cli_usage(ctx->cmd, "--payload '%s' is not hex: expected bytes like 17000203",
					  eo->payload_arg);
				return -1;
			}
		}
		eo->payload_len = (__u32)(n / 2);
	}
	if (eo->code_given && !eo->type_arg) {
		cli_usage(ctx->cmd, "--code needs --type");
		return -1;
	}
	return 0;
}
