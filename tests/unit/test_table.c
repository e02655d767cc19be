// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The table of window states (include/xrl_table.h): way keys, the probe, the
 * claim of a way, and its races with a CPU counting into the way for its old
 * key, made deterministic as test_window_races.c makes them: a hook runs "the
 * other CPU" just before a chosen atomic operation of this one.
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

static void arm(void (*h)(void), int at)
{
	hook = h;
	calls = 0;
	hook_at = at;
}

#define N 2 /* a 2-bucket window */
#define G 1 /* grace, buckets */

static struct xrl_tset S;

static struct xrl_tkey key4(__u32 rule, __u8 last_octet)
{
	struct xrl_key k = { .rule_id = rule, .port = 53, .family = XRL_FAMILY_V4, .proto = 17 };
	struct xrl_tkey t;

	k.addr[0] = 10;
	k.addr[3] = last_octet;
	assert_int_equal(xrl_tkey_make(&t, &k), 0);
	return t;
}

static void test_tkey(void **state)
{
	struct xrl_key k = { .rule_id = 7 | XRL_KEY_BYTES, .port = 9, .family = XRL_FAMILY_V6, .proto = 17 }, back;
	struct xrl_tkey t;

	(void)state;
	memset(k.addr, 0xab, 8); /* an IPv6 /64 */
	assert_int_equal(xrl_tkey_make(&t, &k), 0);
	assert_int_equal(t.rule, 0x8007);
	xrl_tkey_key(&back, &t);
	assert_memory_equal(&back, &k, sizeof(k));
	k.addr[15] = 1; /* longer than /64: no way key */
	assert_int_equal(xrl_tkey_make(&t, &k), -1);
	k.addr[15] = 0;
	k.rule_id = 0x8000; /* over 15 bits */
	assert_int_equal(xrl_tkey_make(&t, &k), -1);
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

static __u32 claim(struct xrl_tkey t, __u32 first, __u32 E)
{
	__u32 sr = 0;
	int ix = xrl_tset_claim(&S, &t, first, E, N, G, &sr);

	assert_true(ix >= 0);
	assert_int_equal(sr & 1, 0);
	return (__u32)ix;
}

/* A window's pass sum at bucket E (n buckets): what the claim must never lose a pass of. */
static __u32 window(__u32 ix, __u32 E)
{
	__u32 i, sum = 0;
	__u64 x;

	for (i = 0; i < XRL_WAY_CELLS; i++) {
		x = S.w[ix].c[i];
		if (x && (__u32)(E - xrl_word_epoch(x)) < N)
			sum += xrl_word_pass(x);
	}
	return sum;
}

static void test_claim_find_full(void **state)
{
	struct xrl_tkey t[5];
	__u32 i, sr, E = 1000, ix;

	(void)state;
	memset(&S, 0, sizeof(S));
	for (i = 0; i < 5; i++)
		t[i] = key4(1, (__u8)i);
	/* A new key takes its first way; the probe finds it there, and stops at a way never used. */
	assert_int_equal(claim(t[0], 2, E), 2);
	assert_int_equal(xrl_tset_find(&S, &t[0], 2, &sr), 2);
	assert_int_equal(sr, 2);
	assert_int_equal(xrl_tset_find(&S, &t[1], 2, &sr), -1);
	/* A window with no pass is empty: the next key takes its way. */
	assert_int_equal(claim(t[1], 2, E), 2);
	assert_int_equal(xrl_tset_find(&S, &t[0], 2, &sr), -1);
	assert_int_equal(xrl_way_count(&S.w[2], 4, E, 1), 1);
	for (i = 2; i < 4; i++) {
		ix = claim(t[i], 2, E);
		assert_int_equal(xrl_way_count(&S.w[ix], S.w[ix].serial & XRL_WAY_CLAIMS, E, 1), 1);
	}
	ix = claim(t[0], 2, E);
	assert_int_equal(xrl_way_count(&S.w[ix], S.w[ix].serial & XRL_WAY_CLAIMS, E, 1), 1);
	/* Every window busy: nothing is taken, the key goes to the sketch. */
	assert_int_equal(xrl_tset_claim(&S, &t[4], 0, E, N, G, &sr), XRL_TABLE_FULL);
	/* Out of its window but within the grace: still busy. */
	assert_int_equal(xrl_tset_claim(&S, &t[4], 0, E + N, N, G, &sr), XRL_TABLE_FULL);
	/* Past the window and the grace, every way may be taken: the probe's first. */
	assert_int_equal(xrl_tset_claim(&S, &t[4], 0, E + N + G, N, G, &sr), 0);
	assert_int_equal(sr, 4);
	assert_int_equal(window(0, E + N + G), 0);
	assert_int_equal(xrl_tset_find(&S, &t[4], 0, &sr), 0);
	/* The key it took the way from is gone; the others stay. */
	for (i = 0, ix = 0; i < 4; i++)
		ix += xrl_tset_find(&S, &t[i], 2, &sr) >= 0;
	assert_int_equal(ix, 3);
	/* A key not there: the probe goes round the whole set of used ways. */
	t[0] = key4(1, 5);
	assert_int_equal(xrl_tset_find(&S, &t[0], 1, &sr), -1);
	/* The set's lock is free again. */
	assert_int_equal(S.w[0].serial & XRL_WAY_LOCK, 0);
}

/* ---- a claim against a CPU counting into the way for its old key ---- */

static struct xrl_tkey A, B;
static __u32 Ea, Eb;
static int other;

/* Ways 1 to 3 hold other keys' windows, busy at E. */
static void busy_others(__u32 E)
{
	__u32 i;

	for (i = 1; i < XRL_TABLE_WAYS; i++) {
		S.w[i].serial = 2;
		S.w[i].key = key4(9, (__u8)i);
		S.w[i].c[0] = xrl_word(E, 1);
	}
}

static void cpu_claims_for_b(void)
{
	__u32 sr = 0;
	int ix = xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr);

	other = ix;
	if (ix >= 0)
		assert_int_equal(xrl_way_count(&S.w[ix], sr, Eb, 1), 1); /* B's first pass */
}

/* A's way 0, its window's last pass at Ea - 10 (empty at Ea); ways 1 to 3 busy at Ea: B can only take A's. */
static void setup_a_b(void)
{
	memset(&S, 0, sizeof(S));
	A = key4(1, 1);
	B = key4(1, 2);
	Ea = 100;
	Eb = 100; /* the same time */
	assert_int_equal(claim(A, 0, Ea - 10), 0);
	assert_int_equal(xrl_way_count(&S.w[0], 2, Ea - 10, 1), 1);
	busy_others(Ea);
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
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr), 0);
	/* A's count: CAS last, CAS the cell to Ea, then its add (the 3rd): B comes first. */
	arm(cpu_claims_for_b, 3);
	r = xrl_way_count(&S.w[0], sr, Ea, 1);
	assert_int_equal(other, 0);
	assert_int_equal(r, 0);				     /* taken back: judged again */
	assert_int_equal(window(0, Eb), 1);		     /* B's pass, and only it */
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr), -1); /* A is a new key now */
}

static __u32 sr_a;

static void cpu_counts_a(void)
{
	other = xrl_way_count(&S.w[0], sr_a, Ea, 1);
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
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr_a), 0);
	/* The claim: its lock (1st atomic), then the way's serial (2nd): A's pass comes first. */
	arm(cpu_counts_a, 2);
	assert_int_equal(xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr), XRL_TABLE_FULL);
	assert_int_equal(other, 1);
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr), 0);
	assert_int_equal(sr, sr_a); /* the way given back as it was */
	assert_int_equal(window(0, Ea), 1);
	assert_int_equal(S.w[0].serial & XRL_WAY_LOCK, 0);
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
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr_a), 0);
	/* The claim's lock, the way's serial, then its publishing exchange (the 3rd): A counts before it. */
	arm(cpu_counts_a, 3);
	assert_int_equal(xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr), 0);
	assert_int_equal(other, 0); /* saw the mark: back, and judged again */
	assert_int_equal(window(0, Eb), 0);
	assert_int_equal(xrl_tset_find(&S, &B, 0, &sr), 0);
	assert_int_equal(xrl_tset_find(&S, &A, 0, &sr), -1);
}

static void cpu_claims_same_key(void)
{
	__u32 sr = 0;

	other = xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr);
}

/* Two CPUs with the same new key: one way, not two (two windows would each admit the threshold). */
static void test_one_way_a_key(void **state)
{
	__u32 sr, i, n = 0;

	(void)state;
	memset(&S, 0, sizeof(S));
	B = key4(1, 2);
	Eb = 100;
	/* The first CPU holds the lock (1st atomic done) when the second comes (before its 2nd). */
	arm(cpu_claims_same_key, 2);
	assert_int_equal(xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr), 0);
	assert_int_equal(other, XRL_TABLE_LOCKED);
	/* Once the first is done, the second finds the key. */
	assert_int_equal(xrl_tset_claim(&S, &B, 0, Eb, N, G, &sr), 0);
	for (i = 0; i < XRL_TABLE_WAYS; i++)
		n += xrl_tkey_equal(&S.w[i].key, &B) && S.w[i].serial;
	assert_int_equal(n, 1);
}

/* The claims of a way come round past XRL_WAY_CLAIMS to 2, never to 0 (never used) nor into the lock. */
static void test_serial_wraps(void **state)
{
	__u32 sr = 0;

	(void)state;
	memset(&S, 0, sizeof(S));
	A = key4(1, 1);
	B = key4(1, 2);
	S.w[0].serial = XRL_WAY_CLAIMS - 1;
	S.w[0].key = A;
	assert_int_equal(xrl_tset_claim(&S, &B, 0, 100, N, G, &sr), 0);
	assert_int_equal(sr, 2);
	assert_int_equal(S.w[0].serial, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tkey),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_claim_find_full),
		cmocka_unit_test(test_count_after_take),
		cmocka_unit_test(test_take_after_count),
		cmocka_unit_test(test_count_while_marked),
		cmocka_unit_test(test_one_way_a_key),
		cmocka_unit_test(test_serial_wraps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
