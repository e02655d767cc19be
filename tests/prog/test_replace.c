// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A replace that moves the rings to other cells (user/lib/life/carry.c), under
 * BPF_PROG_TEST_RUN: the old program's maps pinned as a loaded instance's,
 * the new program planned, loaded and filled from them as replace.c does,
 * then run before the carry finishes, as after the swap; and those that grow
 * the classifier's bitmaps and the rules' maps, the rules of several fields
 * in force judged by the new program. Needs root. A replace under real traffic is in
 * tests/e2e/rings_grow.sh.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "xdp_fixture.h"
#include "life/carry.h"
#include "life/carry_internal.h"
#include "layouts/retired.h"
#include "base/maps.h"
#include "read/stats.h"
#include "match_fixture.h"

/* The old program: rings of 3 cells, as a load of 2-bucket windows sizes them. */
static struct fx fx_old = { .cells = 3 };
/* One with the classifier's bitmaps as a load with few rules of several fields sizes them. */
static struct fx fx_small;
/* One with the bitmaps and the rules' maps as a load of 1000 rules of several fields sizes them. */
static struct fx fx_mid;

/* The instance pinned from fx_old, and the carry to a program of rings of 11 cells. */
static struct {
	char dir[64];
	struct xrl_carry c;
	struct fx n;
	struct fx *old;
	__u32 stride, entries, slots; /* the new program's bitmaps and rules' maps; 0: as the object has them */
	__u32 keys;		      /* the new program's table (--max-keys), and its latches; 0: the fixture's */
} rp;

static int setup(void **state)
{
	memset(&rp, 0, sizeof(rp));
	rp.c.ctl = -1; /* nothing for teardown to close until a carry opens */
	rp.old = &fx_old;
	return fx_setup(state, &fx_old, 0);
}

static int setup_small(void **state)
{
	memset(&rp, 0, sizeof(rp));
	rp.c.ctl = -1;
	rp.old = &fx_small;
	if (!fx_small.loaded) {
		fx_open(&fx_small, XRL_MALPOL_EVASIVE);
		mfx_size(&fx_small, 2, 64, XRL_MATCH_SLOTS_MIN);
		fx_load_opened(&fx_small);
	}
	return fx_setup(state, &fx_small, XRL_MALPOL_EVASIVE);
}

static int setup_mid(void **state)
{
	memset(&rp, 0, sizeof(rp));
	rp.c.ctl = -1;
	rp.old = &fx_mid;
	if (!fx_mid.loaded) {
		fx_open(&fx_mid, XRL_MALPOL_EVASIVE);
		mfx_size(&fx_mid, 17, 4096, 2048);
		fx_load_opened(&fx_mid);
	}
	return fx_setup(state, &fx_mid, XRL_MALPOL_EVASIVE);
}

/* The old program's maps pinned as a load pins them; unpinned by teardown. */
static void pin_old(struct fx *o)
{
	struct xrl_ctl ctl;
	struct bpf_map *map;
	char path[128];
	__u32 zero = 0;

	char err[XRL_ERRLEN] = "";

	/* bpffs mounted as a load mounts it: on a new machine nothing has yet. */
	if (xrl_check_env(err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(rp.dir, sizeof(rp.dir), "/sys/fs/bpf/xrl-test-replace-%d", (int)getpid());
	assert_int_equal(mkdir(rp.dir, 0700), 0);
	bpf_object__for_each_map(map, o->skel->obj)
	{
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", rp.dir, bpf_map__name(map));
		assert_int_equal(bpf_map__pin(map, path), 0);
	}
	assert_int_equal(bpf_map_lookup_elem(o->ctl, &zero, &ctl), 0);
	ctl.layout = XRL_LAYOUT_VERSION;
	ctl.cells = (__u8)o->cells;
	ctl.latch_slots = XRL_LATCH_SLOTS;
	assert_int_equal(bpf_map_update_elem(o->ctl, &zero, &ctl, BPF_ANY), 0);
}

/* The new program of cells cells, carried from the pinned instance up to the swap, its carrier armed. */
static void carry_to(__u32 cells)
{
	char err[XRL_ERRLEN] = "";

	rp.n = (struct fx){ .cells = cells, .max_keys = rp.keys };
	if (xrl_carry_open(&rp.c, rp.dir, "test", err, sizeof(err)))
		fail_msg("carry open: %s", err);
	fx_open(&rp.n, 0);
	assert_non_null(rp.n.skel);
	if (rp.stride)
		mfx_size(&rp.n, rp.stride, rp.entries, rp.slots ?: XRL_MATCH_SLOTS_MIN);
	if (xrl_carry_plan(&rp.c, rp.n.skel->obj, err, sizeof(err)))
		fail_msg("carry plan: %s", err);
	fx_load_opened(&rp.n);
	if (rp.n.err[0])
		fail_msg("%s", rp.n.err);
	if (xrl_carry_fill(&rp.c, err, sizeof(err)))
		fail_msg("carry fill: %s", err);
	if (xrl_carry_arm(&rp.c, err, sizeof(err)))
		fail_msg("carry arm: %s", err);
}

static int teardown(void **state)
{
	struct bpf_map *map;

	xrl_carry_close(&rp.c);
	xdp_ratelimit_bpf__destroy(rp.n.skel);
	rp.n.skel = NULL;
	if (rp.dir[0] && rp.old && rp.old->skel) {
		bpf_object__for_each_map(map, rp.old->skel->obj) if (bpf_map__is_pinned(map)) bpf_map__unpin(map, NULL);
		rmdir(rp.dir);
	}
	rp.dir[0] = 0;
	return fx_teardown(state);
}

static int group_teardown(void **state)
{
	(void)state;
	xdp_ratelimit_bpf__destroy(fx_old.skel);
	xdp_ratelimit_bpf__destroy(fx_small.skel);
	xdp_ratelimit_bpf__destroy(fx_mid.skel);
	return 0;
}

/*
 * A flood's blocks a CPU's latch holds (1 pass, then 5 blocks at T0+100 ms,
 * bucket 2000 of 500 ms) through a replace to a program of cells cells;
 * then the new program's frame of the key, in the same bucket, is over, and
 * the key's window counts every block.
 */
static void carry_latched_blocks(void **state, __u32 cells)
{
	struct fx *o = fx_get(state);
	struct xrl_rule r = rule(o, 1, 1000, 2, XRL_F_PER_SOURCE);
	struct xrl_key k = {};
	struct xrl_maps m;
	struct xrl_sum s;
	struct pkt p;

	need_tick(o);
	put_port(o, XRL_PROTO_UDP, 53, &r);
	udp4(&p, "198.51.100.1", 53);
	set_now(o, T0 + 100 * MS);
	assert_int_equal(run_n(o, &p, 6), 1);
	xrl_key_make(&k, &r, XRL_FAMILY_V4, (const __u8[16]){ 198, 51, 100, 1 }, 53, XRL_PROTO_UDP);
	pin_old(o);
	carry_to(cells);

	/* Swapped: the new program's first frame of the key, in the same bucket, is over. */
	set_now(&rp.n, T0 + 200 * MS);
	assert_int_equal(run(&rp.n, &p), XDP_DROP);
	xrl_carry_finish(&rp.c);

	m = (struct xrl_maps){ .state = rp.n.state, .latches = rp.n.latches, .ncpus = rp.n.ncpus, .cells = cells };
	assert_int_equal(xrl_key_window(&m, &k, &r, T0 + 200 * MS, &s), 0);
	assert_int_equal(s.pass, 1);
	assert_int_equal(s.block, 6);
}

/*
 * The rings grow from 3 cells to 11: the latch names its bucket's cell in
 * the old ring (bucket 2000: cell 2 of 3, cell 9 of 11), where the new
 * program, retiring it, would find no such bucket and drop its blocks.
 */
static void test_grow_keeps_latched_blocks(void **state)
{
	carry_latched_blocks(state, 11);
}

/*
 * load --max-keys 16384 over a table of 4096: the latches too are sized
 * anew (4096 a CPU to 8192), the key's at another slot; the old ones'
 * blocks folded into the states, none lost.
 */
static void test_max_keys_keeps_latched_blocks(void **state)
{
	rp.keys = 16384;
	carry_latched_blocks(state, 3);
	assert_int_not_equal(bpf_map__max_entries(rp.n.skel->maps.xrl_latches),
			     bpf_map__max_entries(rp.old->skel->maps.xrl_latches));
}

/*
 * apply grows the classifier's bitmaps (64 entries of 2 words to 8192 of
 * 17) through a replace: the rules of several fields in force, written in
 * the old maps, are judged by the new program from its first packet, their
 * windows where they were.
 */
static void test_grow_keeps_match_rules(void **state)
{
	struct fx *o = fx_get(state);
	struct mpkt big = { .src = "198.51.100.7",
			    .dst = "203.0.113.1",
			    .proto = XRL_PROTO_UDP,
			    .sport = 53,
			    .dport = 40000,
			    .len = 600 };
	struct xrl_ruleset set;
	struct xrl_match_built mb;
	char err[XRL_ERRLEN];

	mfx_parse(o, "proto udp sport 53 length 512-65535 rate 3/s aggregate\nproto tcp dport 443 rate 1/s\n", &set);
	if (mfx_write(o, &set, &mb, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(mrun(o, &big, 2), 2);
	pin_old(o);
	rp.stride = 17;
	rp.entries = 8192;
	carry_to(XRL_MAX_CELLS);
	assert_int_equal(xrl_carry_map_of(&rp.c, XRL_MAP_LBVS_BITS)->how, XRL_CARRY_ARRAY);
	assert_int_equal(xrl_carry_map_of(&rp.c, XRL_MAP_MATCH_CFGS)->how, XRL_CARRY_KEEP);
	/* The same window: one more of its 3 passes, then blocks. */
	set_now(&rp.n, T0);
	assert_int_equal(mrun(&rp.n, &big, 3), 1);
	xrl_carry_finish(&rp.c);
	assert_int_equal(mrun(&rp.n, &big, 1), 0);
	xrl_match_built_free(&mb);
	xrl_ruleset_free(&set);
}

/* n rules of two fields, a destination port each from 10000, 3 packets a second each. */
static char *port_rules(int n)
{
	char *text = calloc((size_t)n, 64);
	size_t len = 0;
	int i;

	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "proto udp dport %d ttl 1-128 rate 3/s aggregate\n", 10000 + i);
	return text;
}

/* The packet the rule of mb's last bit (the last slot it takes) meets. */
static struct mpkt last_bit_pkt(const struct xrl_ruleset *set, const struct xrl_match_built *mb)
{
	const struct xrl_spec *s = &set->v[mb->spec[mb->b.rule_of[mb->n - 1]]];

	return (struct mpkt){ .src = "198.51.100.7",
			      .dst = "203.0.113.1",
			      .proto = XRL_PROTO_UDP,
			      .sport = 5000,
			      .dport = s->m.dport.r[0].lo,
			      .len = 64 };
}

/*
 * apply grows the rules' maps past 1024 rules a set (2048 slots to 4096)
 * with the bitmaps, through a replace: the 1000 rules in force stay
 * judged, their windows where they were, dump reads them back; the new
 * maps then take 2000 rules in the other set (the old ones could not),
 * judged once it is switched to, a rule past bit 1024 among them.
 */
static void test_grow_rules_past_1024(void **state)
{
	struct fx *o = fx_get(state);
	struct xrl_ruleset set, set2, back = {};
	struct xrl_match_built mb, mb2;
	struct xrl_match_fds mf;
	struct mpkt p, p2;
	struct xrl_ctl ctl;
	char err[XRL_ERRLEN], *text;
	__u32 zero = 0;
	__u8 other;

	text = port_rules(1000);
	mfx_parse(o, text, &set);
	free(text);
	if (mfx_write(o, &set, &mb, err, sizeof(err)))
		fail_msg("%s", err);
	p = last_bit_pkt(&set, &mb);
	assert_int_equal(mrun(o, &p, 2), 2);
	text = port_rules(2000);
	mfx_parse(o, text, &set2);
	free(text);
	assert_int_equal(xrl_match_build(&set2, &mb2, err, sizeof(err)), 0);
	assert_true(xrl_match_slots_for(&mb2) > 2048);
	mf = mfx_fds(o);
	other = !o->set;
	assert_int_equal(xrl_match_write(&mf, other, &set2, &mb2), -ENOSPC);
	pin_old(o);
	rp.stride = xrl_match_stride_for(&mb2);
	rp.entries = xrl_match_entries_for(&mb2);
	rp.slots = xrl_match_slots_for(&mb2);
	carry_to(XRL_MAX_CELLS);
	assert_int_equal(xrl_carry_map_of(&rp.c, XRL_MAP_MATCH_RULES)->how, XRL_CARRY_ARRAY);
	assert_int_equal(xrl_carry_map_of(&rp.c, XRL_MAP_MATCH_SPECS)->how, XRL_CARRY_ARRAY);
	/* The same window: one more of its 3 passes, then blocks. */
	set_now(&rp.n, T0);
	assert_int_equal(mrun(&rp.n, &p, 3), 1);
	xrl_carry_finish(&rp.c);
	mf = mfx_fds(&rp.n);
	assert_int_equal(mf.slots, 4096);
	assert_int_equal(xrl_match_read(&mf, o->set, &back), 0);
	assert_int_equal(back.n, 1000);
	/* The other set, 2000 rules, then the switch to it: the last bit's rule its own window. */
	assert_int_equal(xrl_match_write(&mf, other, &set2, &mb2), 0);
	assert_true(mb2.b.bit_of[mb2.b.rule_of[mb2.n - 1]] >= 1024);
	p2 = last_bit_pkt(&set2, &mb2);
	assert_int_equal(bpf_map_lookup_elem(rp.n.ctl, &zero, &ctl), 0);
	ctl.active_set = other;
	assert_int_equal(bpf_map_update_elem(rp.n.ctl, &zero, &ctl, BPF_ANY), 0);
	assert_int_equal(mrun(&rp.n, &p2, 4), 3);
	assert_int_equal(mrun(&rp.n,
			      &(struct mpkt){ .src = "198.51.100.7",
					      .dst = "203.0.113.1",
					      .proto = XRL_PROTO_UDP,
					      .sport = 5000,
					      .dport = 9999,
					      .len = 64 },
			      4),
			 4);
	xrl_ruleset_free(&back);
	xrl_match_built_free(&mb);
	xrl_match_built_free(&mb2);
	xrl_ruleset_free(&set);
	xrl_ruleset_free(&set2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grow_keeps_latched_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_keys_keeps_latched_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grow_keeps_match_rules, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_grow_rules_past_1024, setup_mid, teardown),
	};

	fx_init();
	return cmocka_run_group_tests_name("replace", tests, NULL, group_teardown);
}
