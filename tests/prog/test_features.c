// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program specialised to its rule set (xrl_config.features) under
 * BPF_PROG_TEST_RUN: one built for port rules only ignores the rules of the
 * kinds and features it does not carry, even where the set's kinds bits name
 * them, so the verifier's pruning is real; one built with everything judges
 * the same rules; and the verifier walks fewer instructions for the first.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"

#define SRC4 "198.51.100.7"
#define DST4 "203.0.113.1"

static struct fx fx_ports = { .features = XRL_HAS_PORTS }, fx_all;

static int setup_ports(void **state)
{
	return fx_setup(state, &fx_ports, 0);
}

static int setup_all(void **state)
{
	return fx_setup(state, &fx_all, 0);
}

static void udp4_to(struct pkt *p, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, SRC4, DST4, 0);
	pkt_push_udp(p, 40000, dport);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

static bool carries_all(const struct fx *f)
{
	return f->skel->rodata->xrl_cfg.features == XRL_FEAT_ALL;
}

/* A prefix rule of 1 a second: ignored without the kind, else 1 of 3 passes. */
static void test_prefix(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_prefix(f, "198.51.100.0", 24, &r);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 3), carries_all(f) ? 1 : 3);
	assert_int_equal(counters(f).no_rule, carries_all(f) ? 0 : 3);
}

static void test_proto(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_proto(f, XRL_PROTO_UDP, &r);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 3), carries_all(f) ? 1 : 3);
}

static void test_dst(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_dst(f, DST4, 32, &r);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 3), carries_all(f) ? 1 : 3);
}

/* A port rule narrowed to a destination: a kind of its own, apart from port rules. */
static void test_port_dst(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_dst_rule(f, XRL_PROTO_UDP, 54, DST4, 32, &r);
	udp4_to(&p, 54);
	assert_int_equal(run_n(f, &p, 3), carries_all(f) ? 1 : 3);
}

/* Port rules are judged by both: the kind both carry. */
static void test_port(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 5), 2);
	assert_totals(f, r.id, 2, 3);
}

/* A byte rate beside a packet rate: without the feature only the packet rate holds. */
static void test_bytes(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 10, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;

	r.byte_threshold = 100; /* one frame of 58 bytes */
	r.byte_rate = 100;
	r.byte_unit = XRL_BU_B;
	r.byte_unit_ms = 1000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 12), carries_all(f) ? 1 : 10);
}

/* A global rule's allowance: without the feature the rule's own threshold. */
/* A warm-up ramp (Sentinel's, from a third of the limit): ignored without the feature, else it starts low. */
static void test_warmup(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 12, 1000, 2, XRL_F_PER_SOURCE);
	struct pkt p;
	int passed;

	r.warmup_ms = 3600 * 1000;
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4_to(&p, 53);
	passed = run_n(f, &p, 20);
	if (carries_all(f))
		assert_true(passed >= 1 && passed < 12);
	else
		assert_int_equal(passed, 12);
}

static void test_global(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule g = rule(f, 10, 1000, 2, XRL_F_GLOBAL);
	struct xrl_fleet v = { .allowance = 3, .gen = g.gen, .policy = XRL_FLEET_SHARED };
	struct pkt p;

	put_port(f, XRL_PROTO_UDP, 53, &g);
	assert_int_equal(bpf_map_update_elem(f->fleet, &g.id, &v, BPF_ANY), 0);
	udp4_to(&p, 53);
	assert_int_equal(run_n(f, &p, 12), carries_all(f) ? 3 : 10);
}

static __u32 verified_insns(const struct fx *f)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	assert_int_equal(bpf_obj_get_info_by_fd(f->prog, &info, &len), 0);
	return info.verified_insns;
}

/* What the pruning saves the verifier: the port-only program is walked in fewer instructions. */
static void test_verifier_walk(void **state)
{
	struct fx *f = fx_get(state), *all;
	__u32 ports, full;

	(void)f;
	all = &fx_all;
	if (!all->loaded)
		fx_load(all, 0);
	if (all->skip[0] || all->err[0])
		fail_msg("the full program: %s%s", all->skip, all->err);
	ports = verified_insns(&fx_ports);
	full = verified_insns(all);
	if (!ports || !full) {
		print_message("[   SKIP   ] this kernel reports no verified_insns\n");
		skip();
	}
	print_message("verified instructions: ports only %u, every feature %u\n", ports, full);
	assert_true(ports < full);
}

#define T(fn, s) cmocka_unit_test_setup(fn, s)

static int teardown_ports(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_ports.skel);
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_all.skel);
	return 0;
}

int main(void)
{
	const struct CMUnitTest ports[] = {
		T(test_prefix, setup_ports),   T(test_proto, setup_ports),  T(test_dst, setup_ports),
		T(test_port_dst, setup_ports), T(test_port, setup_ports),   T(test_bytes, setup_ports),
		T(test_global, setup_ports),   T(test_warmup, setup_ports), T(test_verifier_walk, setup_ports),
	};
	const struct CMUnitTest all[] = {
		T(test_prefix, setup_all),   T(test_proto, setup_all),	T(test_dst, setup_all),
		T(test_port_dst, setup_all), T(test_port, setup_all),	T(test_bytes, setup_all),
		T(test_global, setup_all),   T(test_warmup, setup_all),
	};
	int failed;

	fx_init();
	failed = cmocka_run_group_tests_name("features: port rules only", ports, NULL, teardown_ports);
	return failed + cmocka_run_group_tests_name("features: every one", all, NULL, teardown_all);
}
