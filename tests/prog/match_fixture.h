/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fixture of the rules of several fields under BPF_PROG_TEST_RUN
 * (test_match.c, test_match_replay.c): xdp_fixture.h's program with the
 * classifier's bitmaps sized as the loader sizes them, rules parsed from
 * text and written as apply writes them (codec/match_maps.h), and frames
 * with every field a rule reads. Include after xdp_fixture.h.
 */
#ifndef XRL_MATCH_FIXTURE_H
#define XRL_MATCH_FIXTURE_H

#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "rules/rule.h"

#define XRL_IP_OFFSET 0x1FFF
#define XRL_IP_MF 0x2000

/* The bitmaps and the rules' maps as the loader sizes them for 1024 rules and many classes. */
#define MFX_STRIDE 17
#define MFX_ENTRIES 8192
#define MFX_SLOTS 2048

static inline struct xrl_match_fds mfx_fds(struct fx *f)
{
	return (struct xrl_match_fds){
		bpf_map__fd(f->skel->maps.xrl_lbvs_cls),	   bpf_map__fd(f->skel->maps.xrl_lbvs_bits),
		bpf_map__fd(f->skel->maps.xrl_match_cfgs),	   bpf_map__fd(f->skel->maps.xrl_match_rules),
		bpf_map__fd(f->skel->maps.xrl_match_specs),	   bpf_map__value_size(f->skel->maps.xrl_lbvs_bits) / 8,
		bpf_map__max_entries(f->skel->maps.xrl_lbvs_bits), bpf_map__max_entries(f->skel->maps.xrl_match_rules),
	};
}

/*
 * f opened (fx_open), its bitmaps sized as the loader sizes them (stride
 * words a value, entries), its rules' maps slots entries.
 */
static inline void mfx_size(struct fx *f, __u32 stride, __u32 entries, __u32 slots)
{
	if (!f->skel)
		return;
	f->skel->rodata->xrl_lbvs_stride = stride;
	bpf_map__set_value_size(f->skel->maps.xrl_lbvs_bits, stride * 8);
	bpf_map__set_max_entries(f->skel->maps.xrl_lbvs_bits, entries);
	bpf_map__set_max_entries(f->skel->maps.xrl_match_rules, slots);
	bpf_map__set_max_entries(f->skel->maps.xrl_match_specs, slots);
}

/* Loads f once, its bitmaps sized; every test then starts with no rule of any kind. */
static inline int mfx_setup(void **state, struct fx *f)
{
	struct xrl_match_fds mf;

	if (!f->loaded) {
		fx_open(f, XRL_MALPOL_EVASIVE);
		mfx_size(f, MFX_STRIDE, MFX_ENTRIES, MFX_SLOTS);
		fx_load_opened(f);
	}
	fx_setup(state, f, XRL_MALPOL_EVASIVE);
	if (f->skip[0] || f->err[0])
		return 0;
	mf = mfx_fds(f);
	if (xrl_match_clear(&mf, 0) || xrl_match_clear(&mf, 1))
		snprintf(f->err, sizeof(f->err), "cannot clear the match rules: %s", strerror(errno));
	return 0;
}

/* The rules of text (a rules file) into set, ids and gens given as apply gives them; the set's match rules written. */
static inline void mfx_parse(struct fx *f, const char *text, struct xrl_ruleset *set)
{
	char err[XRL_ERRLEN];
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	size_t i;

	assert_non_null(in);
	memset(set, 0, sizeof(*set));
	if (xrl_ruleset_parse(in, "test.rules", set, err, sizeof(err)))
		fail_msg("%s", err);
	fclose(in);
	for (i = 0; i < set->n; i++) {
		set->v[i].r.id = ++f->next_id;
		set->v[i].r.gen = ++f->next_gen;
	}
}

/* The maps the range structure and the named sets are in, as apply has them. */
static inline struct xrl_maps mfx_maps(struct fx *f)
{
	struct xrl_match_fds mf = mfx_fds(f);

	return (struct xrl_maps){ .lpm_rules = f->lpm_rules,
				  .lpm_dir = bpf_map__fd(f->skel->maps.xrl_lpm_dir),
				  .lpm_ranges = bpf_map__fd(f->skel->maps.xrl_lpm_ranges),
				  .sets = bpf_map__fd(f->skel->maps.xrl_sets),
				  .set_items = bpf_map__fd(f->skel->maps.xrl_set_items),
				  .lbvs_cls = mf.cls,
				  .lbvs_bits = mf.bits,
				  .match_cfgs = mf.cfgs,
				  .match_rules = mf.rules,
				  .match_specs = mf.specs,
				  .match_tmp = -1,
				  .match_sets = bpf_map__fd(f->skel->maps.xrl_match_sets),
				  .lbvs_stride = mf.stride,
				  .lbvs_entries = mf.entries,
				  .match_slots = mf.slots };
}

/*
 * Writes set's match rules into the active set: 0, or what xrl_match_build
 * refused (err says why). A set with named sets has its prefix and dst
 * rules and its sets' structures written too, as apply writes them.
 */
static inline int mfx_write(struct fx *f, const struct xrl_ruleset *set, struct xrl_match_built *mb, char *err,
			    size_t len)
{
	struct xrl_match_fds mf = mfx_fds(f);
	struct xrl_maps m = mfx_maps(f);
	int ret = xrl_match_build(set, mb, err, len);
	size_t i;

	if (ret)
		return ret;
	assert_int_equal(xrl_match_write(&mf, f->set, set, mb), 0);
	if (!set->nsets)
		return 0;
	ret = xrl_lpm_write(&m, &f->lm, f->set, set, err, len);
	for (i = 0; !ret && i < set->n; i++)
		if (set->v[i].kind == XRL_KIND_PREFIX || set->v[i].kind == XRL_KIND_DST)
			set_has(f, f->set, set->v[i].kind == XRL_KIND_PREFIX ? XRL_HAS_PREFIXES : XRL_HAS_DSTS);
	return ret;
}

/* The rules of text in force; their ids are 1 to n, in the order written. */
static inline void put_match(struct fx *f, const char *text)
{
	struct xrl_match_built mb;
	struct xrl_ruleset set;
	char err[XRL_ERRLEN];

	mfx_parse(f, text, &set);
	if (mfx_write(f, &set, &mb, err, sizeof(err)))
		fail_msg("%s", err);
	xrl_match_built_free(&mb);
	xrl_ruleset_free(&set);
}

/* A frame's fields, as a rule reads them. */
struct mpkt {
	const char *src, *dst; /* IPv4, or IPv6 with a colon */
	__u8 proto;	       /* XRL_PROTO_* */
	__u16 sport, dport;
	__u8 ttl, tos, tcpflags; /* ttl 0: 64 */
	__u8 icmp_type, icmp_code;
	__u16 frag;	  /* IPv4 frag_off, host order (XRL_IP_MF, offset) */
	size_t len;	  /* payload bytes */
	const __u8 *data; /* the payload's first bytes (up to len); NULL: a counting pattern */
	size_t ndata;
};

static inline void mpkt_build(struct pkt *p, const struct mpkt *m)
{
	bool v6 = strchr(m->src, ':') != NULL;
	__u8 *d;

	pkt_init(p);
	pkt_push_eth(p);
	if (v6) {
		struct ipv6hdr *ip6 = pkt_push_ipv6(p, m->src, m->dst);

		ip6->hop_limit = m->ttl ? m->ttl : 64;
		ip6->priority = m->tos >> 4;
		ip6->flow_lbl[0] = (__u8)(m->tos << 4);
	} else {
		struct iphdr *ip = pkt_push_ipv4(p, m->src, m->dst, 0);

		ip->ttl = m->ttl ? m->ttl : 64;
		ip->tos = m->tos;
		ip->frag_off = htons(m->frag);
		/* A later fragment: no transport header, its protocol said by the IP header. */
		if (m->frag & XRL_IP_OFFSET)
			ip->protocol = m->proto;
	}
	if (m->frag & XRL_IP_OFFSET) {
		/* the payload only */
	} else if (m->proto == XRL_PROTO_TCP) {
		struct tcphdr *th = pkt_push_tcp(p, m->sport, m->dport);

		((__u8 *)th)[13] = m->tcpflags;
	} else if (m->proto == XRL_PROTO_UDP) {
		pkt_push_udp(p, m->sport, m->dport);
	} else if (m->proto == XRL_PROTO_ICMP) {
		struct icmphdr *ih = pkt_push_icmp(p);

		ih->type = m->icmp_type;
		ih->code = m->icmp_code;
	} else if (m->proto == XRL_PROTO_ICMPV6) {
		struct icmp6hdr *ih = pkt_push_icmp6(p);

		ih->icmp6_type = m->icmp_type;
		ih->icmp6_code = m->icmp_code;
	}
	d = pkt_push_data(p, m->len);
	if (d && m->data)
		memcpy(d, m->data, m->ndata < m->len ? m->ndata : m->len);
	pkt_finish(p);
}

/* Runs m count times; returns how many passed. */
static inline int mrun(struct fx *f, const struct mpkt *m, int count)
{
	struct pkt p;

	mpkt_build(&p, m);
	return run_n(f, &p, count);
}

#endif /* XRL_MATCH_FIXTURE_H */
