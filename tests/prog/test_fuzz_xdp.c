// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fuzzer of the XDP program under BPF_PROG_TEST_RUN. The frames: a corpus
 * built with pktbuild.h through every header the parser knows; each corpus
 * frame truncated at every byte; frames malformed on purpose (IHL 0 to 15,
 * lengths that lie, VLAN stacks of 3 to 6 tags, IPv6 extension chains too
 * long or pointing back to a hop-by-hop header); random mutations of the
 * corpus (bit flips, interesting bytes, next headers and EtherTypes, lengths
 * and offsets that lie, bytes cut, added and inserted); random bytes. They
 * run against two port rules (per source, aggregate) and two prefix rules
 * (IPv4, IPv6), with a small cap on new per-source states so that the sketch
 * judges new sources too, under the test clock, which moves on at random, from
 * every CPU this process may use.
 *
 * The oracle, per frame: the verdict is XDP_PASS or XDP_DROP; seen moves by
 * one and passed + dropped by one, as the verdict says; the counter of the
 * frame's class moves by one and no other: non-IP, malformed for its reason,
 * no rule, or the totals of the rules its source and port match (a rule that
 * blocked it counts a block; when it passed, each matched rule a pass). The
 * class comes from a reference parser written here, in byte offsets, from
 * the contract in xrl_common.h (enum xrl_malformed) and test_xdp.c's table;
 * a frame built malformed on purpose must also be classed as it was built.
 * After each run, a legitimate key of every rule gets exactly its threshold
 * in a fresh window, then blocks.
 *
 * XRL_FUZZ_SEED replays a run (default: from the clock; printed);
 * XRL_FUZZ_ITERS is the number of random frames (default 100000, about a
 * second), shared out between the tests. Each kind of mismatch is printed
 * once, with the frame in hex; a test with any fails at its end. Needs root:
 * without it the tests are skipped.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "read/stats.h"

#define FUZZ_ITERS_DEFAULT 100000
/*
 * States each CPU may create per second: small, so that the sketch
 * is fuzzed too, but no fewer than the per-source rules, whose legitimate
 * keys limit_holds() may have to create again in one second.
 */
#define FUZZ_NEW_KEYS 4

/* The rules, in the order rule() numbers them. */
enum { R_UDP53 = 1, R_TCP80, R_PFX4, R_PFX6, R_N };

static const __u64 thresholds[R_N] = {
	[R_UDP53] = 5,
	[R_TCP80] = 20,
	[R_PFX4] = 3,
	[R_PFX6] = 4,
};

/* Legitimate sources, one per rule; SRC4 and SRC6 match no prefix rule. */
#define SRC4 "198.51.100.1"
#define SRC6 "2001:db8:ff::1"
#define PFX4_SRC "192.0.2.7"
#define PFX6_SRC "2001:db8:1::5"

static void install_rules(struct fx *f)
{
	struct xrl_rule r;

	r = rule(f, thresholds[R_UDP53], 1000, 2, XRL_F_PER_SOURCE);
	assert_int_equal(r.id, R_UDP53);
	put_port(f, XRL_PROTO_UDP, 53, &r);
	r = rule(f, thresholds[R_TCP80], 1000, 4, 0);
	put_port(f, XRL_PROTO_TCP, 80, &r);
	r = rule(f, thresholds[R_PFX4], 1000, 2, XRL_F_PER_SOURCE);
	put_prefix(f, "192.0.2.0", 24, &r);
	r = rule(f, thresholds[R_PFX6], 500, 5, XRL_F_PER_SOURCE);
	r.src_mask6 = 64;
	assert_int_equal(r.id, R_PFX6);
	put_prefix(f, "2001:db8:1::", 48, &r);
}

/* The reference parser. */

enum cls_kind { C_IP = 1, C_NON_IP, C_MAL };

struct cls {
	enum cls_kind kind;
	int reason; /* C_MAL: enum xrl_malformed */
	__u8 family, proto, has_port;
	__u16 dport;
	__u8 src[16];
};

/*
 * Extension headers followed before giving up: a chain of 8 is parsed, a 9th
 * header is malformed (the README: "IPv6 extension-header chains longer than
 * 8"; bpf/parsing.h: XRL_IPV6_EXT_MAX, "extension headers skipped before
 * giving up").
 */
#define REF_IPV6_EXT_MAX 8

static __u16 be16(const __u8 *b)
{
	return (__u16)(b[0] << 8 | b[1]);
}

static void mal(struct cls *c, int reason)
{
	c->kind = C_MAL;
	c->reason = reason;
}

/*
 * A TCP or UDP header lies whole inside the frame and the L3 packet, which
 * ends at end; in a first fragment (first_frag), so does an ICMP type, and a
 * cut there is a tiny fragment (RFC 1858).
 */
static void ref_l4(const __u8 *b, size_t pos, size_t end, struct cls *c, int first_frag)
{
	size_t hl = c->proto == IPPROTO_TCP ? 20 : 8;

	c->kind = C_IP;
	if (first_frag && (c->proto == IPPROTO_ICMP || c->proto == IPPROTO_ICMPV6) && pos + 1 > end) {
		mal(c, XRL_MAL_FRAG_TINY);
		return;
	}
	if (c->proto != IPPROTO_TCP && c->proto != IPPROTO_UDP)
		return;
	if (pos + hl > end) {
		mal(c, first_frag ? XRL_MAL_FRAG_TINY : XRL_MAL_L4);
		return;
	}
	c->dport = be16(b + pos + 2);
	c->has_port = 1;
}

static void ref_ipv4(const __u8 *b, size_t len, size_t off, struct cls *c)
{
	size_t hlen, tot;

	if (off + 20 > len || b[off] >> 4 != 4) {
		mal(c, XRL_MAL_IPV4);
		return;
	}
	hlen = (b[off] & 0xf) * 4;
	if (hlen < 20 || off + hlen > len) {
		mal(c, XRL_MAL_IPV4_IHL);
		return;
	}
	tot = be16(b + off + 2);
	if (tot < hlen || off + tot > len) {
		mal(c, XRL_MAL_IPV4_LEN);
		return;
	}
	c->kind = C_IP;
	c->family = XRL_FAMILY_V4;
	c->proto = b[off + 9];
	memcpy(c->src, b + off + 12, 4);
	/* A later fragment carries no transport header; TCP at offset 8 would rewrite one (RFC 1858). */
	if (be16(b + off + 6) & 0x1fff) {
		if ((be16(b + off + 6) & 0x1fff) == 1 && c->proto == IPPROTO_TCP)
			mal(c, XRL_MAL_FRAG_TINY);
		return;
	}
	ref_l4(b, off + hlen, off + tot, c, be16(b + off + 6) & 0x2000);
}

/* Every extension header lies whole inside the payload that payload_len announces. */
static void ref_ipv6(const __u8 *b, size_t len, size_t off, struct cls *c)
{
	size_t pos, end, hl;
	int n, first_frag = 0;
	__u8 next;

	if (off + 40 > len || b[off] >> 4 != 6) {
		mal(c, XRL_MAL_IPV6);
		return;
	}
	end = off + 40 + be16(b + off + 4);
	if (end > len) {
		mal(c, XRL_MAL_IPV6);
		return;
	}
	c->family = XRL_FAMILY_V6;
	memcpy(c->src, b + off + 8, 16);
	next = b[off + 6];
	pos = off + 40;
	for (n = 0;; n++) {
		if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
		    next != IPPROTO_AH && next != IPPROTO_FRAGMENT) {
			c->proto = next;
			ref_l4(b, pos, end, c, first_frag);
			return;
		}
		/* A 9th extension header: a chain too long to follow. */
		if (n == REF_IPV6_EXT_MAX) {
			mal(c, XRL_MAL_IPV6_CHAIN);
			return;
		}
		/* One that does not lie whole inside the payload: in a first fragment, a tiny one (RFC 7112). */
		if (pos + 2 > end) {
			mal(c, first_frag && next != IPPROTO_FRAGMENT ? XRL_MAL_FRAG_TINY : XRL_MAL_IPV6_EXT);
			return;
		}
		if (next == IPPROTO_FRAGMENT)
			hl = 8;
		else if (next == IPPROTO_AH)
			hl = (b[pos + 1] + 2) * 4;
		else
			hl = (b[pos + 1] + 1) * 8;
		if (pos + hl > end) {
			mal(c, first_frag && next != IPPROTO_FRAGMENT ? XRL_MAL_FRAG_TINY : XRL_MAL_IPV6_EXT);
			return;
		}
		if (next == IPPROTO_FRAGMENT && be16(b + pos + 2) & 0xfff8) {
			/* A later fragment: no transport header; TCP at offset 8 would rewrite one. */
			if (be16(b + pos + 2) >> 3 == 1 && b[pos] == IPPROTO_TCP) {
				mal(c, XRL_MAL_FRAG_TINY);
				return;
			}
			c->kind = C_IP;
			c->proto = b[pos];
			return;
		}
		if (next == IPPROTO_FRAGMENT)
			first_frag = be16(b + pos + 2) & 1;
		next = b[pos];
		pos += hl;
	}
}

static void ref_parse(const __u8 *b, size_t len, struct cls *c)
{
	size_t off = ETH_HLEN;
	__u16 proto;
	int tags;

	memset(c, 0, sizeof(*c));
	if (len < ETH_HLEN) {
		mal(c, XRL_MAL_ETH);
		return;
	}
	proto = be16(b + 12);
	/* Two tags at most, 802.1Q or 802.1ad in any order. */
	for (tags = 0; proto == ETH_P_8021Q || proto == ETH_P_8021AD; tags++) {
		if (tags == 2 || off + 4 > len) {
			mal(c, XRL_MAL_VLAN);
			return;
		}
		proto = be16(b + off + 2);
		off += 4;
	}
	if (proto == ETH_P_IP)
		ref_ipv4(b, len, off, c);
	else if (proto == ETH_P_IPV6)
		ref_ipv6(b, len, off, c);
	else
		c->kind = C_NON_IP;
}

/* The rules an IP frame of this class matches: a port rule, a prefix rule, or 0. */
static int port_rule_of(const struct cls *c)
{
	if (c->kind != C_IP || !c->has_port)
		return 0;
	if (c->proto == IPPROTO_UDP && c->dport == 53)
		return R_UDP53;
	if (c->proto == IPPROTO_TCP && c->dport == 80)
		return R_TCP80;
	return 0;
}

static int prefix_rule_of(const struct cls *c)
{
	static const __u8 p4[] = { 192, 0, 2 }, p6[] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01 };

	if (c->kind == C_IP && c->family == XRL_FAMILY_V4 && !memcmp(c->src, p4, sizeof(p4)))
		return R_PFX4;
	if (c->kind == C_IP && c->family == XRL_FAMILY_V6 && !memcmp(c->src, p6, sizeof(p6)))
		return R_PFX6;
	return 0;
}

/* Random numbers: splitmix64, one stream per test, all from one seed. */

static unsigned long long seed;

struct rng {
	__u64 s;
};

static __u64 rnd(struct rng *r)
{
	__u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n - 1; n > 0. */
static __u32 below(struct rng *r, __u32 n)
{
	return (__u32)(rnd(r) % n);
}

static struct rng rng_for(int stream)
{
	struct rng r = { seed ^ (0x632be59bd9b4e019ULL * (__u64)(stream + 1)) };

	rnd(&r);
	return r;
}

/* Frames, and the fuzzer's state. */

#define NO_INTENT (-1)

/* b is aligned as struct pkt's buf (see pktbuild.h), so headers in it are too. */
struct frame {
	__u8 head[2];
	__u8 b[PKT_MAX];
	size_t len;
	int intent; /* the malformed reason it was built with, or NO_INTENT */
	const char *what;
};
_Static_assert(offsetof(struct frame, b) % 4 == 2, "IP headers after Ethernet must be aligned");

struct snap {
	struct xrl_counters c;
	struct totals r[R_N];
};

struct fuzz {
	struct fx *f;
	struct rng rng;
	__u64 now;
	int drop;	  /* the fixture drops malformed frames */
	struct snap last; /* the counters after the last frame */
	__u64 frames, bad;
	/* What the frames were: IP matching a rule, IP matching none, non-IP, malformed by reason. */
	__u64 ip_rule, ip_no_rule, non_ip, mal[XRL_MAL_MAX], dropped;
	char reported[16][160]; /* kinds of mismatch already printed */
	int nreported;
};

static struct fx fx_pass, fx_drop;
/* The test clock of each fixture, carried from test to test like its maps. */
static __u64 now_pass = T0, now_drop = T0;
static __u64 total_frames;
static double total_secs;

static void snap(struct fx *f, struct snap *s)
{
	int i;

	s->c = counters(f);
	for (i = 1; i < R_N; i++)
		s->r[i] = rule_totals(f, i);
}

static void hex(const __u8 *b, size_t len, char *out, size_t max)
{
	size_t i;

	for (i = 0; i < len && 2 * i + 2 < max; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * i] = 0;
}

static void cls_str(const struct cls *c, int drop, char *out, size_t max)
{
	int pr = port_rule_of(c), xr = prefix_rule_of(c);

	switch (c->kind) {
	case C_NON_IP:
		snprintf(out, max, "non-IP, PASS");
		break;
	case C_MAL:
		snprintf(out, max, "malformed.%s, %s", xrl_malformed_name(c->reason), drop ? "DROP" : "PASS");
		break;
	default:
		if (!pr && !xr)
			snprintf(out, max, "IPv%d proto %u%s, no rule, PASS", c->family, c->proto,
				 c->has_port ? "" : " (no port)");
		else
			snprintf(out, max, "IPv%d proto %u port %u, rules %d and %d, PASS or DROP", c->family, c->proto,
				 c->has_port ? c->dport : 0, pr, xr);
		break;
	}
}

/* What moved between two snapshots, as text. */
static void moved_str(const struct snap *a, const struct snap *b, int v, char *out, size_t max)
{
	static const char *const names[] = { "seen", "passed", "dropped", "non_ip", "no_rule", "allowed", "monitored" };
	const __u64 *x = (const __u64 *)&a->c, *y = (const __u64 *)&b->c;
	size_t n = 0, i;

	n += snprintf(out + n, max - n, "verdict %s", v == XDP_PASS ? "PASS" : v == XDP_DROP ? "DROP" : "?");
	if (v != XDP_PASS && v != XDP_DROP)
		n += snprintf(out + n, max - n, " (%d)", v);
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < max; i++)
		if (x[i] != y[i])
			n += snprintf(out + n, max - n, ", %s %+lld", names[i], (long long)(y[i] - x[i]));
	for (i = 0; i < XRL_MAL_MAX && n < max; i++)
		if (a->c.malformed[i] != b->c.malformed[i])
			n += snprintf(out + n, max - n, ", malformed.%s %+lld", xrl_malformed_name(i),
				      (long long)(b->c.malformed[i] - a->c.malformed[i]));
	for (i = 1; i < R_N && n < max; i++) {
		if (a->r[i].pass != b->r[i].pass)
			n += snprintf(out + n, max - n, ", rule %zu pass %+lld", i,
				      (long long)(b->r[i].pass - a->r[i].pass));
		if (a->r[i].block != b->r[i].block)
			n += snprintf(out + n, max - n, ", rule %zu block %+lld", i,
				      (long long)(b->r[i].block - a->r[i].block));
	}
}

/* Whether the counters moved as the class says they must, for verdict v. */
static int moved_right(const struct cls *c, int drop, int v, const struct snap *a, const struct snap *b)
{
	int pr = port_rule_of(c), xr = prefix_rule_of(c), blocked = 0, i;

#define D(x) ((long long)(b->c.x - a->c.x))
	if (v != XDP_PASS && v != XDP_DROP)
		return 0;
	if (D(seen) != 1 || D(passed) != (v == XDP_PASS) || D(dropped) != (v == XDP_DROP))
		return 0;
	if (D(allowed) || D(monitored))
		return 0;
	if (D(non_ip) != (c->kind == C_NON_IP))
		return 0;
	if (D(no_rule) != (c->kind == C_IP && !pr && !xr))
		return 0;
	for (i = 0; i < XRL_MAL_MAX; i++)
		if (D(malformed[i]) != (c->kind == C_MAL && c->reason == i))
			return 0;
#undef D
	for (i = 1; i < R_N; i++) {
		long long dp = (long long)(b->r[i].pass - a->r[i].pass);
		long long db = (long long)(b->r[i].block - a->r[i].block);

		if (i != pr && i != xr) {
			if (dp || db)
				return 0;
		} else if (v == XDP_PASS) {
			if (dp != 1 || db)
				return 0;
		} else {
			/* Dropped: a matched rule that did not block it counts nothing. */
			if (dp || db < 0 || db > 1)
				return 0;
			blocked += (int)db;
		}
	}
	switch (c->kind) {
	case C_NON_IP:
		return v == XDP_PASS;
	case C_MAL:
		return v == (drop ? XDP_DROP : XDP_PASS);
	default:
		if (!pr && !xr)
			return v == XDP_PASS;
		return v == XDP_PASS || blocked >= 1;
	}
}

/* Counts a mismatch, and prints the first of its kind (what it is, what was wanted, what moved). */
static void mismatch(struct fuzz *z, const struct frame *fr, const char *kind, const char *want, const char *got)
{
	char key[160], h[2 * PKT_MAX + 1];
	int i;

	z->bad++;
	snprintf(key, sizeof(key), "%s: %s / %s", kind, want, got);
	for (i = 0; i < z->nreported; i++)
		if (!strcmp(z->reported[i], key))
			return;
	if (z->nreported == (int)(sizeof(z->reported) / sizeof(z->reported[0])))
		return;
	snprintf(z->reported[z->nreported++], sizeof(key), "%s", key);
	hex(fr->b, fr->len, h, sizeof(h));
	print_message("MISMATCH (%s) on %s, %zu bytes, malformed %d, seed %llu:\n"
		      "  want: %s\n  got:  %s\n  frame: %s\n",
		      kind, fr->what, fr->len, z->drop, seed, want, got, h);
}

static void fuzz_init(struct fuzz *z, struct fx *f, int stream)
{
	memset(z, 0, sizeof(*z));
	z->f = f;
	z->drop = f == &fx_drop;
	z->now = f == &fx_drop ? now_drop : now_pass;
	z->rng = rng_for(stream);
	snap(f, &z->last);
}

/* Runs one frame and judges what it did. */
static void fuzz_one(struct fuzz *z, const struct frame *fr)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = fr->b, .data_size_in = fr->len, .repeat = 1);
	char want[160], got[400];
	struct snap s;
	struct cls c;
	int err;

	ref_parse(fr->b, fr->len, &c);
	cls_str(&c, z->drop, want, sizeof(want));
	if (fr->intent != NO_INTENT && !(c.kind == C_MAL && c.reason == fr->intent)) {
		char built[80];

		snprintf(built, sizeof(built), "built as malformed.%s", xrl_malformed_name(fr->intent));
		mismatch(z, fr, "the reference parser disagrees with the builder", built, want);
	}

	/* The clock: mostly a few ms on, sometimes seconds on, rarely back. */
	switch (below(&z->rng, 1024)) {
	case 0:
		z->now -= below(&z->rng, 1000) * MS;
		break;
	case 1:
	case 2:
		z->now += below(&z->rng, 3000) * MS;
		break;
	default:
		z->now += below(&z->rng, 3 * MS);
		break;
	}
	set_now(z->f, z->now);
	if (ncpus_allowed > 1 && !below(&z->rng, 64))
		pin((int)below(&z->rng, ncpus_allowed));

	err = bpf_prog_test_run_opts(z->f->prog, &o);
	z->frames++;
	if (err) {
		snprintf(got, sizeof(got), "BPF_PROG_TEST_RUN: %s", strerror(-err));
		mismatch(z, fr, "the kernel refused the frame", want, got);
		return;
	}
	if (c.kind == C_MAL)
		z->mal[c.reason]++;
	else if (c.kind == C_NON_IP)
		z->non_ip++;
	else if (port_rule_of(&c) || prefix_rule_of(&c))
		z->ip_rule++;
	else
		z->ip_no_rule++;
	z->dropped += o.retval == XDP_DROP;
	snap(z->f, &s);
	if (!moved_right(&c, z->drop, (int)o.retval, &z->last, &s)) {
		moved_str(&z->last, &s, (int)o.retval, got, sizeof(got));
		mismatch(z, fr, "the program disagrees with the reference parser", want, got);
	}
	z->last = s;
}

/* Past every bucket the run filled, at a second boundary (the cap on new states starts over), on one CPU. */
static void fresh_window(struct fuzz *z)
{
	z->now = (z->now / SEC_NS + 5) * SEC_NS;
	set_now(z->f, z->now);
	pin(0);
}

/*
 * After a run: in a fresh window, a legitimate key of each rule passes
 * exactly its threshold, then blocks; and seen = passed + dropped overall.
 */
static void limit_holds(struct fuzz *z)
{
	struct xrl_counters c;
	struct pkt p[R_N];
	__u64 i;
	int r;

	udp4(&p[R_UDP53], SRC4, 53);
	tcp4(&p[R_TCP80], SRC4, 80);
	udp4(&p[R_PFX4], PFX4_SRC, 9);
	udp6(&p[R_PFX6], PFX6_SRC, 9);
	fresh_window(z);
	for (r = 1; r < R_N; r++) {
		for (i = 0; i < thresholds[r]; i++)
			if (run(z->f, &p[r]) != XDP_PASS)
				fail_msg("after %llu fuzzed frames (seed %llu): rule %d's legitimate "
					 "key: packet %llu of its threshold %llu was dropped",
					 (unsigned long long)z->frames, seed, r, (unsigned long long)i + 1,
					 (unsigned long long)thresholds[r]);
		if (run(z->f, &p[r]) != XDP_DROP)
			fail_msg("after %llu fuzzed frames (seed %llu): rule %d's legitimate "
				 "key: packet %llu passed over its threshold",
				 (unsigned long long)z->frames, seed, r, (unsigned long long)thresholds[r] + 1);
	}
	c = counters(z->f);
	assert_int_equal(c.seen, c.passed + c.dropped);
	snap(z->f, &z->last);
}

/* Ends a test: carries the clock over, adds up, fails if anything mismatched. */
static void fuzz_done(struct fuzz *z, const char *what, double secs)
{
	if (z->f == &fx_drop)
		now_drop = z->now;
	else
		now_pass = z->now;
	total_frames += z->frames;
	total_secs += secs;
	char mal[160];
	size_t n = 0;
	int i;

	for (i = 0; i < XRL_MAL_MAX; i++)
		if (z->mal[i])
			n += snprintf(mal + n, sizeof(mal) - n, " %s %llu", xrl_malformed_name(i),
				      (unsigned long long)z->mal[i]);
	mal[n] = 0;
	print_message("fuzz: %s: %llu frames, %.0f/s, %llu mismatched; %llu dropped; IP with a rule %llu, "
		      "without %llu, non-IP %llu, malformed%s; states %llu, judged by the sketch %llu\n",
		      what, (unsigned long long)z->frames, secs > 0 ? z->frames / secs : 0.0,
		      (unsigned long long)z->bad, (unsigned long long)z->dropped, (unsigned long long)z->ip_rule,
		      (unsigned long long)z->ip_no_rule, (unsigned long long)z->non_ip, n ? mal : " 0",
		      (unsigned long long)z->last.c.keys_new, (unsigned long long)z->last.c.sketch_judged);
	if (z->bad)
		fail_msg("%llu of %llu frames mismatched (seed %llu; the first of each kind is "
			 "printed above)",
			 (unsigned long long)z->bad, (unsigned long long)z->frames, seed);
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The corpus: every header the parser knows, valid, with the class it must get. */

struct corpus_entry {
	const char *name;
	void (*build)(struct pkt *p);
	enum cls_kind kind;
	int port_rule, prefix_rule;
};

static void l4_and_data(struct pkt *p, int proto, __u16 dport, size_t data)
{
	if (proto == IPPROTO_UDP)
		pkt_push_udp(p, 40000, dport);
	else if (proto == IPPROTO_TCP)
		pkt_push_tcp(p, 40000, dport);
	else if (proto == IPPROTO_ICMP)
		pkt_push_icmp(p);
	else if (proto == IPPROTO_ICMPV6)
		pkt_push_icmp6(p);
	if (data)
		pkt_push_data(p, data);
	pkt_finish(p);
}

static void v4(struct pkt *p, const char *src, size_t optlen, __u16 frag, int proto, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", optlen)->frag_off = htons(frag);
	l4_and_data(p, proto, dport, 16);
}

static void v6(struct pkt *p, const char *src)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv6(p, src, "2001:db8:ffff::1");
}

#define CORPUS(name, call)              \
	static void name(struct pkt *p) \
	{                               \
		call;                   \
	}

CORPUS(c_udp4, v4(p, SRC4, 0, 0, IPPROTO_UDP, 53))
CORPUS(c_tcp4, v4(p, SRC4, 0, 0, IPPROTO_TCP, 80))
CORPUS(c_udp4_pfx, v4(p, PFX4_SRC, 0, 0, IPPROTO_UDP, 9999))
CORPUS(c_icmp4_pfx, v4(p, PFX4_SRC, 0, 0, IPPROTO_ICMP, 0))
CORPUS(c_udp4_opts, v4(p, SRC4, 20, 0, IPPROTO_UDP, 53))
CORPUS(c_tcp4_maxopts, v4(p, PFX4_SRC, 40, 0, IPPROTO_TCP, 80))
CORPUS(c_frag4_first, v4(p, SRC4, 0, 0x2000, IPPROTO_UDP, 53))
CORPUS(c_frag4_later, v4(p, PFX4_SRC, 0, 185, IPPROTO_UDP, 53))
CORPUS(c_gre4, v4(p, SRC4, 0, 0, 47, 0))

static void c_padded(struct pkt *p)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, SRC4, "203.0.113.1", 0);
	pkt_push_udp(p, 40000, 53);
	pkt_finish(p);
	pkt_push_data(p, 60 - p->len); /* Ethernet padding, outside tot_len */
}

static void c_big(struct pkt *p)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, PFX4_SRC, "203.0.113.1", 0);
	pkt_push_udp(p, 40000, 53);
	pkt_push_data(p, 1000);
	pkt_finish(p);
}

static void tags(struct pkt *p, __u16 t1, __u16 t2, int l3)
{
	pkt_init(p);
	pkt_push_eth(p);
	if (t1)
		pkt_push_vlan(p, t1, 100);
	if (t2)
		pkt_push_vlan(p, t2, 200);
	if (l3 == 4) {
		pkt_push_ipv4(p, SRC4, "203.0.113.1", 0);
		l4_and_data(p, IPPROTO_TCP, 80, 0);
	} else if (l3 == 6) {
		pkt_push_ipv6(p, SRC6, "2001:db8:ffff::1");
		l4_and_data(p, IPPROTO_UDP, 53, 8);
	} else {
		pkt_push_data(p, 28);
		pkt_finish(p);
		*(__be16 *)(p->buf + p->l[p->n - 2].off + (p->n == 2 ? 12 : 2)) = htons(ETH_P_ARP);
	}
}

CORPUS(c_vlan4, tags(p, ETH_P_8021Q, 0, 4))
CORPUS(c_qinq6, tags(p, ETH_P_8021AD, ETH_P_8021Q, 6))
CORPUS(c_qq4, tags(p, ETH_P_8021Q, ETH_P_8021Q, 4))
CORPUS(c_vlan_arp, tags(p, ETH_P_8021Q, 0, 0))
CORPUS(c_arp, tags(p, 0, 0, 0))

static void c_lldp(struct pkt *p)
{
	pkt_init(p);
	pkt_push_eth(p)->h_proto = htons(0x88cc);
	pkt_push_data(p, 40);
	pkt_finish(p);
}

CORPUS(c_udp6, (v6(p, SRC6), l4_and_data(p, IPPROTO_UDP, 53, 16)))
CORPUS(c_tcp6_pfx, (v6(p, PFX6_SRC), l4_and_data(p, IPPROTO_TCP, 80, 0)))
CORPUS(c_icmp6_pfx, (v6(p, PFX6_SRC), l4_and_data(p, IPPROTO_ICMPV6, 0, 8)))

static void c_exts6(struct pkt *p)
{
	v6(p, SRC6);
	pkt_push_ipv6_ext(p, IPPROTO_HOPOPTS, 8);
	pkt_push_ipv6_ext(p, IPPROTO_ROUTING, 24);
	pkt_push_ipv6_ext(p, IPPROTO_DSTOPTS, 16);
	l4_and_data(p, IPPROTO_UDP, 53, 16);
}

static void c_ah6(struct pkt *p)
{
	v6(p, PFX6_SRC);
	pkt_push_ah(p, 24);
	l4_and_data(p, IPPROTO_UDP, 53, 16);
}

static void c_frag6_first(struct pkt *p)
{
	v6(p, SRC6);
	pkt_push_ipv6_ext(p, IPPROTO_HOPOPTS, 8);
	pkt_push_frag6(p, 0, 1);
	l4_and_data(p, IPPROTO_UDP, 53, 16);
}

static void c_frag6_later(struct pkt *p)
{
	v6(p, PFX6_SRC);
	pkt_push_ipv6_ext(p, IPPROTO_HOPOPTS, 8);
	pkt_push_frag6(p, 1448, 0);
	l4_and_data(p, IPPROTO_UDP, 53, 16);
}

static void c_all6(struct pkt *p)
{
	v6(p, SRC6);
	pkt_push_ipv6_ext(p, IPPROTO_HOPOPTS, 8);
	pkt_push_ah(p, 16);
	pkt_push_ipv6_ext(p, IPPROTO_DSTOPTS, 8);
	pkt_push_frag6(p, 0, 1);
	l4_and_data(p, IPPROTO_TCP, 80, 4);
}

static void c_seven6(struct pkt *p)
{
	int i;

	v6(p, SRC6);
	for (i = 0; i < 7; i++)
		pkt_push_ipv6_ext(p, IPPROTO_DSTOPTS, 8);
	l4_and_data(p, IPPROTO_UDP, 53, 0);
}

static void c_nonext6(struct pkt *p)
{
	v6(p, SRC6);
	pkt_push_data(p, 8);
	pkt_finish(p);
	((struct ipv6hdr *)(p->buf + ETH_HLEN))->nexthdr = 59;
}

static const struct corpus_entry corpus[] = {
	{ "ipv4 udp 53", c_udp4, C_IP, R_UDP53, 0 },
	{ "ipv4 tcp 80", c_tcp4, C_IP, R_TCP80, 0 },
	{ "ipv4 udp from the prefix", c_udp4_pfx, C_IP, 0, R_PFX4 },
	{ "ipv4 icmp from the prefix", c_icmp4_pfx, C_IP, 0, R_PFX4 },
	{ "ipv4 options udp 53", c_udp4_opts, C_IP, R_UDP53, 0 },
	{ "ipv4 40 bytes of options tcp 80 from the prefix", c_tcp4_maxopts, C_IP, R_TCP80, R_PFX4 },
	{ "ipv4 first fragment udp 53", c_frag4_first, C_IP, R_UDP53, 0 },
	{ "ipv4 later fragment from the prefix", c_frag4_later, C_IP, 0, R_PFX4 },
	{ "ipv4 gre", c_gre4, C_IP, 0, 0 },
	{ "ipv4 udp 53 with ethernet padding", c_padded, C_IP, R_UDP53, 0 },
	{ "ipv4 udp 53 of 1000 bytes from the prefix", c_big, C_IP, R_UDP53, R_PFX4 },
	{ "802.1q ipv4 tcp 80", c_vlan4, C_IP, R_TCP80, 0 },
	{ "qinq ipv6 udp 53", c_qinq6, C_IP, R_UDP53, 0 },
	{ "802.1q 802.1q ipv4 tcp 80", c_qq4, C_IP, R_TCP80, 0 },
	{ "802.1q arp", c_vlan_arp, C_NON_IP, 0, 0 },
	{ "arp", c_arp, C_NON_IP, 0, 0 },
	{ "lldp", c_lldp, C_NON_IP, 0, 0 },
	{ "ipv6 udp 53", c_udp6, C_IP, R_UDP53, 0 },
	{ "ipv6 tcp 80 from the prefix", c_tcp6_pfx, C_IP, R_TCP80, R_PFX6 },
	{ "ipv6 icmp from the prefix", c_icmp6_pfx, C_IP, 0, R_PFX6 },
	{ "ipv6 hop-by-hop routing dest-opts udp 53", c_exts6, C_IP, R_UDP53, 0 },
	{ "ipv6 ah udp 53 from the prefix", c_ah6, C_IP, R_UDP53, R_PFX6 },
	{ "ipv6 hop-by-hop first fragment udp 53", c_frag6_first, C_IP, R_UDP53, 0 },
	{ "ipv6 hop-by-hop later fragment from the prefix", c_frag6_later, C_IP, 0, R_PFX6 },
	{ "ipv6 hop-by-hop ah dest-opts first fragment tcp 80", c_all6, C_IP, R_TCP80, 0 },
	{ "ipv6 seven dest-opts udp 53", c_seven6, C_IP, R_UDP53, 0 },
	{ "ipv6 no next header", c_nonext6, C_IP, 0, 0 },
};

#define NCORPUS (sizeof(corpus) / sizeof(corpus[0]))

static struct pkt corpus_pkt[NCORPUS];

static void build_corpus(void)
{
	size_t i;

	for (i = 0; i < NCORPUS; i++)
		corpus[i].build(&corpus_pkt[i]);
}

static void frame_of(struct frame *fr, const struct pkt *p, const char *what)
{
	memcpy(fr->b, p->buf, p->len);
	fr->len = p->len;
	fr->intent = NO_INTENT;
	fr->what = what;
}

/*
 * The reason a corpus frame cut to len bytes must get, from where the cut
 * falls among the layers it was built with; NO_INTENT when it stays whole
 * enough to parse (the cut is in padding, or in a non-IP frame).
 */
static int cut_intent(const struct pkt *p, size_t len)
{
	int i, l3 = -1;

	for (i = 0; i < p->n; i++) {
		size_t off = p->l[i].off, end = i + 1 < p->n ? p->l[i + 1].off : p->len;

		if (p->l[i].type == PKT_IPV4 || p->l[i].type == PKT_IPV6)
			l3 = i;
		if (len >= end)
			continue;
		switch (p->l[i].type) {
		case PKT_ETH:
			return XRL_MAL_ETH;
		case PKT_VLAN:
			return XRL_MAL_VLAN;
		case PKT_IPV4:
			if (len < off + 20)
				return XRL_MAL_IPV4;
			return XRL_MAL_IPV4_IHL;
		case PKT_IPV6:
			return XRL_MAL_IPV6;
		default:
			if (l3 < 0)
				return NO_INTENT;
			if (p->l[l3].type == PKT_IPV6)
				return XRL_MAL_IPV6; /* the payload length claims more than is left */
			/* Cut inside what tot_len covers: it claims more than is left. */
			if (len < p->l[l3].off + ntohs(((struct iphdr *)(p->buf + p->l[l3].off))->tot_len))
				return XRL_MAL_IPV4_LEN;
			return NO_INTENT;
		}
	}
	return NO_INTENT;
}

/* Frames malformed on purpose. */

static const __u8 protos[] = { 0, 43, 44, 51, 60, 59, 6, 17, 1, 58, 47, 4, 41, 0xff };
static const __u16 ethertypes[] = { ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q, ETH_P_8021AD, ETH_P_ARP,
				    0x0000,   0xffff,	  0x9100,      0x05dc,	     0x88cc };
static const __u8 bytes[] = { 0x00, 0xff, 0x05, 0x2c, 0x3c, 0x2b, 0x33, 0x3b, 0x06, 0x11,
			      0x45, 0x4f, 0x60, 0x80, 0x7f, 0x01, 0x08, 0x81, 0x86, 0xdd };

#define PICK(r, a) ((a)[below(r, sizeof(a) / sizeof((a)[0]))])

/* 3 to 6 tags before an IPv4, IPv6 or ARP frame, maybe cut short: always the VLAN reason. */
static void g_vlan_stack(struct rng *r, struct frame *fr)
{
	static const __u16 tpids[] = { ETH_P_8021Q, ETH_P_8021AD };
	int n = 3 + (int)below(r, 4), i;
	struct pkt p;

	pkt_init(&p);
	pkt_push_eth(&p);
	for (i = 0; i < n; i++)
		pkt_push_vlan(&p, PICK(r, tpids), (__u16)below(r, 4096));
	switch (below(r, 3)) {
	case 0:
		pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
		l4_and_data(&p, IPPROTO_UDP, 53, 8);
		break;
	case 1:
		pkt_push_ipv6(&p, PFX6_SRC, "2001:db8:ffff::1");
		l4_and_data(&p, IPPROTO_TCP, 80, 0);
		break;
	default:
		pkt_push_data(&p, 28);
		pkt_finish(&p);
		break;
	}
	if (!below(r, 4))
		pkt_truncate(&p, ETH_HLEN + below(r, (__u32)(p.len - ETH_HLEN)));
	frame_of(fr, &p, "a stack of 3 to 6 vlan tags");
	fr->intent = XRL_MAL_VLAN;
}

/* An extension header of a random kind and size; 1 if it is a fragment header. */
static int push_ext(struct rng *r, struct pkt *p)
{
	static const __u8 kinds[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_DSTOPTS, IPPROTO_AH, IPPROTO_FRAGMENT };
	__u8 k = PICK(r, kinds);

	if (k == IPPROTO_AH)
		pkt_push_ah(p, 16 + 8 * below(r, 2));
	else if (k == IPPROTO_FRAGMENT)
		pkt_push_frag6(p, 0, 1); /* a first fragment: the parser reads on */
	else
		pkt_push_ipv6_ext(p, k, 8 + 8 * below(r, 3));
	return k == IPPROTO_FRAGMENT;
}

/* 9 to 16 extension headers before a transport: too many. */
static void g_ext_long(struct rng *r, struct frame *fr)
{
	int n = 9 + (int)below(r, 8), i;
	struct pkt p;

	v6(&p, below(r, 2) ? SRC6 : PFX6_SRC);
	for (i = 0; i < n; i++)
		push_ext(r, &p);
	l4_and_data(&p, IPPROTO_UDP, 53, 8);
	frame_of(fr, &p, "an ipv6 chain of 9 to 16 extension headers");
	fr->intent = XRL_MAL_IPV6_CHAIN;
}

/*
 * Extension headers whose last next header points back to hop-by-hop: 1 to
 * 12 of any kind with nothing after the last (the hop-by-hop it names is not
 * there), or 1 to 4 hop-by-hop and dest-opts followed by hop-by-hop headers
 * that each name hop-by-hop again, to the end of the payload (a loop the
 * parser must give up on).
 */
static void g_ext_loop(struct rng *r, struct frame *fr)
{
	int loop = below(r, 2), n = 1 + (int)below(r, loop ? 4 : 12), i, frag = 0;
	struct pkt p;

	v6(&p, SRC6);
	pkt_push_ipv6_ext(&p, IPPROTO_HOPOPTS, 8);
	for (i = 1; i < n; i++) {
		if (loop)
			pkt_push_ipv6_ext(&p, below(r, 2) ? IPPROTO_HOPOPTS : IPPROTO_DSTOPTS, 8);
		else
			frag |= push_ext(r, &p);
	}
	for (i = 0; loop && i < 4 + (int)below(r, 8); i++, n++)
		pkt_push_ipv6_ext(&p, IPPROTO_HOPOPTS, 8);
	pkt_finish(&p);
	/* The last one names hop-by-hop (pkt_finish leaves it zero: set it anyway). */
	p.buf[p.l[p.n - 1].off] = IPPROTO_HOPOPTS;
	frame_of(fr, &p,
		 loop ? "an ipv6 chain looping on hop-by-hop" : "an ipv6 chain naming a hop-by-hop that is not there");
	/*
	 * n headers, then the one named that is not there: the 9th header (at
	 * n >= 8) is a chain too long to follow, else a cut chain, which in a
	 * first fragment is a tiny one.
	 */
	fr->intent = n >= 8 ? XRL_MAL_IPV6_CHAIN : frag ? XRL_MAL_FRAG_TINY : XRL_MAL_IPV6_EXT;
}

/* A corpus frame, to take an IPv4 or IPv6 header from. */
static const struct pkt *with_layer(struct rng *r, enum pkt_layer t, int *li)
{
	for (;;) {
		const struct pkt *p = &corpus_pkt[below(r, NCORPUS)];
		int i;

		for (i = 0; i < p->n; i++) {
			if (p->l[i].type == t) {
				*li = i;
				return p;
			}
		}
	}
}

static __u16 lie16(struct rng *r, __u16 truth)
{
	switch (below(r, 10)) {
	case 0:
		return 0;
	case 1:
		return truth - 1;
	case 2:
		return truth + 1;
	case 3:
		return truth - 8 * (1 + below(r, 4));
	case 4:
		return truth + 8 * (1 + below(r, 4));
	case 5:
		return 0xffff;
	case 6:
		return (__u16)below(r, truth + 1u);
	default:
		return (__u16)below(r, 65536);
	}
}

/* IHL 0 to 15 in an IPv4 frame: below 5, or beyond the frame, is the IHL reason. */
static void g_ihl(struct rng *r, struct frame *fr)
{
	const struct pkt *p;
	size_t off;
	__u32 ihl = below(r, 16);
	int li;

	p = with_layer(r, PKT_IPV4, &li);
	off = p->l[li].off;
	frame_of(fr, p, "ipv4 with ihl 0 to 15");
	fr->b[off] = 0x40 | ihl;
	if (ihl < 5 || off + ihl * 4 > fr->len)
		fr->intent = XRL_MAL_IPV4_IHL;
}

/* tot_len that lies: below the header or beyond the frame is the length reason. */
static void g_tot_len(struct rng *r, struct frame *fr)
{
	const struct pkt *p;
	struct iphdr *ip;
	size_t off;
	__u16 tot;
	int li;

	p = with_layer(r, PKT_IPV4, &li);
	off = p->l[li].off;
	frame_of(fr, p, "ipv4 whose total length lies");
	ip = (struct iphdr *)(fr->b + off);
	tot = lie16(r, ntohs(ip->tot_len));
	ip->tot_len = htons(tot);
	if (tot < ip->ihl * 4 || off + tot > fr->len)
		fr->intent = XRL_MAL_IPV4_LEN;
}

/* payload_len that lies: beyond the frame is the IPv6 reason; short of it, the parser decides. */
static void g_payload_len(struct rng *r, struct frame *fr)
{
	const struct pkt *p;
	struct ipv6hdr *ip6;
	size_t off;
	__u16 pl;
	int li;

	p = with_layer(r, PKT_IPV6, &li);
	off = p->l[li].off;
	frame_of(fr, p, "ipv6 whose payload length lies");
	ip6 = (struct ipv6hdr *)(fr->b + off);
	pl = lie16(r, ntohs(ip6->payload_len));
	ip6->payload_len = htons(pl);
	if (off + 40 + pl > fr->len)
		fr->intent = XRL_MAL_IPV6;
}

/* An extension header's length that lies: past the payload is the extension reason. */
static void g_ext_len(struct rng *r, struct frame *fr)
{
	static const enum pkt_layer kinds[] = { PKT_IPV6_EXT, PKT_AH };
	const struct pkt *p;
	size_t off, end, hl;
	int li, l3;
	__u8 len;

	p = with_layer(r, PICK(r, kinds), &li);
	for (l3 = li; p->l[l3].type != PKT_IPV6; l3--)
		;
	off = p->l[li].off;
	frame_of(fr, p, "an ipv6 extension header whose length lies");
	len = below(r, 2) ? PICK(r, bytes) : (__u8)below(r, 256);
	fr->b[off + 1] = len;
	end = p->l[l3].off + 40 + ntohs(((struct ipv6hdr *)(p->buf + p->l[l3].off))->payload_len);
	hl = p->l[li].type == PKT_AH ? (len + 2) * 4 : (len + 1) * 8;
	if (off + hl > end) {
		int i, first = 0;

		/* Behind a first fragment's header, a cut chain is a tiny fragment (RFC 7112). */
		for (i = l3; i < li; i++)
			if (p->l[i].type == PKT_FRAG6)
				first = (ntohs(((struct pkt_frag6 *)(p->buf + p->l[i].off))->frag_off) & 0xfff9) == 1;
		fr->intent = first ? XRL_MAL_FRAG_TINY : XRL_MAL_IPV6_EXT;
	}
}

typedef void (*generator)(struct rng *r, struct frame *fr);

static const generator malformers[] = {
	g_vlan_stack, g_ext_long, g_ext_loop, g_ihl, g_tot_len, g_payload_len, g_ext_len
};

/* Mutations of the corpus. */

/* An offset into the frame, mostly among the headers. */
static size_t some_offset(struct rng *r, const struct frame *fr)
{
	size_t n = fr->len;

	if (below(r, 4) && n > 96)
		n = 96;
	return below(r, (__u32)n);
}

/* One header field of layer i set to a value that lies or names another header. */
static void lie_field(struct rng *r, const struct pkt *p, int i, struct frame *fr)
{
	size_t off = p->l[i].off;
	__u8 *h = fr->b + off;

	if (off + 8 > fr->len)
		return;
	switch (p->l[i].type) {
	case PKT_ETH:
		*(__be16 *)(h + 12) = htons(PICK(r, ethertypes));
		break;
	case PKT_VLAN:
		*(__be16 *)(h + 2) = htons(PICK(r, ethertypes));
		break;
	case PKT_IPV4:
		switch (below(r, 5)) {
		case 0:
			h[0] = (__u8)(0x40 | below(r, 16));
			break;
		case 1:
			*(__be16 *)(h + 2) = htons(lie16(r, ntohs(*(__be16 *)(h + 2))));
			break;
		case 2:
			*(__be16 *)(h + 6) = htons(below(r, 2) ? (__u16)below(r, 65536) : 0x2000);
			break;
		case 3:
			h[9] = PICK(r, protos);
			break;
		default:
			h[0] = (__u8)(below(r, 16) << 4 | (h[0] & 0xf));
			break;
		}
		break;
	case PKT_IPV6:
		switch (below(r, 3)) {
		case 0:
			*(__be16 *)(h + 4) = htons(lie16(r, ntohs(*(__be16 *)(h + 4))));
			break;
		case 1:
			h[6] = PICK(r, protos);
			break;
		default:
			h[0] = (__u8)(below(r, 16) << 4 | (h[0] & 0xf));
			break;
		}
		break;
	case PKT_IPV6_EXT:
	case PKT_AH:
		if (below(r, 2))
			h[0] = PICK(r, protos);
		else
			h[1] = below(r, 2) ? PICK(r, bytes) : (__u8)below(r, 256);
		break;
	case PKT_FRAG6:
		if (below(r, 2))
			h[0] = PICK(r, protos);
		else
			*(__be16 *)(h + 2) = htons(below(r, 2) ? (__u16)below(r, 65536) : 8);
		break;
	case PKT_TCP:
	case PKT_UDP:
		*(__be16 *)(h + 2) = htons(below(r, 2) ? 53 : 80);
		break;
	default:
		h[below(r, 8)] = PICK(r, bytes);
		break;
	}
}

static void mutate(struct rng *r, const struct pkt *p, struct frame *fr)
{
	int ops = 1 + (int)below(r, 4), k;
	size_t off, n;

	frame_of(fr, p, "a mutated corpus frame");
	for (k = 0; k < ops; k++) {
		switch (below(r, 12)) {
		case 0:
		case 1:
			fr->b[some_offset(r, fr)] ^= (__u8)(1 << below(r, 8));
			break;
		case 2:
		case 3:
			fr->b[some_offset(r, fr)] = PICK(r, bytes);
			break;
		case 4:
		case 5:
		case 6:
			lie_field(r, p, (int)below(r, (__u32)p->n), fr);
			break;
		case 7:
			off = some_offset(r, fr);
			if (off + 2 <= fr->len) { /* at any offset: not through a __be16 pointer */
				__be16 et = htons(PICK(r, ethertypes));

				memcpy(fr->b + off, &et, sizeof(et));
			}
			break;
		case 8: /* cut */
			fr->len = ETH_HLEN + below(r, (__u32)(fr->len - ETH_HLEN + 1));
			break;
		case 9: /* trailing bytes */
			n = below(r, 64);
			if (fr->len + n > PKT_MAX)
				n = PKT_MAX - fr->len;
			for (off = 0; off < n; off++)
				fr->b[fr->len + off] = (__u8)rnd(r);
			fr->len += n;
			break;
		case 10: /* bytes inserted: the headers after shift */
			n = 1 + below(r, 8);
			off = ETH_HLEN - 2 + below(r, (__u32)(fr->len - ETH_HLEN + 3));
			if (fr->len + n > PKT_MAX)
				break;
			memmove(fr->b + off + n, fr->b + off, fr->len - off);
			fr->len += n;
			while (n--)
				fr->b[off + n] = PICK(r, bytes);
			break;
		default: /* bytes removed */
			n = 1 + below(r, 8);
			off = ETH_HLEN - 2 + below(r, (__u32)(fr->len - ETH_HLEN + 3));
			if (off + n > fr->len || fr->len - n < ETH_HLEN)
				break;
			memmove(fr->b + off, fr->b + off + n, fr->len - off - n);
			fr->len -= n;
			break;
		}
	}
}

/* Random bytes, mostly short, often behind an EtherType and a version the parser follows. */
static void g_random(struct rng *r, struct frame *fr)
{
	size_t i;

	fr->len = ETH_HLEN + (below(r, 4) ? below(r, 120) : below(r, PKT_MAX - ETH_HLEN + 1));
	for (i = 0; i < fr->len; i++)
		fr->b[i] = (__u8)rnd(r);
	switch (below(r, 4)) {
	case 0:
		break;
	case 1:
		*(__be16 *)(fr->b + 12) = htons(PICK(r, ethertypes));
		break;
	case 2:
		*(__be16 *)(fr->b + 12) = htons(ETH_P_IP);
		if (fr->len > ETH_HLEN)
			fr->b[ETH_HLEN] = (__u8)(0x40 | below(r, 16));
		break;
	default:
		*(__be16 *)(fr->b + 12) = htons(ETH_P_IPV6);
		if (fr->len > ETH_HLEN)
			fr->b[ETH_HLEN] = (__u8)(0x60 | below(r, 16));
		break;
	}
	fr->intent = NO_INTENT;
	fr->what = "random bytes";
}

/* Setup. */

static __u64 iters = FUZZ_ITERS_DEFAULT;

/* Loads a fixture once, with the rules; every test then goes on from where the last left it. */
static int fuzz_setup(void **state, struct fx *f, __u32 malformed)
{
	*state = f;
	if (f->loaded)
		return 0;
	f->new_keys_cpu = FUZZ_NEW_KEYS;
	fx_load(f, malformed);
	if (f->skip[0] || f->err[0])
		return 0;
	pin(0);
	if (fx_reset(f)) {
		snprintf(f->err, sizeof(f->err), "cannot reset the maps: %s", strerror(errno));
		return 0;
	}
	install_rules(f);
	return 0;
}

static int setup_pass(void **state)
{
	return fuzz_setup(state, &fx_pass, 0);
}

static int setup_drop(void **state)
{
	return fuzz_setup(state, &fx_drop, 1);
}

static int group_teardown(void **state)
{
	(void)state;
	if (total_secs > 0)
		print_message("fuzz: %llu frames in %.1f s, %.0f frames/s; seed %llu\n",
			      (unsigned long long)total_frames, total_secs, total_frames / total_secs, seed);
	xdp_ratelimit_bpf__destroy(fx_pass.skel);
	xdp_ratelimit_bpf__destroy(fx_drop.skel);
	return 0;
}

/* The tests. */

/* BPF_PROG_TEST_RUN refuses frames under an Ethernet header: tests/e2e/short_frames.sh sends them. */
static void test_short_frames_refused(void **state)
{
	struct fx *f = fx_get(state);
	__u8 buf[ETH_HLEN] = {};
	struct xrl_counters before = counters(f), after;
	__u32 len;

	for (len = 0; len < ETH_HLEN; len++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = len, .repeat = 1);

		if (bpf_prog_test_run_opts(f->prog, &o) != -EINVAL)
			fail_msg("a frame of %u bytes: BPF_PROG_TEST_RUN did not refuse it with EINVAL", len);
	}
	after = counters(f);
	assert_int_equal(after.seen, before.seen);
}

/* Every corpus frame as built: the class it was built for, and what the program does with it. */
static void test_corpus(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	struct cls c;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 0);
	for (i = 0; i < NCORPUS; i++) {
		frame_of(&fr, &corpus_pkt[i], corpus[i].name);
		ref_parse(fr.b, fr.len, &c);
		if (c.kind != corpus[i].kind || port_rule_of(&c) != corpus[i].port_rule ||
		    prefix_rule_of(&c) != corpus[i].prefix_rule)
			fail_msg("corpus %s: the reference parser classes it as kind %d, rules %d and %d",
				 corpus[i].name, c.kind, port_rule_of(&c), prefix_rule_of(&c));
		fuzz_one(&z, &fr);
	}
	fuzz_done(&z, "corpus", secs_since(&t0));
}

/* Every corpus frame cut at every byte from the Ethernet header on. */
static void test_truncations(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	size_t i, len;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 1);
	for (i = 0; i < NCORPUS; i++) {
		for (len = ETH_HLEN; len < corpus_pkt[i].len; len++) {
			frame_of(&fr, &corpus_pkt[i], corpus[i].name);
			fr.len = len;
			fr.intent = cut_intent(&corpus_pkt[i], len);
			fuzz_one(&z, &fr);
		}
	}
	limit_holds(&z);
	fuzz_done(&z, "truncations", secs_since(&t0));
}

/*
 * Malformed on purpose: every IHL, 3 to 6 tags and chains of 9 to 16
 * extension headers one by one, then the generators at random.
 */
static void test_malformed_on_purpose(void **state)
{
	static const __u16 tp[] = { ETH_P_8021Q, ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021Q };
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	struct pkt p;
	__u64 i;
	int n, k;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 2);
	for (n = 0; n < 16; n++) {
		v4(&p, SRC4, 0, 0, IPPROTO_UDP, 53);
		frame_of(&fr, &p, "ipv4 udp 53, ihl 0 to 15");
		fr.b[ETH_HLEN] = (__u8)(0x40 | n);
		/* 44 bytes of IPv4: a header of up to 36 leaves room for UDP. */
		if (n < 5 || n * 4 > 44)
			fr.intent = XRL_MAL_IPV4_IHL;
		else if (n * 4 > 36)
			fr.intent = XRL_MAL_L4;
		fuzz_one(&z, &fr);
	}
	for (n = 3; n <= 6; n++) {
		pkt_init(&p);
		pkt_push_eth(&p);
		for (k = 0; k < n; k++)
			pkt_push_vlan(&p, tp[k], (__u16)k);
		pkt_push_ipv4(&p, SRC4, "203.0.113.1", 0);
		l4_and_data(&p, IPPROTO_UDP, 53, 8);
		frame_of(&fr, &p, "3 to 6 vlan tags");
		fr.intent = XRL_MAL_VLAN;
		fuzz_one(&z, &fr);
	}
	for (n = 9; n <= 16; n++) {
		v6(&p, SRC6);
		for (k = 0; k < n; k++)
			pkt_push_ipv6_ext(&p, k % 2 ? IPPROTO_DSTOPTS : IPPROTO_ROUTING, 8);
		l4_and_data(&p, IPPROTO_UDP, 53, 0);
		frame_of(&fr, &p, "9 to 16 extension headers");
		fr.intent = XRL_MAL_IPV6_CHAIN;
		fuzz_one(&z, &fr);
	}
	for (i = 0; i < iters / 5; i++) {
		malformers[below(&z.rng, sizeof(malformers) / sizeof(malformers[0]))](&z.rng, &fr);
		fuzz_one(&z, &fr);
	}
	limit_holds(&z);
	fuzz_done(&z, "malformed on purpose", secs_since(&t0));
}

static void test_mutations(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	__u64 i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 3);
	for (i = 0; i < iters / 2; i++) {
		mutate(&z.rng, &corpus_pkt[below(&z.rng, NCORPUS)], &fr);
		fuzz_one(&z, &fr);
	}
	limit_holds(&z);
	fuzz_done(&z, "mutations", secs_since(&t0));
}

static void test_random_frames(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	__u64 i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 4);
	for (i = 0; i < iters / 10; i++) {
		g_random(&z.rng, &fr);
		fuzz_one(&z, &fr);
	}
	limit_holds(&z);
	fuzz_done(&z, "random frames", secs_since(&t0));
}

/* With malformed frames dropped: the corpus, then all of the above mixed. */
static void test_malformed(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 5);
	for (i = 0; i < NCORPUS; i++) {
		frame_of(&fr, &corpus_pkt[i], corpus[i].name);
		fuzz_one(&z, &fr);
	}
	for (i = 0; i < iters / 5; i++) {
		switch (below(&z.rng, 4)) {
		case 0:
			malformers[below(&z.rng, sizeof(malformers) / sizeof(malformers[0]))](&z.rng, &fr);
			break;
		case 1:
			g_random(&z.rng, &fr);
			break;
		default:
			mutate(&z.rng, &corpus_pkt[below(&z.rng, NCORPUS)], &fr);
			break;
		}
		fuzz_one(&z, &fr);
	}
	limit_holds(&z);
	fuzz_done(&z, "malformed", secs_since(&t0));
}

/*
 * Found by this fuzzer. A hop-by-hop header that ends the payload
 * (payload_len 8), or a payload that ends inside the next header
 * (payload_len 12), and then, in the frame's trailing bytes, a fragment
 * header naming a later fragment. Like any extension header beyond the
 * payload (test_xdp.c: "ipv6 extension header beyond the payload") it is
 * malformed.ipv6_ext: passed under malformed 0, dropped under 1. The
 * program instead judges it as a later fragment from its source, here by the
 * prefix rule, and passes it either way: in bpf/parsing.h the fragment case
 * returns for a later fragment before the cursor is compared with l3_end.
 */
static void test_fragment_header_beyond_payload(void **state)
{
	static const __u16 payload_len[] = { 8, 12 };
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	struct pkt p;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 6);
	fresh_window(&z);
	for (i = 0; i < sizeof(payload_len) / sizeof(payload_len[0]); i++) {
		v6(&p, PFX6_SRC);
		pkt_push_ipv6_ext(&p, IPPROTO_HOPOPTS, 8);
		pkt_push_frag6(&p, 1448, 0);
		l4_and_data(&p, IPPROTO_UDP, 53, 16);
		((struct ipv6hdr *)(p.buf + ETH_HLEN))->payload_len = htons(payload_len[i]);
		frame_of(&fr, &p, "a later fragment's header past the ipv6 payload");
		fr.intent = XRL_MAL_IPV6_EXT;
		fuzz_one(&z, &fr);
	}
	fuzz_done(&z, "fragment header beyond the payload", secs_since(&t0));
}

/*
 * Found by reading the README against this fuzzer's reference parser: a
 * chain of exactly 8 extension headers, then the transport. The README calls
 * chains longer than 8 malformed, and XRL_IPV6_EXT_MAX is 8 extension
 * headers "skipped before giving up"; the program skips 8 and then gives up
 * without reading the next header, counting malformed.ipv6_ext (and dropping
 * the frame under malformed 1). 7 pass and 9 are malformed, as
 * test_xdp.c's table has it.
 */
static void test_eight_extension_headers(void **state)
{
	struct fx *f = fx_get(state);
	struct timespec t0;
	struct frame fr;
	struct fuzz z;
	struct pkt p;
	struct cls c;
	int k, mixed;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fuzz_init(&z, f, 7);
	fresh_window(&z);
	for (mixed = 0; mixed < 2; mixed++) {
		v6(&p, SRC6);
		if (mixed) {
			/* Every kind: hop-by-hop, routing, AH, first fragment, dest-opts. */
			pkt_push_ipv6_ext(&p, IPPROTO_HOPOPTS, 8);
			pkt_push_ipv6_ext(&p, IPPROTO_ROUTING, 24);
			pkt_push_ah(&p, 16);
			pkt_push_frag6(&p, 0, 1);
			for (k = 4; k < 8; k++)
				pkt_push_ipv6_ext(&p, IPPROTO_DSTOPTS, 8);
			l4_and_data(&p, IPPROTO_TCP, 80, 0);
		} else {
			for (k = 0; k < 8; k++)
				pkt_push_ipv6_ext(&p, IPPROTO_DSTOPTS, 8);
			l4_and_data(&p, IPPROTO_UDP, 53, 0);
		}
		frame_of(&fr, &p,
			 mixed ? "ipv6: 8 extension headers of every kind, tcp 80" :
				 "ipv6: 8 dest-opts headers, udp 53");
		ref_parse(fr.b, fr.len, &c);
		assert_int_equal(c.kind, C_IP);
		assert_int_equal(port_rule_of(&c), mixed ? R_TCP80 : R_UDP53);
		fuzz_one(&z, &fr);
	}
	fuzz_done(&z, "8 extension headers", secs_since(&t0));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup_pass, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_short_frames_refused),
		T(test_corpus),
		T(test_fragment_header_beyond_payload),
		T(test_eight_extension_headers),
		T(test_truncations),
		T(test_malformed_on_purpose),
		T(test_mutations),
		T(test_random_frames),
		{ "test_fragment_header_beyond_payload (malformed)", test_fragment_header_beyond_payload, setup_drop,
		  fx_teardown, NULL },
		{ "test_eight_extension_headers (malformed)", test_eight_extension_headers, setup_drop, fx_teardown,
		  NULL },
		cmocka_unit_test_setup_teardown(test_malformed, setup_drop, fx_teardown),
	};
	const char *s = getenv("XRL_FUZZ_SEED"), *n = getenv("XRL_FUZZ_ITERS");
	struct timespec t;

	if (s && *s) {
		seed = strtoull(s, NULL, 0);
	} else {
		clock_gettime(CLOCK_REALTIME, &t);
		seed = (__u64)t.tv_sec * 1000000007ULL ^ (__u64)t.tv_nsec ^ (__u64)getpid() << 32;
	}
	if (n && *n)
		iters = strtoull(n, NULL, 0);
	print_message("fuzz: seed %llu, %llu random frames (replay: XRL_FUZZ_SEED=%llu"
		      " XRL_FUZZ_ITERS=%llu)\n",
		      seed, (unsigned long long)iters, seed, (unsigned long long)iters);
	build_corpus();
	fx_init();
	return cmocka_run_group_tests_name("xdp fuzz", tests, NULL, group_teardown);
}
