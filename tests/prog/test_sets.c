// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prefix and dst rules of named sets, through the program (BPF_PROG_TEST_RUN):
 * the rule that counts a frame is the one whose prefix, single or of a set,
 * is the longest to hold its address, for every address asked, IPv4 and IPv6
 * mixed, among 20000 nested and overlapping prefixes of a few rules; what the
 * program finds is what explain's lookup (xrl_lpm_lookup) finds.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"

static struct fx fx_sets;

static int setup(void **state)
{
	return fx_setup(state, &fx_sets, 0);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_sets.skel);
	return 0;
}

static unsigned long long seed = 0x9e3779b97f4a7c15ULL;

static unsigned long long rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

#define RULES 6
#define PREFIXES 20000

static struct xrl_lpm_entry ent[PREFIXES];

static int pfx_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct xrl_lpm_entry *)a)->p, &((const struct xrl_lpm_entry *)b)->p,
		      sizeof(struct xrl_pfx));
}

static __u32 brute(size_t n, __u8 fam, const __u8 *addr)
{
	int best = -1;
	__u32 slot = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (ent[i].p.family == fam && (int)ent[i].p.plen > best && xrl_pfx_holds(&ent[i].p, addr)) {
			best = ent[i].p.plen;
			slot = ent[i].slot;
		}
	return slot;
}

/* A frame from src (family fam) to dst: UDP. */
static void frame(struct pkt *p, __u8 fam, const __u8 *src, const __u8 *dst)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int af = fam == XRL_FAMILY_V4 ? AF_INET : AF_INET6;

	inet_ntop(af, src, s, sizeof(s));
	inet_ntop(af, dst, d, sizeof(d));
	pkt_init(p);
	pkt_push_eth(p);
	if (fam == XRL_FAMILY_V4)
		pkt_push_ipv4(p, s, d, 0);
	else
		pkt_push_ipv6(p, s, d);
	pkt_push_udp(p, 40000, 53);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

/*
 * RULES rules, each holding random prefixes (a set, or a single one); the
 * range structure of kind built as apply builds it; then frames from
 * addresses in and around them: each is counted by the rule of the longest
 * prefix that holds its address (source for XRL_LPM_SRC, destination for
 * XRL_LPM_DST), or by none.
 */
static void check_kind(struct fx *f, __u8 kind)
{
	struct xrl_rule r[RULES];
	__u64 used = 1, before[RULES + 1] = {};
	size_t i, m = 0;
	int q;

	for (i = 0; i < RULES; i++) {
		struct xrl_lpm_rule lr = { .kind = kind, .used = 1, .set = i ? 1 : 0 };
		__u32 slot = XRL_LPM_SLOT(f->set, i);

		r[i] = rule(f, 1000000000, 1000, 2, XRL_F_PER_SOURCE);
		lr.r = r[i];
		assert_int_equal(bpf_map_update_elem(f->lpm_rules, &slot, &lr, BPF_ANY), 0);
	}
	for (i = 0; i < PREFIXES; i++) {
		struct xrl_pfx *p = &ent[i].p;
		int bits, b;

		memset(p, 0, sizeof(*p));
		p->family = i % 4 ? XRL_FAMILY_V4 : XRL_FAMILY_V6;
		bits = p->family == XRL_FAMILY_V4 ? 32 : 128;
		for (b = 0; b < bits / 8; b++)
			p->addr[b] = (__u8)rnd();
		p->addr[0] = p->family == XRL_FAMILY_V4 ? 10 : 0x20;
		p->addr[1] = (__u8)(rnd() % 3);
		p->plen = (__u8)(p->family == XRL_FAMILY_V4 ? 12 + rnd() % 21 : 20 + rnd() % 109);
		for (b = p->plen; b < bits; b++)
			p->addr[b / 8] &= (__u8) ~(0x80 >> (b % 8));
		ent[i].slot = (__u16)XRL_LPM_SLOT(f->set, rnd() % RULES);
	}
	qsort(ent, PREFIXES, sizeof(ent[0]), pfx_cmp);
	for (i = 0; i < PREFIXES; i++)
		if (!m || memcmp(&ent[m - 1].p, &ent[i].p, sizeof(ent[i].p)))
			ent[m++] = ent[i];
	{
		struct xrl_lpm_entry *copy = malloc(m * sizeof(*copy));

		assert_non_null(copy);
		memcpy(copy, ent, m * sizeof(*copy));
		xrl_lpm_clear(&f->lm, f->set);
		assert_int_equal(xrl_lpm_build(&f->lm, kind, f->set, copy, m, &used), 0);
		free(copy);
	}
	set_has(f, f->set, kind == XRL_LPM_SRC ? XRL_HAS_PREFIXES : XRL_HAS_DSTS);
	for (q = 0; q < 3000; q++) {
		const struct xrl_lpm_entry *at = &ent[rnd() % m];
		__u8 addr[16] = {}, other[16] = { 192, 0, 2, 9 };
		__u8 fam = at->p.family;
		__u32 want, got = 0, j;
		struct pkt p;
		int b;

		for (b = 0; b < (fam == XRL_FAMILY_V4 ? 4 : 16); b++)
			addr[b] = (__u8)(at->p.addr[b] ^ (b * 8 >= at->p.plen || q % 5 == 0 ? (__u8)rnd() : 0));
		if (fam == XRL_FAMILY_V6)
			inet_pton(AF_INET6, "fd00::9", other);
		want = brute(m, fam, addr);
		assert_int_equal(xrl_lpm_find(&f->lm, kind, f->set, fam, addr), want);
		if (kind == XRL_LPM_SRC)
			frame(&p, fam, addr, other);
		else
			frame(&p, fam, other, addr);
		assert_int_equal(run(f, &p), XDP_PASS);
		for (j = 0; j < RULES; j++) {
			struct totals t = rule_totals(f, r[j].id);

			if (t.pass != before[j]) {
				assert_int_equal(got, 0);
				got = XRL_LPM_SLOT(f->set, j);
				before[j] = t.pass;
			}
		}
		if (got != want)
			fail_msg("frame %d: counted by slot %u, the longest match is slot %u", q, got, want);
	}
}

static void test_sources_longest_match(void **state)
{
	check_kind(fx_get(state), XRL_LPM_SRC);
}

static void test_destinations_longest_match(void **state)
{
	check_kind(fx_get(state), XRL_LPM_DST);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sources_longest_match),
		T(test_destinations_longest_match),
	};

	fx_init();
	return cmocka_run_group_tests_name("sets", tests, NULL, group_teardown);
}
