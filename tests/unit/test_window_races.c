// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Races of CPUs on one shared window (include/xrl_window.h, xrl_reserve),
 * made deterministic by a hook on the atomic operations: the hook runs "the
 * other CPU" just before a chosen compare-and-swap or add of this one (every
 * plain read this CPU made before it is then stale, as on real hardware).
 * Each of these let a window pass more than its threshold, or judged a key
 * over for no reason, in a version of the shared window.
 */
#include <pthread.h>
#include <stdarg.h>
#include <time.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

static void (*cas_hook)(void);
static int cas_calls, cas_hook_at; /* run the hook before the cas_hook_at-th atomic operation (1-based) */

static void hook_point(void)
{
	if (cas_hook && ++cas_calls == cas_hook_at) {
		void (*h)(void) = cas_hook;

		cas_hook = NULL; /* the other CPU's own operations run unhooked */
		h();
	}
}

static __u64 hooked_cas(__u64 *p, __u64 o, __u64 n)
{
	hook_point();
	return __sync_val_compare_and_swap(p, o, n);
}

static __u64 hooked_add(__u64 *p, __u64 v)
{
	hook_point();
	return __sync_fetch_and_add(p, v);
}
#define __sync_val_compare_and_swap(p, o, n) hooked_cas((__u64 *)(p), (o), (n))
#define __sync_fetch_and_add(p, v) hooked_add((__u64 *)(p), (v))

#include "xrl_window.h"

/* The cells of a ring for a window of n buckets, as the loader sizes them (xrl_cells_for). */
#define XC(n) ((n) < 2 ? 3U : (__u32)(n) + 1)

/* xrl_reserve's room for a ring's words, one per thread. */
static _Thread_local __u64 snap[XRL_MAX_CELLS];

#define MS 1000000ULL
#define S (1700000000000ULL * MS)

static void arm(void (*h)(void), int at)
{
	cas_hook = h;
	cas_calls = 0;
	cas_hook_at = at;
}

static int reserve_at(struct xrl_ring *r, __u32 n, __u64 I, __u64 t, __u64 T, int check_only)
{
	struct xrl_slot s;

	xrl_slot_at(&s, t, I / n, XC(n));
	return xrl_reserve(r, n, XC(n), I, &s, T, 1, 8, check_only, snap, NULL);
}

/* ---- two CPUs on either side of a bucket boundary ---- */

static struct xrl_ring R;
static int other_res;
static const __u64 I = 1000 * MS, W = 500 * MS;

static void cpu_b_next_bucket(void)
{
	/* CPU B read its clock just after the boundary: bucket S+W. */
	other_res = reserve_at(&R, 2, I, S + W + 1, 1, 0);
}

/* T = 1 per 1000 ms, n = 2: A at S+W-1, B at S+W+1, B's whole pass between A's reads and A's swap. */
static void test_boundary_race(void **state)
{
	int a;

	(void)state;
	memset(&R, 0, sizeof(R));
	R.last = (S - W) / W; /* in use a bucket ago */
	arm(cpu_b_next_bucket, 1);
	a = reserve_at(&R, 2, I, S + W - 1, 1, 0);
	assert_int_equal(other_res, XRL_PASSED);
	assert_int_equal(a, XRL_OVER);
	assert_true(xrl_window_at(&R, 2, XC(2), I, S + W + 1).pass == 1);
}

static void cpu_b_fills_window(void)
{
	int i;

	for (i = 0; i < 10; i++)
		other_res += reserve_at(&R, 10, I, S + 300 * MS, 10, 0) == XRL_PASSED;
}

/* A CPU delayed between its clock read and its swap by three buckets, while another fills the window. */
static void test_straggler(void **state)
{
	int a;

	(void)state;
	memset(&R, 0, sizeof(R));
	other_res = 0;
	R.last = (S - 100 * MS) / (100 * MS);
	arm(cpu_b_fills_window, 1);
	a = reserve_at(&R, 10, I, S + 50 * MS, 10, 0);
	assert_int_equal(other_res, 10);
	assert_int_equal(a, XRL_OVER);
	assert_true(xrl_window_at(&R, 10, XC(10), I, S + 300 * MS).pass == 10);
}

/* ---- the first packets after an idle gap, on two CPUs ---- */

static void cpu_b_idle_too(void)
{
	other_res = reserve_at(&R, 4, I, S + 250 * MS, 1, 0);
}

static void test_first_packets_after_idle(void **state)
{
	int a;

	(void)state;
	memset(&R, 0, sizeof(R));
	R.c[0].word = xrl_word(1, 5);	 /* anything old */
	R.last = (S - 10 * I) / (I / 4); /* idle for 10 windows */
	arm(cpu_b_idle_too, 1);
	a = reserve_at(&R, 4, I, S + 250 * MS, 1, 0);
	assert_int_equal(other_res, XRL_PASSED);
	assert_int_equal(a, XRL_OVER);
	assert_true(xrl_window_at(&R, 4, XC(4), I, S + 250 * MS).pass == 1);
}

/* ---- contention ---- */

static int contended, contend_always;

static void other_cpus_pass(void)
{
	reserve_at(&R, 2, I, S + 100 * MS, 1000000, 0);
	contended++;
	if (contend_always)
		arm(other_cpus_pass, 1);
}

/*
 * Another CPU passes before every atomic operation of this one: the key is
 * far below its limit, and this CPU's packet passes all the same, counted
 * once. (When every commit of another CPU made this one lose a round, four
 * in a row dropped the packet while the window had room: it was judged
 * XRL_CONTENDED here; test_cpus_no_drop_with_room, two CPUs on a window of
 * 100 or 128, saw it in one window in 13.)
 */
static void test_contention(void **state)
{
	__u64 before;
	int a;

	(void)state;
	memset(&R, 0, sizeof(R));
	assert_int_equal(reserve_at(&R, 2, I, S + 100 * MS, 1000000, 0), XRL_PASSED);
	contended = 0;
	contend_always = 1;
	arm(other_cpus_pass, 1);
	before = xrl_window_at(&R, 2, XC(2), I, S + 100 * MS).pass;
	a = reserve_at(&R, 2, I, S + 100 * MS, 1000000, 0);
	contend_always = 0;
	arm(NULL, 0);
	assert_int_equal(a, XRL_PASSED);
	assert_true(contended >= 2);
	assert_true(xrl_window_at(&R, 2, XC(2), I, S + 100 * MS).pass == before + (__u64)contended + 1);
}

static void cpu_b_takes_last(void)
{
	other_res = reserve_at(&R, 2, I, S + 100 * MS, 3, 0);
}

/*
 * Room for one more, and another CPU takes it: between this one's read and
 * its add (its add returns B's count: over, taken back), or between its add
 * and its commit (B reads A's count: over). Either way one passes, and the
 * window holds its threshold.
 */
static void test_last_room(void **state)
{
	int at, a;

	(void)state;
	for (at = 1; at <= 2; at++) {
		memset(&R, 0, sizeof(R));
		assert_int_equal(reserve_at(&R, 2, I, S + 100 * MS, 3, 0), XRL_PASSED);
		assert_int_equal(reserve_at(&R, 2, I, S + 100 * MS, 3, 0), XRL_PASSED);
		arm(cpu_b_takes_last, at);
		a = reserve_at(&R, 2, I, S + 100 * MS, 3, 0);
		assert_int_equal(a, at == 1 ? XRL_OVER : XRL_PASSED);
		assert_int_equal(other_res, at == 1 ? XRL_PASSED : XRL_OVER);
		assert_true(xrl_window_at(&R, 2, XC(2), I, S + 100 * MS).pass == 3);
	}
}

static void cpu_b_straggles(void)
{
	/* B's clock read the bucket before A's: A's cell is not moved yet, so B counts in its own bucket. */
	other_res = reserve_at(&R, 2, I, S + 400 * MS, 2, 0);
}

/*
 * Room for one. A opens bucket S+W; between A's move of last and its move of
 * the cell, B, whose clock read bucket S (in A's window), passes there. A's
 * commit then finds B's: it reads the other cells again, finds the window
 * full and takes its count back. One passes.
 */
static void test_commit_reads_again(void **state)
{
	int a;

	(void)state;
	memset(&R, 0, sizeof(R));
	R.last = S / W;
	R.c[(S / W) % XC(2)].word = xrl_word((__u32)(S / W), 1);
	arm(cpu_b_straggles, 2); /* A: last (1), then B, then A's cell (2) and commit */
	a = reserve_at(&R, 2, I, S + 600 * MS, 2, 0);
	assert_int_equal(other_res, XRL_PASSED);
	assert_int_equal(a, XRL_OVER);
	assert_true(xrl_window_at(&R, 2, XC(2), I, S + 600 * MS).pass == 2);
}

/* ---- a lease taken back by another CPU (bpf/lease.h: xrl_revoke_cpu) ---- */

static struct xrl_ring LR;
static __u64 lword; /* the holder's latch word of the key */
static struct xrl_slot lslot;

enum { LT = 1024 }; /* a window that leases LT / XRL_LEASE_PART a packet */

static int lease_reserve(__u32 *lease)
{
	xrl_slot_at(&lslot, S + 100 * MS, I / 2, XC(2));
	return xrl_reserve_lease(&LR, 2, XC(2), I, &lslot, LT, 1, 8, 0, snap, NULL, lease);
}

/*
 * The holder, while the revoking CPU stalls between its check of the word
 * and its swap: it returns its lease (xrl_latch_flush), latches the key
 * over in the same slot (xrl_latch_set) and counts there as many blocks as
 * the lease had left (xrl_latch_answers).
 */
static __u32 lease_left;

static void holder_returns_and_latches(void)
{
	__u32 n = xrl_lword_return(&lword), i;

	xrl_unreserve(&LR, XC(2), &lslot, n, 8);
	xrl_lword_over(&lword);
	for (i = 0; i < lease_left; i++)
		lword++;
}

/*
 * A lease's passes are taken back once. When only a new lease moved the
 * word's serial, the word of the holder's over latch, with as many blocks
 * as the lease had passes left, was the lease's word again: the stalled
 * swap took the same passes back a second time, and the window admitted
 * that many more than its threshold (LT + 4 here; up to XRL_LEASE_MAX).
 */
static void test_lease_revoke_aba(void **state)
{
	__u32 lease = XRL_LEASE_MAX, got, extra = 0, passed = 0;
	__u64 w;

	(void)state;
	memset(&LR, 0, sizeof(LR));
	lword = 0;
	/* The holder passes a packet and leases LT / 256 passes with it. */
	assert_int_equal(lease_reserve(&lease), XRL_PASSED);
	assert_int_equal(lease, LT / XRL_LEASE_PART);
	xrl_lword_lease(&lword, lease);
	lease_left = lease;
	passed = 1;
	/* Others fill the window: it holds the lease's passes too. */
	while (lease_reserve(NULL) == XRL_PASSED)
		passed++;
	assert_int_equal(passed + lease, LT);
	/* A CPU finds it full and takes the lease back: it reads the word, checks it, stalls; then swaps. */
	w = xrl_lword_peek(&lword);
	assert_int_equal(xrl_latch_count(w), lease);
	arm(holder_returns_and_latches, 1);
	got = xrl_lword_take(&lword, w);
	if (got)
		xrl_unreserve(&LR, XC(2), &lslot, got, 8);
	/* What the window admits now: the lease's passes, given back once, and no more. */
	while (lease_reserve(NULL) == XRL_PASSED)
		extra++;
	print_message("lease of %u: taken back by the swap %u, passed %u + %u of %d\n", lease, got, passed, extra, LT);
	assert_int_equal(got, 0);
	assert_int_equal(passed + extra, LT);
}

/*
 * A pass a lease paid goes back when another rule of the packet drops it
 * (bpf/lease.h: xrl_lease_give_back). Set-up: the holder passes a packet and
 * leases with it, others fill the window, the holder spends a pass; returns
 * what the others passed.
 */
static __u32 lease_spent_one(void)
{
	__u32 lease = XRL_LEASE_MAX, passed = 1;

	memset(&LR, 0, sizeof(LR));
	lword = 0;
	assert_int_equal(lease_reserve(&lease), XRL_PASSED);
	assert_true(lease > 1);
	xrl_lword_lease(&lword, lease);
	while (lease_reserve(NULL) == XRL_PASSED)
		passed++;
	assert_int_equal(passed + lease, LT);
	assert_true(xrl_lword_spend(&lword));
	return passed;
}

/* Another CPU finds the window full and takes back what the lease has left (xrl_revoke_cpu). */
static void revoker_takes(void)
{
	__u64 w = xrl_lword_peek(&lword);
	__u32 got = xrl_lword_take(&lword, w);

	if (got)
		xrl_unreserve(&LR, XC(2), &lslot, got, 8);
}

/* What the window admits from here; then that the lease is spent by no one. */
static __u32 admitted(void)
{
	__u32 n = 0;

	while (lease_reserve(NULL) == XRL_PASSED)
		n++;
	return n;
}

/* Given back with passes left: to the lease; a revoke then frees them all, the given-back one too. */
static void test_lease_give_back(void **state)
{
	__u32 passed;

	(void)state;
	passed = lease_spent_one();
	xrl_lease_unspend(&lword, &LR, XC(2), &lslot, 8);
	revoker_takes();
	assert_int_equal(passed + admitted(), LT);
}

/*
 * A revoke between the give-back's read of the word and its swap takes what
 * the lease had left, not the pass being given back: that one goes back to
 * its bucket. Given back to the lease alone, the window passed one fewer
 * than its threshold (a pass counted for a packet dropped).
 */
static void test_lease_give_back_races_revoke(void **state)
{
	__u32 passed;

	(void)state;
	passed = lease_spent_one();
	arm(revoker_takes, 1);
	xrl_lease_unspend(&lword, &LR, XC(2), &lslot, 8);
	assert_int_equal(xrl_latch_count(lword), 0);
	assert_int_equal(passed + admitted(), LT);
}

/* The spend took the lease's last pass: it goes back to its bucket, and the lease stays empty. */
static void test_lease_give_back_last(void **state)
{
	__u32 passed;

	(void)state;
	passed = lease_spent_one();
	while (xrl_lword_spend(&lword))
		passed++; /* the lease's other passes paid packets that passed */
	xrl_lease_unspend(&lword, &LR, XC(2), &lslot, 8);
	assert_int_equal(xrl_latch_count(lword), 0);
	assert_int_equal(passed + admitted(), LT);
}

/* ---- a rule's per-CPU figures ---- */

/* The 2^32nd pass of a bucket on one CPU stays in the count (full), never in the epoch. */
static void test_rule_ring_count_saturates(void **state)
{
	const __u64 H = 3600000 * MS;
	struct xrl_ring r = {};
	struct xrl_slot s;
	struct xrl_cell *c;

	(void)state;
	xrl_slot_at(&s, S, H, XC(1));
	c = xrl_current_at(&r, 1, XC(1), &s);
	assert_non_null(c);
	c->word = xrl_word(s.epoch, 0xffffffffU);
	xrl_cell_count(&r, XC(1), &s, 0);
	assert_true(xrl_word_epoch(c->word) == s.epoch);
	assert_ptr_equal(xrl_current_at(&r, 1, XC(1), &s), c);
	assert_true(xrl_window_at(&r, 1, XC(1), H, S).pass == 0xffffffffULL);
}

/* ---- real clocks ---- */

static struct xrl_ring RC;
static unsigned int per_epoch[1 << 20];
static __u64 base_epoch;
static volatile int stop_racing;

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void *racer(void *arg)
{
	const __u64 blen = 2000, n = 2; /* 2 us buckets: boundaries, stragglers and take-backs, every few passes */

	(void)arg;
	while (!stop_racing) {
		struct xrl_slot s;
		__u64 e;

		xrl_slot_at(&s, mono_ns(), blen, XC(n));
		if (xrl_reserve(&RC, n, XC(n), n * blen, &s, 4, 1, 8, 0, snap, NULL) != XRL_PASSED)
			continue;
		e = s.q - base_epoch;
		if (e >= sizeof(per_epoch) / sizeof(per_epoch[0]))
			break;
		__sync_fetch_and_add(&per_epoch[e], 1);
	}
	return NULL;
}

/*
 * Two threads on the real clock against one window of 4 packets per two
 * buckets of 2 us, for half a second: no pair of consecutive buckets ever
 * holds more than 4 passes (the first version of the shared window let
 * hundreds of windows through with up to 9).
 */
static void test_real_clock_race(void **state)
{
	struct timespec half = { 0, 500000000 };
	pthread_t th[2];
	__u64 e, windows = 0, over = 0;
	int t;

	(void)state;
	base_epoch = mono_ns() / 2000;
	for (t = 0; t < 2; t++)
		assert_int_equal(pthread_create(&th[t], NULL, racer, NULL), 0);
	nanosleep(&half, NULL);
	stop_racing = 1;
	for (t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	for (e = 1; e < sizeof(per_epoch) / sizeof(per_epoch[0]); e++) {
		if (!per_epoch[e] && !per_epoch[e - 1])
			continue;
		windows++;
		if (per_epoch[e] + per_epoch[e - 1] > 4)
			over++;
	}
	print_message("real clock: %llu windows, %llu over\n", (unsigned long long)windows, (unsigned long long)over);
	assert_true(windows > 1000);
	assert_int_equal(over, 0);
}

/* ---- long rings (more than 17 cells): the base ---- */

/* Its cells, their blocks, then its base: struct xrl_ring holds the longest (XRL_RING_WORDS). */
struct long_ring {
	struct xrl_ring r;
};

/* A packet at t on a long ring of n buckets, as the program judges it: on the base, else on every cell. */
static int judge_long_at(struct xrl_ring *r, __u32 n, __u64 I, __u64 t, __u64 T, struct xrl_slot *s)
{
	int res;

	xrl_slot_at(s, t, I / n, XC(n));
	res = xrl_reserve_fast(r, XC(n), s, T, 1, 8, 0, NULL, NULL);
	if (res != XRL_SLOW)
		return res;
	return xrl_reserve_long(r, n, XC(n), I, s, T, 1, 8, 0, snap, NULL, NULL);
}

static struct long_ring LRG;
static const __u64 LI = 20000 * MS, LW = 1000 * MS; /* 20 buckets of a second */

static void cpu_b_next_long_bucket(void)
{
	struct xrl_slot s;

	other_res = judge_long_at(&LRG.r, 20, LI, S + 2 * LW, 2, &s);
}

/*
 * T = 2 over 20 buckets. Bucket S+W holds a pass and its base; CPU A judges
 * a packet there on the base (room for one) while CPU B, its clock just
 * past the boundary, passes the window's last packet in the next bucket
 * between A's reads and A's add. A must find the newer bucket when its
 * commit is not the next, and judge again there: over. (Kept on the base
 * alone, it passed a third packet in a window of 2.)
 */
static void test_long_boundary_race(void **state)
{
	struct xrl_slot s;
	int a;

	(void)state;
	memset(&LRG, 0, sizeof(LRG));
	assert_int_equal(judge_long_at(&LRG.r, 20, LI, S + LW, 2, &s), XRL_PASSED);
	assert_true(xrl_ring_base(&LRG.r, XC(20))->tag >> 32 == s.epoch);
	other_res = -1;
	arm(cpu_b_next_long_bucket, 1); /* before A's first atomic: its add */
	a = judge_long_at(&LRG.r, 20, LI, S + 2 * LW - 1, 2, &s);
	assert_int_equal(other_res, XRL_PASSED);
	assert_int_equal(a, XRL_OVER);
	assert_int_equal(xrl_window_at(&LRG.r, 20, XC(20), LI, S + 2 * LW).pass, 2);
}

static void cpu_c_commits_elsewhere(void)
{
	/* A commit of no pass (a replace's carry of a block) in the oldest bucket: B's reads are stale. */
	xrl_carry_add(&LRG.r, XC(20), (S - 5 * LW) / LW, 0, 1, 8, 1);
}

static void cpu_b_next_long_bucket_held(void)
{
	struct xrl_slot s;

	arm(cpu_c_commits_elsewhere, 4); /* before B's fourth atomic: its commit (last, cell, add, seq) */
	other_res = judge_long_at(&LRG.r, 20, LI, S + 2 * LW, 2, &s);
}

/*
 * The same, B's commit not the next (another CPU committed between its
 * reads and it): B passes on reading the cells again, and writes no base.
 * A, whose commit is not the next either, finds that the ring moved on to a
 * newer bucket than its own (its last), not that the base changed, and
 * judges again there: over.
 */
static void test_long_boundary_race_no_base(void **state)
{
	struct xrl_slot s;
	int a;

	(void)state;
	memset(&LRG, 0, sizeof(LRG));
	assert_int_equal(judge_long_at(&LRG.r, 20, LI, S + LW, 2, &s), XRL_PASSED);
	other_res = -1;
	arm(cpu_b_next_long_bucket_held, 1);
	a = judge_long_at(&LRG.r, 20, LI, S + 2 * LW - 1, 2, &s);
	assert_int_equal(other_res, XRL_PASSED);
	assert_int_equal(xrl_ring_base(&LRG.r, XC(20))->tag >> 32, (S + LW) / LW); /* B wrote none */
	assert_int_equal(a, XRL_OVER);
	assert_int_equal(xrl_window_at(&LRG.r, 20, XC(20), LI, S + 2 * LW).pass, 2);
}

static volatile __u64 long_per_epoch[1 << 16];
static volatile int long_stop;
static __u64 long_base_epoch;

static void *long_racer(void *arg)
{
	const __u32 n = 60;
	const __u64 blen = 2000; /* 2 us */
	int k = 0;

	(void)arg;
	while (!long_stop) {
		struct xrl_slot s;
		__u64 e;

		if (judge_long_at(&LRG.r, n, n * blen, mono_ns(), 30, &s) != XRL_PASSED)
			continue;
		e = s.q - long_base_epoch;
		if (e >= sizeof(long_per_epoch) / sizeof(long_per_epoch[0]))
			break;
		__sync_fetch_and_add(&long_per_epoch[e], 1);
		/* One pass in five taken back, as a later rule's drop does: ours first, then the window's. */
		if (++k % 5 == 0) {
			__sync_fetch_and_sub(&long_per_epoch[e], 1);
			xrl_unreserve(&LRG.r, XC(n), &s, 1, 8);
		}
	}
	return NULL;
}

/*
 * Two threads on the real clock against a long window of 30 packets per 60
 * buckets of 2 us, passes taken back now and then, for half a second: no 60
 * consecutive buckets ever hold more than 30 passes.
 */
static void test_long_real_clock_race(void **state)
{
	struct timespec half = { 0, 500000000 };
	pthread_t th[2];
	__u64 e, j, in, windows = 0, over = 0, full = 0;
	int t;

	(void)state;
	memset(&LRG, 0, sizeof(LRG));
	long_base_epoch = mono_ns() / 2000;
	for (t = 0; t < 2; t++)
		assert_int_equal(pthread_create(&th[t], NULL, long_racer, NULL), 0);
	nanosleep(&half, NULL);
	long_stop = 1;
	for (t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	for (e = 59; e < sizeof(long_per_epoch) / sizeof(long_per_epoch[0]); e++) {
		for (in = 0, j = e - 59; j <= e; j++)
			in += long_per_epoch[j];
		if (!in)
			continue;
		windows++;
		over += in > 30;
		full += in == 30;
	}
	print_message("long windows, real clock: %llu windows, %llu over, %llu full\n", (unsigned long long)windows,
		      (unsigned long long)over, (unsigned long long)full);
	assert_true(windows > 1000);
	assert_int_equal(over, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundary_race),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_first_packets_after_idle),
		cmocka_unit_test(test_contention),
		cmocka_unit_test(test_last_room),
		cmocka_unit_test(test_commit_reads_again),
		cmocka_unit_test(test_lease_revoke_aba),
		cmocka_unit_test(test_lease_give_back),
		cmocka_unit_test(test_lease_give_back_races_revoke),
		cmocka_unit_test(test_lease_give_back_last),
		cmocka_unit_test(test_rule_ring_count_saturates),
		cmocka_unit_test(test_real_clock_race),
		cmocka_unit_test(test_long_boundary_race),
		cmocka_unit_test(test_long_boundary_race_no_base),
		cmocka_unit_test(test_long_real_clock_race),
	};

	return cmocka_run_group_tests_name("window races", tests, NULL, NULL);
}
