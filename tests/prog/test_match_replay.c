// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Random packets against random sets of rules of several fields, four
 * ways: through the program (BPF_PROG_TEST_RUN: which rules counted the
 * packet), through the classifier in userspace on the builder's tables with
 * each rule's checks past it, through explain's reading of the maps the
 * program reads (read/match_meets.h: the same header on the maps' tables),
 * and through the field-by-field predicate (xrl_spec_eval). All must agree
 * on every packet. The rules' addresses are prefixes or named sets (the
 * program's and explain's lookups of xrl_match_sets, the predicate's walk of
 * each set's prefixes); their ports are ranges or named port sets (the
 * classifier's field built from the set's ranges, the predicate's walk of
 * them).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "match_fixture.h"
#include "read/match_meets.h"

#define ROUNDS 60
#define PACKETS 150
#define MAX_RULES 10

static struct fx fx;

static int setup(void **state)
{
	return mfx_setup(state, &fx);
}

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

static const char *const ports[] = { "53", "123", "1000-2000", "!= 53", "{ 53, 123 }", "@D", "!= @D", "@E", "!= @E" };
static const char *const flags[] = { "ack / syn,ack,rst", "syn / syn,ack", "rst / rst", "!= 0 / fin" };
static const char *const ttls[] = { "1-32", "64", "!= 64", "100-255" };
static const char *const lens[] = { "512-65535", "0-100", "!= 60" };
static const char *const srcs[] = {
	"198.51.100.0/24", "!= 198.51.100.0/24", "2001:db8::/32", "192.0.2.1", "@A", "!= @B", "@C"
};
static const char *const dsts[] = { "203.0.113.0/25", "!= 203.0.113.0/25", "2001:db8:1::/48", "@B", "!= @C", "@A" };
/* Named sets of both families, nested in one another and across sets: an address in several, or in none. */
static const char *const named[] = {
	"set A { 198.51.100.0/24, 2001:db8::/32, 203.0.113.0/24 }\n",
	"set B { 192.0.2.0/24, 198.51.100.7/32, 203.0.113.128/25, 2001:db8:1::/48 }\n",
	"set C { 10.0.0.0/8, 203.0.113.0/25, 2001:db8::/48, 2001:db8:2::/47 }\n",
	/* Port sets: ranges that touch (merged), one the packets' ports fall at the edge of. */
	"set D ports { 53, 1400-1499, 1500-1600, 30000-39999 }\n",
	"set E ports { 123, 40000, 0-52 }\n",
};
static const char *const pays[] = { "0 01", "1 02 / 03", "0 0001", "2 03" };

/* One random rule line, as a rules file has it. */
static void random_line(char *line, size_t len)
{
	unsigned int p = rnd(5);
	size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(line + n, len - n, __VA_ARGS__))
	if (rnd(3) == 0)
		ADD("src %s ", PICK(srcs));
	if (rnd(3) == 0)
		ADD("dst %s ", PICK(dsts));
	if (p == 0 || p == 1) {
		ADD("proto %s ", p ? "tcp" : "udp");
		if (rnd(2))
			ADD("sport %s ", PICK(ports));
		if (rnd(2))
			ADD("dport %s ", PICK(ports));
		if (p == 1 && rnd(2))
			ADD("tcp flags %s ", PICK(flags));
		if (p == 0 && rnd(3) == 0)
			ADD("payload %s ", PICK(pays));
	} else if (p == 2) {
		ADD(rnd(2) ? "icmp type 8 " : "icmp type 8 code 0 ");
	} else if (p == 3 && rnd(2)) {
		ADD("frag %s ", PICK(((const char *const[]){ "none", "first", "later", "!= later" })));
	}
	if (rnd(3) == 0)
		ADD("ttl %s ", PICK(ttls));
	if (rnd(3) == 0)
		ADD("length %s ", PICK(lens));
	if (rnd(4) == 0)
		ADD("dscp %s ", rnd(2) ? "ef" : "0");
	ADD("rate 1000000/s aggregate");
#undef ADD
}

/* Whether line is one of the first len bytes of rules already (one rule per match). */
static bool drawn(const char *rules, size_t len, const char *line)
{
	size_t n = strlen(line);
	const char *at;

	for (at = rules; at < rules + len; at = strchr(at, '\n') + 1)
		if (!strncmp(at, line, n) && at[n] == '\n')
			return true;
	return false;
}

/* A set of n random rules that parses (a line the grammar refuses is drawn again), the named sets they use defined. */
static void random_set(struct fx *f, struct xrl_ruleset *set, unsigned int n)
{
	char text[MAX_RULES * 256 + 512], rules[MAX_RULES * 256], err[XRL_ERRLEN], line[256];
	size_t len = 0, k;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct xrl_spec s;
		char *argv[64], copy[256], *save = NULL, *w;
		int argc = 0;

		do {
			random_line(line, sizeof(line));
			snprintf(copy, sizeof(copy), "%s", line);
			argc = 0;
			for (w = strtok_r(copy, " ", &save); w && argc < 64; w = strtok_r(NULL, " ", &save))
				argv[argc++] = w;
		} while (xrl_spec_parse(argc, argv, &s, err, sizeof(err)) || s.kind != XRL_KIND_MATCH ||
			 drawn(rules, len, line));
		len += (size_t)snprintf(rules + len, sizeof(rules) - len, "%s\n", line);
	}
	for (k = 0, len = 0; k < sizeof(named) / sizeof(named[0]); k++) {
		char at[4] = { '@', (char)('A' + k), ' ', 0 };

		if (strstr(rules, at))
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", named[k]);
	}
	snprintf(text + len, sizeof(text) - len, "%s", rules);
	mfx_parse(f, text, set);
}

/* A random packet, and the same as the predicate sees it. */
static void random_pkt(struct mpkt *m, __u8 *data, struct xrl_match_pkt *mp)
{
	static const char *const v4src[] = { "198.51.100.7", "198.51.100.8", "192.0.2.1", "10.0.0.1" },
				 *const v4dst[] = { "203.0.113.1", "203.0.113.200", "192.0.2.9" };
	bool v6 = rnd(5) == 0;
	unsigned int i, hdr = 0;

	memset(m, 0, sizeof(*m));
	memset(mp, 0, sizeof(*mp));
	m->src = v6 ? PICK(((const char *const[]){ "2001:db8::1", "2001:db8:3::1" })) : PICK(v4src);
	m->dst = v6 ? PICK(((const char *const[]){ "2001:db8:1::1", "2001:db8:2::1", "2001:db9::1" })) : PICK(v4dst);
	m->proto = PICK(((const __u8[]){ XRL_PROTO_UDP, XRL_PROTO_TCP, XRL_PROTO_ICMP }));
	if (v6 && m->proto == XRL_PROTO_ICMP)
		m->proto = XRL_PROTO_ICMPV6;
	m->sport = PICK(((const __u16[]){ 53, 123, 1500, 40000 }));
	m->dport = PICK(((const __u16[]){ 53, 123, 1500, 40000 }));
	m->ttl = PICK(((const __u8[]){ 5, 64, 200 }));
	m->tos = rnd(3) ? 0 : 46 << 2;
	m->tcpflags = PICK(((const __u8[]){ 0x10, 0x12, 0x02, 0x04, 0x11 }));
	m->icmp_type = rnd(3) ? 8 : 0;
	m->icmp_code = (__u8)rnd(2);
	if (!v6)
		m->frag = PICK(((const __u16[]){ 0, 0, 0, XRL_IP_MF, 100 }));
	m->len = PICK(((const size_t[]){ 0, 3, 50, 600 }));
	for (i = 0; i < 8; i++)
		data[i] = (__u8)rnd(4);
	m->data = data;
	m->ndata = 8;

	mp->family = v6 ? XRL_FAMILY_V6 : XRL_FAMILY_V4;
	inet_pton(v6 ? AF_INET6 : AF_INET, m->src, mp->src);
	inet_pton(v6 ? AF_INET6 : AF_INET, m->dst, mp->dst);
	mp->v.v[XRL_LBVS_PROTO] = m->proto;
	mp->v.v[XRL_LBVS_TTL] = m->ttl;
	mp->v.v[XRL_LBVS_DSCP] = m->tos >> 2;
	mp->v.v[XRL_LBVS_FRAG] = (m->frag & XRL_IP_OFFSET) ? XRL_LBVS_FRAG_LATER :
				 (m->frag & XRL_IP_MF)	   ? XRL_LBVS_FRAG_FIRST :
							     XRL_LBVS_FRAG_NONE;
	if (!(m->frag & XRL_IP_OFFSET)) {
		if (m->proto == XRL_PROTO_UDP || m->proto == XRL_PROTO_TCP) {
			mp->v.v[XRL_LBVS_SPORT] = m->sport;
			mp->v.v[XRL_LBVS_DPORT] = m->dport;
			hdr = m->proto == XRL_PROTO_TCP ? 20 : 8;
		} else {
			mp->v.v[XRL_LBVS_ICMP] = (__u16)(m->icmp_type << 8 | m->icmp_code);
			hdr = 8;
		}
		if (m->proto == XRL_PROTO_TCP)
			mp->v.v[XRL_LBVS_TCPFLAGS] = m->tcpflags;
		mp->payload = data;
		mp->payload_len = (__u32)(m->len < 8 ? m->len : 8);
	}
	mp->v.v[XRL_LBVS_LENGTH] = (__u16)((v6 ? 40 : 20) + hdr + m->len);
}

/* The rules of mb that userspace's classifier and checks say p meets, as a bitmap of builder rules. */
static __u64 user_meets(const struct xrl_ruleset *set, const struct xrl_match_built *mb, const struct xrl_match_pkt *p)
{
	struct xrl_lbvs_ctx c = { .t = &mb->b.t };
	struct xrl_lbvs_result res;
	__u64 met = 0;
	__u32 i, r, ok;

	assert_int_equal(xrl_lbvs_classify(&c, &p->v, &res), 0);
	assert_false(res.more);
	for (i = 0; i < res.n; i++) {
		r = mb->b.rule_of[res.bit[i]];
		ok = xrl_spec_eval(&set->v[mb->spec[r]], set, p);
		/* Past the classifier, the program checks the addresses and the fingerprint. */
		if ((ok & (XRL_MF_SRC | XRL_MF_DST | XRL_MF_PAYLOAD)) ==
		    (xrl_spec_fields(&set->v[mb->spec[r]]) & (XRL_MF_SRC | XRL_MF_DST | XRL_MF_PAYLOAD)))
			met |= 1ULL << r;
	}
	return met;
}

/* What explain reads: the rules of set that p meets, by the maps, as a bitmap of builder rules. */
static __u64 explain_meets(struct fx *f, const struct xrl_ruleset *set, const struct xrl_match_built *mb,
			   const struct xrl_match_pkt *p)
{
	struct xrl_maps m = mfx_maps(f);
	struct xrl_match_meets mm;
	__u64 met = 0;
	size_t i, r;

	assert_int_equal(xrl_match_meets(&m, f->set, set, p, &mm), 0);
	assert_false(mm.more);
	for (i = 0; i < mm.n; i++)
		for (r = 0; r < mb->n; r++)
			if (&set->v[mb->spec[r]] == mm.s[i])
				met |= 1ULL << r;
	return met;
}

static void test_ways_agree(void **state)
{
	struct fx *f = fx_get(state);
	unsigned long pairs = 0, matched = 0, named[2] = {}, pnamed[2] = {};
	int round, k;

	srandom(3434);
	for (round = 0; round < ROUNDS; round++) {
		__u64 want[MAX_RULES] = {}, no_rule = 0;
		struct xrl_match_built mb;
		struct xrl_ruleset set;
		char err[XRL_ERRLEN];
		__u32 n = 1 + rnd(MAX_RULES), i;

		fx_reset(f);
		random_set(f, &set, n);
		if (mfx_write(f, &set, &mb, err, sizeof(err)))
			fail_msg("round %d: %s", round, err);
		for (k = 0; k < PACKETS; k++) {
			struct xrl_match_pkt mp;
			struct mpkt m;
			__u8 data[8];
			__u64 pred = 0, user;

			random_pkt(&m, data, &mp);
			for (i = 0; i < mb.n; i++)
				if (xrl_spec_eval(&set.v[mb.spec[i]], &set, &mp) == xrl_spec_fields(&set.v[mb.spec[i]]))
					pred |= 1ULL << i;
			user = user_meets(&set, &mb, &mp);
			if (explain_meets(f, &set, &mb, &mp) != pred)
				fail_msg(
					"round %d packet %d: explain's reading of the maps disagrees with the predicate",
					round, k);
			if (pred != user) {
				char text[XRL_RULE_TEXT];

				i = (__u32)__builtin_ctzll(pred ^ user);
				xrl_spec_format(&set.v[mb.spec[i]], text, sizeof(text));
				fail_msg("round %d packet %d: '%s': predicate %d, classifier %d", round, k, text,
					 !!(pred >> i & 1), !!(user >> i & 1));
			}
			assert_int_equal(mrun(f, &m, 1), 1);
			for (i = 0; i < mb.n; i++) {
				const struct xrl_maddr *src = &set.v[mb.spec[i]].m.src, *dst = &set.v[mb.spec[i]].m.dst;

				want[i] += pred >> i & 1;
				pairs++;
				if (src->set[0] || dst->set[0])
					named[pred >> i & 1]++;
				if (set.v[mb.spec[i]].m.sport_set[0] || set.v[mb.spec[i]].m.dport_set[0])
					pnamed[pred >> i & 1]++;
			}
			no_rule += !pred;
			matched += pred != 0;
		}
		/* The program: each rule counted exactly the packets the other two say it met. */
		for (i = 0; i < mb.n; i++) {
			struct totals t = rule_totals(f, set.v[mb.spec[i]].r.id);

			if (t.pass != want[i] || t.block) {
				char text[XRL_RULE_TEXT];

				xrl_spec_format(&set.v[mb.spec[i]], text, sizeof(text));
				fail_msg("round %d: '%s': the program counted %llu passes, %llu blocks; %llu met it",
					 round, text, (unsigned long long)t.pass, (unsigned long long)t.block,
					 (unsigned long long)want[i]);
			}
		}
		assert_int_equal(counters(f).no_rule, no_rule);
		xrl_match_built_free(&mb);
		xrl_ruleset_free(&set);
	}
	print_message(
		"%d sets, %lu rule-packet pairs, %lu packets met a rule; rules of a named set: %lu met, %lu not; of a port set: %lu met, %lu not\n",
		ROUNDS, pairs, matched, named[1], named[0], pnamed[1], pnamed[0]);
	assert_true(named[0] > 0 && named[1] > 0);
	assert_true(pnamed[0] > 0 && pnamed[1] > 0);
	/* The draw reaches both answers: a check that only ever says no proves nothing. */
	assert_true(matched > ROUNDS * PACKETS / 10);
	assert_true(matched < ROUNDS * PACKETS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ways_agree, setup, fx_teardown),
	};

	fx_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
