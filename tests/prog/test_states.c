// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The window states as userspace reads and writes them (user/lib/read/states.c),
 * on real maps: the kernel's LRU hash the program keeps today, and an array
 * of the ways of include/xrl_table.h, which it is to keep next. What is put
 * is what is read back, by key and by walk, for narrow and wide ways and
 * long rings; a set full of busy windows takes no more keys. Needs root (it
 * makes BPF maps); skips, saying so, without.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include "read/states.h"

#define NKEYS 40
#define BLEN 500000000ULL
#define NOW (1000 * BLEN)

static int make_map(enum bpf_map_type type, __u32 ksz, __u32 vsz, __u32 max, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);
	int fd = bpf_map_create(type, "xrl_test_states", ksz, vsz, max, &o);

	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		print_message("[   SKIP   ] needs root to make BPF maps: %s\n", strerror(errno));
		skip();
	}
	assert_true(fd >= 0);
	return fd;
}

/* A table of ways of shape sh, sets sets; or, sets 0, an LRU hash of rings of sh.cells cells. */
static struct xrl_states table(struct xrl_tshape sh, __u32 sets)
{
	if (!sets)
		return (struct xrl_states){ .fd = make_map(BPF_MAP_TYPE_LRU_HASH, sizeof(struct xrl_key),
							   xrl_state_size(sh.cells), 4096, 0),
					    .cells = sh.cells };
	return xrl_states_ways(make_map(BPF_MAP_TYPE_ARRAY, 4, XRL_TABLE_WAYS * sh.way_bytes, sets, BPF_F_MMAPABLE), sh,
			       sets);
}

static struct xrl_key key_n(__u32 n, int v6)
{
	struct xrl_key k = { .rule_id = 1 + n % 3, .port = 53, .proto = 17 };

	k.family = v6 ? XRL_FAMILY_V6 : XRL_FAMILY_V4;
	k.addr[0] = 10;
	k.addr[2] = (__u8)(n >> 8);
	k.addr[3] = (__u8)n;
	if (v6 == 2)
		k.addr[15] = (__u8)(n + 1); /* an IPv6 /128: a wide way's key */
	return k;
}

/* A window state unlike any other n's: gen, lease mark, warm-up start, every word of its ring. */
static struct xrl_state state_n(__u32 n, __u32 cells)
{
	struct xrl_state st;
	__u32 i, words = (xrl_ring_size(cells) - 16) / 8;

	memset(&st, 0, sizeof(st));
	st.gen = 100 + n;
	st.leased = n & 1;
	st.warm = NOW - n;
	st.ring.last = NOW / BLEN;
	st.ring.seq = n * 7;
	for (i = 0; i < words; i++)
		st.ring.c[i].word = xrl_word((__u32)(NOW / BLEN) - i, n + i + 1);
	return st;
}

static void assert_state_equal(const struct xrl_state *a, const struct xrl_state *b, __u32 cells)
{
	assert_int_equal(a->gen, b->gen);
	assert_int_equal(a->leased, b->leased);
	assert_int_equal(a->warm, b->warm);
	assert_memory_equal(&a->ring, &b->ring, xrl_ring_size(cells));
}

struct seen {
	__u32 cells, n;
	int v6;
	__u8 hit[NKEYS];
};

static int seen_one(const struct xrl_key *k, const struct xrl_state *st, void *ctx)
{
	struct seen *s = ctx;
	struct xrl_state want;
	struct xrl_key kn;
	__u32 i;

	for (i = 0; i < NKEYS; i++) {
		kn = key_n(i, s->v6);
		if (!memcmp(&kn, k, sizeof(kn)))
			break;
	}
	assert_true(i < NKEYS);
	assert_false(s->hit[i]);
	s->hit[i] = 1;
	s->n++;
	want = state_n(i, s->cells);
	assert_state_equal(st, &want, s->cells);
	return 0;
}

/* NKEYS keys put, then read back by key and by walk, and counted. */
static void round_trip(struct xrl_states t, int v6)
{
	struct seen s = { .cells = t.cells, .v6 = v6 };
	struct xrl_state got, want;
	struct xrl_key k;
	__u32 i;

	for (i = 0; i < NKEYS; i++) {
		k = key_n(i, v6);
		want = state_n(i, t.cells);
		assert_int_equal(xrl_state_put(&t, &k, &want, NOW), 0);
	}
	for (i = 0; i < NKEYS; i++) {
		k = key_n(i, v6);
		want = state_n(i, t.cells);
		assert_int_equal(xrl_state_get(&t, &k, &got), 0);
		assert_state_equal(&got, &want, t.cells);
	}
	k = key_n(NKEYS + 1, v6);
	assert_int_equal(xrl_state_get(&t, &k, &got), -ENOENT);
	assert_int_equal(xrl_states_walk(&t, seen_one, &s), 0);
	assert_int_equal(s.n, NKEYS);
	assert_int_equal(xrl_states_count(&t), NKEYS);
	/* A key put again keeps one state, the last put. */
	k = key_n(3, v6);
	want = state_n(3, t.cells);
	want.ring.seq++;
	assert_int_equal(xrl_state_put(&t, &k, &want, NOW), 0);
	assert_int_equal(xrl_states_count(&t), NKEYS);
	assert_int_equal(xrl_state_get(&t, &k, &got), 0);
	assert_state_equal(&got, &want, t.cells);
	close(t.fd);
}

static void test_lru_round_trip(void **state)
{
	(void)state;
	round_trip(table(xrl_tshape_of(16, 3), 0), 0);
}

static void test_ways_round_trip(void **state)
{
	(void)state;
	round_trip(table(xrl_tshape_of(16, 3), 64), 0); /* 256 ways for 40 keys */
	round_trip(table(xrl_tshape_of(16, 3), 64), 1); /* IPv6 /64 sources: narrow ways too */
}

static void test_wide_ways_round_trip(void **state)
{
	struct xrl_states narrow;
	struct xrl_state st = state_n(1, 3), got;
	struct xrl_key k = key_n(1, 2);

	(void)state;
	round_trip(table(xrl_tshape_of(24, 3), 64), 2);
	/* A narrow table holds no /128 source: not put, not found. */
	narrow = table(xrl_tshape_of(16, 3), 64);
	assert_int_equal(xrl_state_put(&narrow, &k, &st, NOW), -EINVAL);
	assert_int_equal(xrl_state_get(&narrow, &k, &got), -ENOENT);
	close(narrow.fd);
}

static void test_long_ring_ways_round_trip(void **state)
{
	(void)state;
	round_trip(table(xrl_tshape_of(16, XRL_MAX_CELLS), 64), 0); /* a 60-bucket window: cells, blocks, base */
}

/*
 * A set's 4 ways all holding windows with passes: a fifth key of the set is
 * not carried (-ENOSPC), and the four keep their states. (A way whose
 * window shape is not written for its gen is busy while it holds a pass.)
 */
static void test_ways_full_set(void **state)
{
	struct xrl_states t = table(xrl_tshape_of(16, 3), 8);
	struct xrl_key k[XRL_TABLE_WAYS + 1], c;
	struct xrl_state st, got;
	__u32 i, n = 0;

	(void)state;
	for (i = 0; n < XRL_TABLE_WAYS + 1; i++) {
		c = key_n(i, 0);
		if (xrl_table_set(xrl_key_hash64(&c), t.sets) == 5)
			k[n++] = c;
	}
	for (i = 0; i < XRL_TABLE_WAYS; i++) {
		st = state_n(i, t.cells);
		assert_int_equal(xrl_state_put(&t, &k[i], &st, NOW), 0);
	}
	st = state_n(9, t.cells);
	assert_int_equal(xrl_state_put(&t, &k[XRL_TABLE_WAYS], &st, NOW), -ENOSPC);
	assert_int_equal(xrl_state_get(&t, &k[XRL_TABLE_WAYS], &got), -ENOENT);
	for (i = 0; i < XRL_TABLE_WAYS; i++) {
		st = state_n(i, t.cells);
		assert_int_equal(xrl_state_get(&t, &k[i], &got), 0);
		assert_state_equal(&got, &st, t.cells);
	}
	/* Beside a running program a way is claimed by a program, not from here. */
	assert_int_equal(xrl_state_put_new(&t, &k[XRL_TABLE_WAYS], &st), -EOPNOTSUPP);
	close(t.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_round_trip),	     cmocka_unit_test(test_ways_round_trip),
		cmocka_unit_test(test_wide_ways_round_trip), cmocka_unit_test(test_long_ring_ways_round_trip),
		cmocka_unit_test(test_ways_full_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
