// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Capture under BPF_PROG_TEST_RUN, on the test clock: with the flag off the
 * ring gets nothing and the control block is left as it is; the verdicts and
 * counters are the same with it on or off; on, a dropped
 * frame's record carries its bytes, length, verdict, why and the rule that
 * decided; --passed takes the passes instead; the rule and source filters
 * are applied in the program; the per-CPU budget copies burst frames, counts
 * the rest and refills with the jiffies; snaplen cuts; a lease past its
 * deadline turns the capture off in the program itself.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "xrl_capture.h"

#define SRC4 "198.51.100.7"
#define OTHER4 "198.51.100.8"

static struct fx fx_c;

struct got {
	struct xrl_cap_rec rec[16];
	__u8 data[16][128];
	int n;
};

static int on_rec(void *ctx, void *data, size_t size)
{
	struct got *g = ctx;

	assert_true(size >= sizeof(struct xrl_cap_rec));
	if (g->n < 16) {
		memcpy(&g->rec[g->n], data, sizeof(struct xrl_cap_rec));
		memcpy(g->data[g->n], (char *)data + sizeof(struct xrl_cap_rec),
		       size - sizeof(struct xrl_cap_rec) < 128 ? size - sizeof(struct xrl_cap_rec) : 128);
	}
	g->n++;
	return 0;
}

/* What the ring holds now, consumed. */
static struct got drain(struct fx *f)
{
	struct ring_buffer *rb;
	struct got g = {};

	rb = ring_buffer__new(bpf_map__fd(f->skel->maps.xrl_cap_ring), on_rec, &g, NULL);
	assert_non_null(rb);
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return g;
}

static __u64 next_session = 1000;

/* A capture of these verdicts, on from now for 10 s, every frame its budget allows. */
static struct xrl_cap_ctl cap(__u32 verdicts)
{
	struct xrl_cap_ctl c = {
		.session = ++next_session,
		.deadline = T0 + 10 * SEC_NS,
		.verdicts = verdicts,
		.snaplen = XRL_CAP_SNAP_MAX,
		.rate = 1000,
		.burst = 100,
	};
	return c;
}

static void put_cap(struct fx *f, const struct xrl_cap_ctl *c)
{
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(f->skel->maps.xrl_cap_ctl), &zero, c, BPF_ANY), 0);
}

static struct xrl_cap_ctl get_cap(struct fx *f)
{
	struct xrl_cap_ctl c;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(f->skel->maps.xrl_cap_ctl), &zero, &c), 0);
	return c;
}

/* This CPU's counters, for session s. */
static struct xrl_cap_cpu cpu_counts(struct fx *f, __u64 s)
{
	size_t stride = (sizeof(struct xrl_cap_cpu) + 7) & ~(size_t)7;
	char *v = calloc(f->ncpus, stride);
	struct xrl_cap_cpu out = {};
	__u32 zero = 0;
	int c;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(f->skel->maps.xrl_cap_cpu), &zero, v), 0);
	for (c = 0; c < f->ncpus; c++) {
		struct xrl_cap_cpu *p = (void *)(v + (size_t)c * stride);

		if (p->session != s)
			continue;
		out.matched += p->matched;
		out.captured += p->captured;
		out.lost_rate += p->lost_rate;
		out.lost_full += p->lost_full;
	}
	free(v);
	return out;
}

static int setup(void **state)
{
	int ret = fx_setup(state, &fx_c, XRL_MALPOL_EVASIVE);
	struct xrl_cap_ctl off = {};

	if (!ret && !fx_c.skip[0] && !fx_c.err[0]) {
		put_cap(&fx_c, &off);
		drain(&fx_c);
	}
	return ret;
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_c.skel);
	return 0;
}

/* Flag off: frames dropped and passed as ever, nothing in the ring, the control block untouched. */
static void test_off(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED | XRL_CAP_PASSED), after;
	struct pkt p;

	c.session = 0;
	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(drain(f).n, 0);
	after = get_cap(f);
	assert_memory_equal(&after, &c, sizeof(c));
}

/* The same frames, the same verdicts and counters, whether a capture runs or not. */
static void test_same_verdicts(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_counters cnt[2];
	int verdicts[2][8], on, i;
	struct pkt p, q;

	for (on = 0; on < 2; on++) {
		struct xrl_rule r, pr;
		struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED | XRL_CAP_PASSED);

		assert_int_equal(fx_reset(f), 0);
		r = rule(f, 2, 1000, 2, XRL_F_PER_SOURCE);
		pr = rule(f, 3, 1000, 2, 0);
		if (!on)
			c.session = 0;
		put_cap(f, &c);
		put_port(f, XRL_PROTO_UDP, 53, &r);
		put_prefix(f, "198.51.100.0", 24, &pr);
		udp4(&p, SRC4, 53);
		udp4(&q, OTHER4, 54);
		for (i = 0; i < 8; i++)
			verdicts[on][i] = run(f, i % 3 ? &p : &q);
		cnt[on] = counters(f);
		drain(f);
	}
	assert_memory_equal(verdicts[0], verdicts[1], sizeof(verdicts[0]));
	assert_memory_equal(&cnt[0], &cnt[1], sizeof(cnt[0]));
	assert_int_equal(cnt[0].dropped, 5);
}

/* On: a record for each dropped frame, and none for the pass. */
static void test_dropped(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED);
	struct xrl_cap_cpu n;
	struct got g;
	struct pkt p;
	int i;

	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 3), 1);
	g = drain(f);
	assert_int_equal(g.n, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(g.rec[i].session, c.session);
		assert_int_equal(g.rec[i].verdict, XDP_DROP);
		assert_int_equal(g.rec[i].why, XRL_CAP_WHY_OVER);
		assert_int_equal(g.rec[i].rule_id, r.id);
		assert_int_equal(g.rec[i].len, p.len);
		assert_int_equal(g.rec[i].caplen, p.len);
		assert_int_equal(g.rec[i].ts_ns, T0);
		assert_memory_equal(g.data[i], p.buf, p.len);
	}
	n = cpu_counts(f, c.session);
	assert_int_equal(n.matched, 2);
	assert_int_equal(n.captured, 2);
	assert_int_equal(n.lost_rate + n.lost_full, 0);
}

/* --passed: the pass under the rule, and a frame no rule matches, each with why. */
static void test_passed(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_PASSED);
	struct got g;
	struct pkt p, q;

	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	udp4(&q, SRC4, 54);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(run(f, &q), XDP_PASS);
	g = drain(f);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rec[0].verdict, XDP_PASS);
	assert_int_equal(g.rec[0].why, XRL_CAP_WHY_UNDER);
	assert_int_equal(g.rec[0].rule_id, r.id);
	assert_int_equal(g.rec[1].why, XRL_CAP_WHY_NO_RULE);
	assert_int_equal(g.rec[1].rule_id, XRL_CAP_NO_RULE);
}

/* The rule that decided is the first over: a monitor rule over first is not the one that drops. */
static void test_decider(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule mon = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE | XRL_F_MONITOR);
	struct xrl_rule pfx = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED | XRL_CAP_PASSED);
	struct got g;
	struct pkt p;

	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &mon);
	put_prefix(f, "198.51.100.0", 24, &pfx);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 2), 1);
	g = drain(f);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rec[0].why, XRL_CAP_WHY_UNDER);
	assert_int_equal(g.rec[0].rule_id, mon.id); /* the first rule that judged it */
	assert_int_equal(g.rec[1].verdict, XDP_DROP);
	assert_int_equal(g.rec[1].why, XRL_CAP_WHY_OVER);
	assert_int_equal(g.rec[1].rule_id, pfx.id);
}

/* Frames an allow rule passes: why allow, and the allow rule, a prefix's or a dst's. */
static void test_allow(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule pa = rule(f, 1, 1000, 2, XRL_F_ALLOW);
	struct xrl_rule da = rule(f, 1, 1000, 2, XRL_F_ALLOW);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_PASSED);
	struct got g;
	struct pkt p, q;

	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	put_prefix(f, SRC4, 32, &pa);
	put_dst(f, "203.0.113.1", 32, &da);
	udp4(&p, SRC4, 53);   /* the prefix allow rule, looked up first */
	udp4(&q, OTHER4, 53); /* the dst allow rule */
	assert_int_equal(run_n(f, &p, 3), 3);
	assert_int_equal(run_n(f, &q, 3), 3);
	g = drain(f);
	assert_int_equal(g.n, 6);
	assert_int_equal(g.rec[0].why, XRL_CAP_WHY_ALLOW);
	assert_int_equal(g.rec[0].rule_id, pa.id);
	assert_int_equal(g.rec[3].why, XRL_CAP_WHY_ALLOW);
	assert_int_equal(g.rec[3].rule_id, da.id);
}

/* --rule and --src are applied in the program: what does not match spends nothing. */
static void test_filters(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_rule other = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED);
	struct pkt a, b, o;
	struct got g;

	put_port(f, XRL_PROTO_UDP, 53, &r);
	put_port(f, XRL_PROTO_UDP, 54, &other);
	c.rule_id = r.id + 1;
	c.src_family = XRL_FAMILY_V4;
	assert_int_equal(inet_pton(AF_INET, SRC4, c.src_addr), 1);
	memset(c.src_mask, 0xff, 4);
	put_cap(f, &c);
	udp4(&a, SRC4, 53);
	udp4(&b, OTHER4, 53);
	udp4(&o, SRC4, 54);
	assert_int_equal(run_n(f, &a, 3), 1);
	assert_int_equal(run_n(f, &b, 3), 1);
	assert_int_equal(run_n(f, &o, 3), 1);
	g = drain(f);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rec[0].rule_id, r.id);
	assert_int_equal(g.rec[1].rule_id, r.id);
	assert_memory_equal(g.data[1], a.buf, a.len);
	assert_int_equal(cpu_counts(f, c.session).matched, 2);
}

/* The budget: burst frames at once, the rest counted as lost to it; a second of jiffies refills it. */
static void test_budget(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED);
	struct xrl_cap_cpu n;
	struct pkt p;

	if (!fx_tick(f))
		skip();
	c.rate = 2;
	c.burst = 2;
	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 6), 1);
	assert_int_equal(drain(f).n, 2);
	n = cpu_counts(f, c.session);
	assert_int_equal(n.matched, 5);
	assert_int_equal(n.captured, 2);
	assert_int_equal(n.lost_rate, 3);
	/* Half a second: one frame's worth at 2 a second. */
	set_now(f, T0 + 500 * MS);
	assert_int_equal(run_n(f, &p, 3), 0);
	assert_int_equal(drain(f).n, 1);
	n = cpu_counts(f, c.session);
	assert_int_equal(n.captured, 3);
	assert_int_equal(n.lost_rate, 5);
}

/* snaplen cuts the copy; the record keeps the frame's length. */
static void test_snaplen(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED);
	struct got g;
	struct pkt p;

	c.snaplen = 20;
	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 2), 1);
	g = drain(f);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.rec[0].caplen, 20);
	assert_int_equal(g.rec[0].len, p.len);
	assert_memory_equal(g.data[0], p.buf, 20);
}

/* A lease past its deadline (its capturer died): the program turns the flag off itself, copies nothing. */
static void test_lease(void **state)
{
	struct fx *f = fx_get(state);
	struct xrl_rule r = rule(f, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_cap_ctl c = cap(XRL_CAP_DROPPED);
	struct pkt p;

	c.deadline = T0 - 1;
	put_cap(f, &c);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	udp4(&p, SRC4, 53);
	assert_int_equal(run_n(f, &p, 3), 1);
	assert_int_equal(drain(f).n, 0);
	assert_int_equal(get_cap(f).session, 0);
	/* And a live lease that runs out: copies until then, not after. */
	c = cap(XRL_CAP_DROPPED);
	c.deadline = T0 + 2 * SEC_NS;
	put_cap(f, &c);
	assert_int_equal(run_n(f, &p, 2), 0);
	assert_int_equal(drain(f).n, 2);
	set_now(f, T0 + 2 * SEC_NS);
	assert_int_equal(run_n(f, &p, 2), 1); /* a new window: one passes */
	assert_int_equal(drain(f).n, 0);
	assert_int_equal(get_cap(f).session, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)
		T(test_off),   T(test_same_verdicts), T(test_dropped), T(test_passed),	T(test_decider),
		T(test_allow), T(test_filters),	      T(test_budget),  T(test_snaplen), T(test_lease),
#undef T
	};

	fx_init();
	return cmocka_run_group_tests_name("capture", tests, NULL, group_teardown);
}
