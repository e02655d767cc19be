// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The table of window states (include/xrl_table.h): way keys and the way's
 * geometry, the probe, the claim of a way, and its races with a CPU counting
 * into the way for its old key by the window's own reservation, made
 * deterministic as test_window_races.c makes them: a hook runs "the other
 * CPU" just before a chosen atomic operation of this one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

static void (*hook)(void);
static int calls, hook_at; /* run the hook before the hook_at-th atomic operation (1-based) */

static void hook_point(void)
{
	if (hook && ++calls == hook_at) {
		void (*h)(void) = hook;

		hook = NULL; /* the other CPU's own operations run unhooked */
		h();
	}
}

/* A macro is not expanded inside its own expansion: these call the builtins. */
#define __sync_val_compare_and_swap(p, o, n) (hook_point(), __sync_val_compare_and_swap(p, o, n))
#define __sync_fetch_and_add(p, v) (hook_point(), __sync_fetch_and_add(p, v))
#define __sync_fetch_and_and(p, v) (hook_point(), __sync_fetch_and_and(p, v))
#define __sync_lock_test_and_set(p, v) (hook_point(), __sync_lock_test_and_set(p, v))

#include "xrl_table.h"

#define N 2		  /* a 2-bucket window */
#define BLEN 500000000ULL /* of 1 s */
#define INTERVAL (N * BLEN)
#define GEN 7		     /* the rule's gen */
#define T0 (1000 * INTERVAL) /* a time well past 0 */

static struct xrl_tshape T;
/* A set of narrow ways, and room past it for a struct xrl_wstate's whole ring (which a way holds cells of). */
static __u8 S[XRL_TABLE_WAYS * 192 + sizeof(struct xrl_wstate)] __attribute__((aligned(64)));

static struct xrl_wkey key4(__u32 rule, __u8 last_octet)
{
	struct xrl_key k = { .rule_id = rule, .port = 53, .family = XRL_FAMILY_V4, .proto = 17 };
	struct xrl_wkey w;

	k.addr[0] = 10;
	k.addr[3] = last_octet;
	assert_int_equal(xrl_wkey_make(&w, &k, T.key_bytes), 0);
	return w;
}

static struct xrl_wstate *state_of(__u32 ix)
{
	return xrl_way_state(xrl_way(S, &T, ix), &T);
}

static void fresh(void)
{
	T = xrl_tshape_of(16, 3);
	memset(S, 0, sizeof(S));
}

static void test_wkey(void **state)
{
	struct xrl_key k = { .rule_id = 7 | XRL_KEY_BYTES, .port = 9, .family = XRL_FAMILY_V6, .proto = 17 }, back;
	struct xrl_wkey w;

	(void)state;
	memset(k.addr, 0xab, 8); /* an IPv6 /64 */
	assert_int_equal(xrl_wkey_make(&w, &k, 16), 0);
	assert_int_equal(w.w[0] & 0xffff, 0x8007);
	assert_int_equal(w.w[2], 0);
	xrl_wkey_key(&back, &w, 16);
	assert_memory_equal(&back, &k, sizeof(k));
	k.addr[15] = 1; /* longer than /64: a wide way's key only */
	assert_true(xrl_key_wide(&k));
	assert_int_equal(xrl_wkey_make(&w, &k, 16), -1);
	assert_int_equal(xrl_wkey_make(&w, &k, 24), 0);
	xrl_wkey_key(&back, &w, 24);
	assert_memory_equal(&back, &k, sizeof(k));
	k.addr[15] = 0;
	k.rule_id = 0x8000; /* over 15 bits */
	assert_int_equal(xrl_wkey_make(&w, &k, 16), -1);
}

/* What a packet that passes reads and writes is the way's first line; its blocks are on the second. */
static void test_way_bytes(void **state)
{
	struct xrl_tshape t = xrl_tshape_of(16, 3), w6 = xrl_tshape_of(24, 3);
	__u8 *w = S;

	(void)state;
	assert_int_equal(t.way_bytes, 128);
	assert_int_equal((__u8 *)&xrl_way_state(w, &t)->serial - w, 16);
	assert_int_equal((__u8 *)&xrl_way_state(w, &t)->ring.c[3] - w, 64); /* the third cell ends line 0 */
	assert_int_equal((__u8 *)xrl_ring_blocks(&xrl_way_state(w, &t)->ring, 3) - w, 64);
	assert_true((__u8 *)(xrl_way_tail(w, &t) + 1) - w <= 128);
	/* A wide key: the third cell on line 1; a line more than a narrow way, so that the size tells them apart. */
	assert_int_equal(w6.way_bytes, 192);
	assert_int_equal(xrl_way_keys(192, 3), 24);
	assert_int_equal(xrl_way_keys(128, 3), 16);
	assert_int_equal(xrl_way_keys(100, 3), 0);
	assert_int_equal((__u8 *)&xrl_way_state(w, &w6)->ring.c[2] - w, 64);
	/* Longer windows: a long ring's base after its blocks, all in whole lines. */
	assert_int_equal(xrl_way_bytes(16, 17), 384);
	assert_int_equal(xrl_way_bytes(16, XRL_MAX_CELLS), 1088);
	assert_int_equal(xrl_way(S, &t, 5) - S, 128); /* way indexes are taken mod 4 */
}

/* The 256 sources of a /24 spread over sets (the hash's low bits would put them in one). */
static void test_spread(void **state)
{
	static __u8 seen[1U << 16];
	struct xrl_key k = { .rule_id = 1, .family = XRL_FAMILY_V4 };
	__u32 sets = xrl_table_sets(262144), i, distinct = 0, s;

	(void)state;
	assert_int_equal(sets, 65536);
	memset(seen, 0, sizeof(seen));
	k.addr[0] = 192;
	k.addr[1] = 0;
	k.addr[2] = 2;
	for (i = 0; i < 256; i++) {
		k.addr[3] = (__u8)i;
		s = xrl_table_set(xrl_key_hash64(&k), sets);
		distinct += !seen[s];
		seen[s] = 1;
	}
	assert_true(distinct >= 250);
}

/* A claim at now, and the ring built for the rule's gen as the program builds it (the gen won, the shape written). */
static __u32 claim(struct xrl_wkey k, __u32 first, __u64 now)
{
	__u32 sr = 0;
	int ix = xrl_tset_claim(S, &T, &k, first, now, &sr);

	assert_true(ix >= 0);
	assert_int_equal(sr & 1, 0);
	state_of((__u32)ix)->gen = GEN;
	xrl_way_shape(xrl_way(S, &T, (__u32)ix), &T, GEN, BLEN, N);
	return (__u32)ix;
}

/*
 * One pass counted into way ix at now, found with claims sr, as the program
 * counts it: the window's reservation, then the serial read again. 1: kept;
 * 0: taken back, the way was taken since (the packet is judged again); -1:
 * the reservation did not pass.
 */
static int count(__u32 ix, __u32 sr, __u64 now)
{
	struct xrl_wstate *ws = state_of(ix);
	__u64 snap[XRL_MAX_CELLS];
	struct xrl_slot s;

	xrl_slot_at(&s, now, BLEN, T.cells);
	if (xrl_reserve(&ws->ring, N, T.cells, INTERVAL, &s, 1000, 1, 8, 0, snap, NULL) != XRL_PASSED)
		return -1;
	if (xrl_way_still(ws, sr))
		return 1;
	xrl_unreserve(&ws->ring, T.cells, &s, 1, 8);
	return 0;
}

/* Way ix's window at now: what a claim must never lose a pass of. */
static __u64 window(__u32 ix, __u64 now)
{
	return xrl_window_at(&state_of(ix)->ring, N, T.cells, INTERVAL, now).pass;
}

static __u32 serial_of(__u32 ix)
{
	return state_of(ix)->serial & XRL_WAY_CLAIMS;
}

static void test_claim_find_full(void **state)
{
	struct xrl_wkey k[5];
	__u32 i, sr, ix;
	__u64 now = T0, G = XRL_TABLE_GRACE_NS;

	(void)state;
	fresh();
	for (i = 0; i < 5; i++)
		k[i] = key4(1, (__u8)i);
	/* A new key takes its first way; the probe finds it there, and stops at a way never used. */
	assert_int_equal(claim(k[0], 2, now), 2);
	assert_int_equal(xrl_tset_find(S, &T, &k[0], 2, &sr), 2);
	assert_int_equal(sr, 2);
	assert_int_equal(xrl_tset_find(S, &T, &k[1], 2, &sr), -1);
	/* A window with no pass is empty: the next key takes its way. */
	assert_int_equal(claim(k[1], 2, now), 2);
	assert_int_equal(xrl_tset_find(S, &T, &k[0], 2, &sr), -1);
	assert_int_equal(count(2, 4, now), 1);
	for (i = 2; i < 4; i++) {
		ix = claim(k[i], 2, now);
		assert_int_equal(count(ix, serial_of(ix), now), 1);
	}
	ix = claim(k[0], 2, now);
	assert_int_equal(count(ix, serial_of(ix), now), 1);
	/* Every window busy: nothing is taken, the key goes to the sketch. */
	assert_int_equal(xrl_tset_claim(S, &T, &k[4], 0, now, &sr), XRL_TABLE_FULL);
	/* Out of its window but within the grace: still busy. */
	assert_int_equal(xrl_tset_claim(S, &T, &k[4], 0, now + INTERVAL, &sr), XRL_TABLE_FULL);
	/* Past the window and the grace, every way may be taken: the probe's first. */
	assert_int_equal(xrl_tset_claim(S, &T, &k[4], 0, now + INTERVAL + G + BLEN, &sr), 0);
	assert_int_equal(sr, 4);
	assert_int_equal(window(0, now + INTERVAL + G + BLEN), 0);
	assert_int_equal(xrl_tset_find(S, &T, &k[4], 0, &sr), 0);
	/* The key it took the way from is gone; the others stay. */
	for (i = 0, ix = 0; i < 4; i++)
		ix += xrl_tset_find(S, &T, &k[i], 2, &sr) >= 0;
	assert_int_equal(ix, 3);
	/* A key not there: the probe goes round the whole set of used ways. */
	k[0] = key4(1, 5);
	assert_int_equal(xrl_tset_find(S, &T, &k[0], 1, &sr), -1);
	/* The set's lock is free again. */
	assert_int_equal(state_of(0)->serial & XRL_WAY_LOCK, 0);
}

/*
 * A way's emptiness is judged in the buckets of its own window (its tail's
 * shape), not the claimer's, and not at all while its shape is not the
 * ring's gen's: then any pass keeps it.
 */
static void test_empty_by_own_shape(void **state)
{
	__u8 *w;
	__u64 now = T0;

	(void)state;
	fresh();
	w = xrl_way(S, &T, claim(key4(1, 1), 0, now));
	assert_int_equal(count(0, 2, now), 1);
	/* A 1 s window: busy for its window and the grace after its bucket, whatever the claimer's rule. */
	assert_false(xrl_way_empty(w, &T, now + INTERVAL));
	assert_true(xrl_way_empty(w, &T, now + INTERVAL + XRL_TABLE_GRACE_NS + BLEN));
	/* Its shape written for another gen (a new shape coming): busy while it holds a pass. */
	xrl_way_shape(w, &T, GEN + 1, BLEN, N);
	assert_false(xrl_way_empty(w, &T, now + 100 * INTERVAL));
	/* The shape is what decides: read in buckets of a thousandth, the same cell is long past... */
	xrl_way_shape(w, &T, GEN, BLEN / 1000, N);
	assert_true(xrl_way_empty(w, &T, now));
	/* ... and in buckets twice as long, after now: busy. */
	xrl_way_shape(w, &T, GEN, 2 * BLEN, N);
	assert_false(xrl_way_empty(w, &T, now + 2 * INTERVAL));
	/* A clock behind the way's bucket: it may count, busy. */
	xrl_way_shape(w, &T, GEN, BLEN, N);
	assert_false(xrl_way_empty(w, &T, now - 10 * INTERVAL));
}

/* A way taken holds nothing of the old key's window: cells, blocks, a long ring's base, warm-up, shape. */
static void test_take_clears_way(void **state)
{
	static __u8 L[XRL_TABLE_WAYS * 1088 + sizeof(struct xrl_wstate)] __attribute__((aligned(64)));
	struct xrl_tshape t = xrl_tshape_of(16, XRL_MAX_CELLS);
	struct xrl_wkey a = key4(1, 1), b = key4(1, 2);
	struct xrl_wstate *ws = xrl_way_state(L, &t);
	__u32 sr = 0, i;

	(void)state;
	memset(L, 0, sizeof(L));
	assert_int_equal(xrl_tset_claim(L, &t, &a, 0, T0, &sr), 0);
	ws->gen = GEN;
	memset(&ws->ring, 0xff, xrl_ring_size(t.cells));
	for (i = 0; i < t.cells; i++)
		ws->ring.c[i].word = xrl_word((__u32)(T0 / BLEN) - 1000, 5); /* long past */
	xrl_way_tail(L, &t)->warm = 99;
	xrl_way_shape(L, &t, GEN, BLEN, 60);
	assert_int_equal(xrl_tset_claim(L, &t, &b, 0, T0, &sr), 0);
	assert_int_equal(sr, 4);
	assert_int_equal(ws->gen, 0);
	for (i = 0; i < xrl_ring_size(t.cells); i++)
		assert_int_equal(((__u8 *)&ws->ring)[i], 0);
	assert_int_equal(xrl_way_tail(L, &t)->warm, 0);
	assert_int_equal(xrl_way_tail(L, &t)->shape_gen, 0);
	assert_true(xrl_way_holds(L, &b, t.key_bytes));
	/* The next way's first bytes untouched. */
	assert_int_equal(xrl_way_state(xrl_way(L, &t, 1), &t)->serial, 0);
}

/* ---- a claim against a CPU counting into the way for its old key ---- */

static struct xrl_wkey A, B;
static __u64 Ta, Tb;
static int other; /* what "the other CPU" got: set by the hook, so a hook that never ran fails the test */

static void arm(void (*h)(void), int at)
{
	hook = h;
	calls = 0;
	hook_at = at;
	other = -9;
}

/* Ways 1 to 3 hold other keys' windows, busy at now. */
static void busy_others(__u64 now)
{
	__u32 i;

	for (i = 1; i < XRL_TABLE_WAYS; i++) {
		struct xrl_wkey k = key4(9, (__u8)i);

		memcpy(xrl_way(S, &T, i), k.w, 16);
		state_of(i)->serial = 2;
		state_of(i)->gen = GEN;
		xrl_way_shape(xrl_way(S, &T, i), &T, GEN, BLEN, N);
		assert_int_equal(count(i, 2, now), 1);
	}
}

static void cpu_claims_for_b(void)
{
	__u32 sr = 0;
	int ix = xrl_tset_claim(S, &T, &B, 0, Tb, &sr);

	other = ix;
	if (ix >= 0) {
		state_of((__u32)ix)->gen = GEN;
		xrl_way_shape(xrl_way(S, &T, (__u32)ix), &T, GEN, BLEN, N);
		assert_int_equal(count((__u32)ix, sr, Tb), 1); /* B's first pass */
	}
}

/* A's way 0, its window's last pass 10 windows before Ta (empty then); ways 1 to 3 busy at Ta: B can only take A's. */
static void setup_a_b(void)
{
	fresh();
	A = key4(1, 1);
	B = key4(1, 2);
	Ta = T0;
	Tb = T0; /* the same time */
	assert_int_equal(claim(A, 0, Ta - 10 * INTERVAL), 0);
	assert_int_equal(count(0, 2, Ta - 10 * INTERVAL), 1);
	busy_others(Ta);
}

/*
 * A CPU found A and is about to add A's pass when another takes the way for
 * B and counts B's first pass there. The add lands in B's window: it must
 * come back out, and A's packet be judged again.
 */
static void test_count_after_take(void **state)
{
	__u32 sr = 0;
	int r;

	(void)state;
	setup_a_b();
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr), 0);
	/* A's count: CAS last, CAS the cell to A's bucket, then its add (the 3rd): B comes first. */
	arm(cpu_claims_for_b, 3);
	r = count(0, sr, Ta);
	assert_int_equal(other, 0);
	assert_int_equal(r, 0);					/* taken back: judged again */
	assert_int_equal(window(0, Tb), 1);			/* B's pass, and only it */
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr), -1); /* A is a new key now */
}

static __u32 sr_a;

static void cpu_counts_a(void)
{
	other = count(0, sr_a, Ta);
}

/*
 * A CPU finds A's window empty and is about to take the way for B when
 * another, which found A, counts a pass of A there: the window is busy
 * then, and keeps A and its pass.
 */
static void test_take_after_count(void **state)
{
	__u32 sr = 0;

	(void)state;
	setup_a_b();
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr_a), 0);
	/* The claim: its lock (1st atomic), then the way's serial (2nd): A's pass comes first. */
	arm(cpu_counts_a, 2);
	assert_int_equal(xrl_tset_claim(S, &T, &B, 0, Tb, &sr), XRL_TABLE_FULL);
	assert_int_equal(other, 1);
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr), 0);
	assert_int_equal(sr, sr_a); /* the way given back as it was */
	assert_int_equal(window(0, Ta), 1);
	assert_int_equal(state_of(0)->serial & XRL_WAY_LOCK, 0);
}

/*
 * The same, A's pass coming once the claim has marked the way (odd) and
 * read its cells again (empty), before it publishes B: the counting CPU
 * reads the mark after its add, takes its pass back and judges the packet
 * again (A is a new key then). B's window holds nothing of it.
 */
static void test_count_while_marked(void **state)
{
	__u32 sr = 0;

	(void)state;
	setup_a_b();
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr_a), 0);
	/* The claim's lock, the way's serial, then its publishing exchange (the 3rd): A counts before it. */
	arm(cpu_counts_a, 3);
	assert_int_equal(xrl_tset_claim(S, &T, &B, 0, Tb, &sr), 0);
	assert_int_equal(other, 0); /* saw the mark: back, and judged again */
	assert_int_equal(window(0, Tb), 0);
	assert_int_equal(xrl_tset_find(S, &T, &B, 0, &sr), 0);
	assert_int_equal(xrl_tset_find(S, &T, &A, 0, &sr), -1);
}

static void cpu_claims_same_key(void)
{
	__u32 sr = 0;

	other = xrl_tset_claim(S, &T, &B, 0, Tb, &sr);
}

/* Two CPUs with the same new key: one way, not two (two windows would each admit the threshold). */
static void test_one_way_a_key(void **state)
{
	__u32 sr, i, n = 0;

	(void)state;
	fresh();
	B = key4(1, 2);
	Tb = T0;
	/* The first CPU holds the lock (1st atomic done) when the second comes (before its 2nd). */
	arm(cpu_claims_same_key, 2);
	assert_int_equal(xrl_tset_claim(S, &T, &B, 0, Tb, &sr), 0);
	assert_int_equal(other, XRL_TABLE_LOCKED);
	/* Once the first is done, the second finds the key. */
	assert_int_equal(xrl_tset_claim(S, &T, &B, 0, Tb, &sr), 0);
	for (i = 0; i < XRL_TABLE_WAYS; i++)
		n += xrl_way_holds(xrl_way(S, &T, i), &B, T.key_bytes) && state_of(i)->serial;
	assert_int_equal(n, 1);
}

/* The claims of a way come round past XRL_WAY_CLAIMS to 2, never to 0 (never used) nor into the lock. */
static void test_serial_wraps(void **state)
{
	__u32 sr = 0;

	(void)state;
	fresh();
	A = key4(1, 1);
	B = key4(1, 2);
	state_of(0)->serial = XRL_WAY_CLAIMS - 1;
	memcpy(xrl_way(S, &T, 0), A.w, 16);
	assert_int_equal(xrl_tset_claim(S, &T, &B, 0, T0, &sr), 0);
	assert_int_equal(sr, 2);
	assert_int_equal(state_of(0)->serial, 2);
}

/* A wide way (an IPv6 /128 key): its key's last word told apart too. */
static void test_wide_keys(void **state)
{
	struct xrl_key k = { .rule_id = 3, .family = XRL_FAMILY_V6, .proto = 17 };
	struct xrl_wkey a, b;
	__u32 sr = 0;

	(void)state;
	fresh();
	T = xrl_tshape_of(24, 3);
	memset(k.addr, 0x20, 16);
	assert_int_equal(xrl_wkey_make(&a, &k, 24), 0);
	k.addr[15] ^= 1;
	assert_int_equal(xrl_wkey_make(&b, &k, 24), 0);
	assert_int_equal(xrl_tset_claim(S, &T, &a, 1, T0, &sr), 1);
	assert_int_equal(xrl_tset_find(S, &T, &b, 1, &sr), -1);
	assert_int_equal(xrl_tset_claim(S, &T, &b, 1, T0, &sr), 1); /* a's window is empty: its way */
	assert_int_equal(xrl_tset_find(S, &T, &b, 1, &sr), 1);
	assert_int_equal(xrl_tset_find(S, &T, &a, 1, &sr), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wkey),
		cmocka_unit_test(test_way_bytes),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_claim_find_full),
		cmocka_unit_test(test_empty_by_own_shape),
		cmocka_unit_test(test_take_clears_way),
		cmocka_unit_test(test_count_after_take),
		cmocka_unit_test(test_take_after_count),
		cmocka_unit_test(test_count_while_marked),
		cmocka_unit_test(test_one_way_a_key),
		cmocka_unit_test(test_serial_wraps),
		cmocka_unit_test(test_wide_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
