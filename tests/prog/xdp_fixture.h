/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fixture of the BPF_PROG_TEST_RUN suites (test_xdp.c, test_fuzz_xdp.c):
 * the skeleton loaded with the test clock, maps emptied between tests, rules
 * written straight into the maps, frames run on a chosen CPU, and the
 * counters summed over every CPU. One test binary includes it once: the
 * functions are static inline so that a binary may leave some unused.
 * Include after cmocka.h.
 */
#ifndef XRL_XDP_FIXTURE_H
#define XRL_XDP_FIXTURE_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xrl_common.h"
#include "xrl_key.h"
#include "codec/ports.h"
#include "codec/prefixes.h"
#include "codec/dsts.h"
#include "codec/protos.h"
#include "read/states.h"
#include "xdp_ratelimit.skel.h"
#include "pktbuild.h"

#define MS 1000000ULL
#define SEC_NS (1000 * MS)
/* A base time aligned to every bucket length used here. */
#define T0 (1000 * SEC_NS)

struct fx {
	struct xdp_ratelimit_bpf *skel;
	int prog, port_idx, port_rules, proto_rules, lpm_rules, dsts, state, rule_stats, counters, ctl, latches, sketch,
		fleet, windows;
	struct xrl_lpm_map lm; /* the range structure, mapped */
	/* The prefix and dst rules put in each set, as apply would write them: rebuilt on each put. */
	struct fx_lpm {
		__u8 kind;
		struct xrl_pfx p;
		struct xrl_rule r;
	} lpm[2][64];
	size_t nlpm[2];
	__u32 nports[2]; /* port rules put in each set: the next free slot */
	int ncpus;
	struct xrl_ctl ctl0; /* as loaded */
	__u32 new_keys_cpu;  /* set before the load: the cap on new states; 0, none */
	__u32 sketch_width;  /* set before the load: the sketch's columns; 0, the default */
	__u32 max_keys;	     /* set before the load: the window states' table; 0, 4096 */
	__u32 gso_mtu;	     /* set before the load: generic mode's MTU (xrl_config.gso_mtu); 0, native */
	__u32 features;	     /* set before the load: what the program carries (XRL_FEAT_*); 0, everything */
	/* Set before the load: the rings' cells (xrl_config.cells); 0, XRL_SHORT_CELLS (rule_totals reads those). */
	__u32 cells;
	__u8 set;
	__u32 next_id, next_gen;
	int loaded;
	char skip[160];
	char err[160];
};

static cpu_set_t orig_mask;
/* The CPUs this process may run on: tests drive the program from these. */
static int cpus[CPU_SETSIZE], ncpus_allowed;

static inline int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	/* Rings of fewer cells than their values' BTF describes are made without it (loader.c): expected. */
	if (strstr(fmt, "Retrying without BTF"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * BPF_PROG_TEST_RUN runs XDP on the calling thread's CPU: pin the thread
 * there. (XDP refuses BPF_F_TEST_RUN_ON_CPU with EINVAL, as of 6.18.)
 * i counts the CPUs this process may use, from 0.
 */
static inline void pin(int i)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(cpus[i], &m);
	assert_int_equal(sched_setaffinity(0, sizeof(m), &m), 0);
}

/* The program opened and set for f and the policy, not loaded (fx_load_opened loads it). */
static inline void fx_open(struct fx *f, __u32 malformed)
{
	f->loaded = 1;
	if (geteuid() != 0) {
		snprintf(f->skip, sizeof(f->skip), "needs root to load BPF programs");
		return;
	}
	f->ncpus = libbpf_num_possible_cpus();
	f->skel = xdp_ratelimit_bpf__open();
	if (!f->skel) {
		snprintf(f->err, sizeof(f->err), "open: %s", strerror(errno));
		return;
	}
	f->skel->rodata->xrl_cfg.clock = XRL_CLOCK_TEST;
	f->skel->rodata->xrl_cfg.malformed = malformed;
	f->skel->rodata->xrl_cfg.new_keys_cpu = f->new_keys_cpu;
	f->skel->rodata->xrl_cfg.gso_mtu = f->gso_mtu;
	if (f->features)
		f->skel->rodata->xrl_cfg.features = f->features;
	if (f->sketch_width) {
		f->skel->rodata->xrl_cfg.sketch_width = f->sketch_width;
		bpf_map__set_max_entries(f->skel->maps.xrl_sketch, XRL_SKETCH_DEPTH * f->sketch_width);
	}
	/* As the loader sizes the rings (and the scratch beside them). */
	f->skel->rodata->xrl_cfg.cells = f->cells ?: XRL_SHORT_CELLS;
	bpf_map__set_value_size(f->skel->maps.xrl_state, xrl_state_size(f->skel->rodata->xrl_cfg.cells));
	bpf_map__set_value_size(f->skel->maps.xrl_rule_stats, xrl_rule_stats_size(f->skel->rodata->xrl_cfg.cells));
	bpf_map__set_value_size(f->skel->maps.xrl_scratch, xrl_scratch_size(f->skel->rodata->xrl_cfg.cells));
	/* As the loader's --max-keys does, and the latches for as many keys. */
	bpf_map__set_max_entries(f->skel->maps.xrl_state, f->max_keys ?: 4096);
	f->skel->rodata->xrl_cfg.latch_bits = xrl_latch_bits_for(f->max_keys ?: 4096, f->ncpus);
	bpf_map__set_max_entries(f->skel->maps.xrl_latches, 1U << f->skel->rodata->xrl_cfg.latch_bits);
}

/* f's maps as userspace opens them (base/maps.h), for the readers: the window states and the latches. */
static inline struct xrl_maps fx_maps(const struct fx *f)
{
	return (struct xrl_maps){
		.state = f->state, .latches = f->latches, .ncpus = f->ncpus, .cells = f->cells ?: XRL_SHORT_CELLS
	};
}

/* Key k's window state in f's program, as userspace reads it (read/states.h): 0, else -ENOENT. */
static inline int fx_state(const struct fx *f, const struct xrl_key *k, struct xrl_state *st)
{
	struct xrl_maps m = fx_maps(f);
	struct xrl_states t = xrl_states_of(&m);

	return xrl_state_get(&t, k, st);
}

/* The home of key k's latch (its set's first way to look in: bpf/latch.h) in f's program. */
static inline __u32 fx_latch_home(const struct fx *f, const struct xrl_key *k)
{
	return xrl_latch_home(xrl_key_hash64(k), f->skel->rodata->xrl_cfg.latch_bits);
}

static inline void fx_load_opened(struct fx *f)
{
	__u32 zero = 0;
	int err;

	if (!f->skel)
		return;
	err = xdp_ratelimit_bpf__load(f->skel);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			snprintf(f->skip, sizeof(f->skip), "not allowed to load BPF programs: %s", strerror(-err));
		else
			snprintf(f->err, sizeof(f->err), "load: %s", strerror(-err));
		xdp_ratelimit_bpf__destroy(f->skel);
		f->skel = NULL;
		return;
	}
	f->prog = bpf_program__fd(f->skel->progs.xdp_ratelimit);
	f->port_idx = bpf_map__fd(f->skel->maps.xrl_port_idx);
	f->port_rules = bpf_map__fd(f->skel->maps.xrl_port_rules);
	f->proto_rules = bpf_map__fd(f->skel->maps.xrl_proto_rules);
	f->lpm_rules = bpf_map__fd(f->skel->maps.xrl_lpm_rules);
	f->dsts = bpf_map__fd(f->skel->maps.xrl_dsts);
	if (xrl_lpm_map_open(bpf_map__fd(f->skel->maps.xrl_lpm_dir), bpf_map__fd(f->skel->maps.xrl_lpm_ranges),
			     bpf_map__fd(f->skel->maps.xrl_set_items), &f->lm))
		snprintf(f->err, sizeof(f->err), "mapping the range structure: %s", strerror(errno));
	f->state = bpf_map__fd(f->skel->maps.xrl_state);
	f->rule_stats = bpf_map__fd(f->skel->maps.xrl_rule_stats);
	f->counters = bpf_map__fd(f->skel->maps.xrl_counters);
	f->ctl = bpf_map__fd(f->skel->maps.xrl_ctl);
	f->latches = bpf_map__fd(f->skel->maps.xrl_latches);
	f->sketch = bpf_map__fd(f->skel->maps.xrl_sketch);
	f->fleet = bpf_map__fd(f->skel->maps.xrl_fleet);
	f->windows = bpf_map__fd(f->skel->maps.xrl_windows);
	if (bpf_map_lookup_elem(f->ctl, &zero, &f->ctl0))
		snprintf(f->err, sizeof(f->err), "reading xrl_ctl: %s", strerror(errno));
}

/*
 * Loads the program once per policy: the verifier takes about a second per
 * load, too long to pay for every test. Tests get fresh maps from fx_reset.
 */
static inline void fx_load(struct fx *f, __u32 malformed)
{
	fx_open(f, malformed);
	fx_load_opened(f);
}

/* The kernel's tick in ns, as the program reads it; 0 if unknown (no latches then). */
static inline __u64 fx_tick(struct fx *f)
{
	return f->skel->kconfig->CONFIG_HZ ? 1000000000ULL / f->skel->kconfig->CONFIG_HZ : 0;
}

/* The jiffies the program reads under the test clock. */
static inline void set_jiffies(struct fx *f, __u64 j)
{
	f->skel->bss->xrl_test_jiffies = j;
}

/* Both test clocks: the precise one at ns, the jiffies a tick that holds it would show. */
static inline void set_now(struct fx *f, __u64 ns)
{
	f->skel->bss->xrl_test_now = ns;
	set_jiffies(f, fx_tick(f) ? ns / fx_tick(f) : 0);
}

/* The coarse clock the new-source path reads, apart from the precise one; 0: the precise one's value. */
static inline void set_coarse(struct fx *f, __u64 ns)
{
	f->skel->bss->xrl_test_coarse = ns;
}

/* Deletes every entry of a hash or LPM map. */
static inline int map_clear(int fd)
{
	__u8 key[64];

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return errno == ENOENT ? 0 : -errno;
}

/* Empties every cell of the sketch, in one call. */
static inline int fx_sketch_clear(struct fx *f)
{
	__u32 n = bpf_map__max_entries(f->skel->maps.xrl_sketch), i;
	struct xrl_sketch_cell *cells = calloc(n, sizeof(*cells));
	__u32 *keys = calloc(n, sizeof(*keys));
	int err;

	for (i = 0; keys && i < n; i++)
		keys[i] = i;
	err = cells && keys ? bpf_map_update_batch(f->sketch, keys, cells, &n, NULL) : -ENOMEM;
	free(cells);
	free(keys);
	return err;
}

/* Everything as just loaded: no rules, no state, zero counters, set and clock at their start. */
static inline int fx_reset(struct fx *f)
{
	void *zeros = calloc(f->ncpus, sizeof(struct xrl_rule_stats));
	__u32 id, zero = 0;
	int err = 0;

	if (!zeros)
		return -ENOMEM;
	if (xrl_ports_clear(f->port_idx, f->port_rules, 0) || xrl_ports_clear(f->port_idx, f->port_rules, 1) ||
	    xrl_protos_clear(f->proto_rules, 0) || xrl_protos_clear(f->proto_rules, 1) || map_clear(f->dsts) ||
	    map_clear(f->state))
		err = -1;
	xrl_lpm_clear(&f->lm, 0);
	xrl_lpm_clear(&f->lm, 1);
	f->nlpm[0] = f->nlpm[1] = 0;
	for (id = 0; id < bpf_map__max_entries(f->skel->maps.xrl_latches) && !err; id++)
		err = bpf_map_update_elem(f->latches, &id, zeros, BPF_ANY);
	f->nports[0] = f->nports[1] = 0;
	for (id = 0; id <= f->next_id && !err; id++)
		err = bpf_map_update_elem(f->rule_stats, &id, zeros, BPF_ANY);
	for (id = 0; id <= f->next_id && !err; id++)
		err = bpf_map_update_elem(f->fleet, &id, zeros, BPF_ANY); /* no allowance */
	for (id = 0; id <= f->next_id && !err; id++)
		err = bpf_map_update_elem(f->windows, &id, zeros, BPF_ANY); /* no next window */
	if (!err)
		err = fx_sketch_clear(f);
	if (!err)
		err = bpf_map_update_elem(f->counters, &zero, zeros, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(f->ctl, &zero, &f->ctl0, BPF_ANY);
	free(zeros);
	f->set = f->ctl0.active_set;
	f->next_id = 0;
	f->next_gen = 0;
	set_now(f, T0);
	set_coarse(f, 0);
	return err;
}

static inline int fx_setup(void **state, struct fx *f, __u32 malformed)
{
	if (!f->loaded)
		fx_load(f, malformed);
	*state = f;
	if (f->skip[0] || f->err[0])
		return 0;
	/* One CPU unless a test says otherwise: its windows are then exact. */
	pin(0);
	if (fx_reset(f))
		snprintf(f->err, sizeof(f->err), "cannot reset the maps: %s", strerror(errno));
	return 0;
}

static inline int fx_teardown(void **state)
{
	(void)state;
	sched_setaffinity(0, sizeof(orig_mask), &orig_mask);
	return 0;
}

/* The fixture, or the test is skipped (no root) or failed (the program did not load). */
static inline struct fx *fx_get(void **state)
{
	struct fx *f = *state;

	if (f->skip[0]) {
		print_message("[   SKIP   ] %s\n", f->skip);
		skip();
	}
	if (f->err[0])
		fail_msg("%s", f->err);
	return f;
}

/* Skips the test unless there are at least n CPUs to drive the program from. */
static inline void need_cpus(int n)
{
	if (ncpus_allowed < n) {
		print_message("[   SKIP   ] needs %d CPUs, this process may use %d\n", n, ncpus_allowed);
		skip();
	}
}

/* Latches need the kernel's tick (CONFIG_HZ): a visible skip without it. */
static inline void need_tick(struct fx *f)
{
	if (!fx_tick(f)) {
		print_message("[   SKIP   ] the kernel's CONFIG_HZ is unknown: no latches to test\n");
		skip();
	}
}

/* Runs p once on this CPU; returns the verdict. */
static inline int run(struct fx *f, struct pkt *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len, .repeat = 1);
	int err = bpf_prog_test_run_opts(f->prog, &o);

	if (err)
		fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-err));
	return o.retval;
}

static inline int run_on(struct fx *f, int cpu, struct pkt *p)
{
	pin(cpu);
	return run(f, p);
}

/* Runs p count times; returns how many passed. */
static inline int run_n(struct fx *f, struct pkt *p, int count)
{
	int i, passed = 0;

	for (i = 0; i < count; i++)
		passed += run(f, p) == XDP_PASS;
	return passed;
}

/* A rule of threshold packets per interval_ms in n buckets, with a fresh id and gen. */
static inline struct xrl_rule rule(struct fx *f, __u64 threshold, __u64 interval_ms, __u32 n, __u32 flags)
{
	struct xrl_rule r = {
		.threshold = threshold,
		.interval_ns = interval_ms * MS,
		.rate = threshold,
		.rate_unit_ms = interval_ms,
		.buckets = n,
		.id = ++f->next_id,
		.gen = ++f->next_gen,
		.flags = flags,
		.src_mask4 = 32,
		.src_mask6 = 128,
	};
	return r;
}

/*
 * Makes w rule r's next window after its others, as apply links them
 * (xrl_windows_link): w its own id and gen, r's scope; written in
 * xrl_windows. Put r (again) after its windows.
 */
static inline void add_window(struct fx *f, struct xrl_rule *r, struct xrl_rule *w)
{
	struct xrl_rule last;
	__u32 ix;

	w->flags = (__u16)((r->flags & ~XRL_F_NO_PKT_RATE) | (w->flags & XRL_F_NO_PKT_RATE));
	w->src_mask4 = r->src_mask4;
	w->src_mask6 = r->src_mask6;
	w->next = 0;
	assert_int_equal(bpf_map_update_elem(f->windows, &w->id, w, BPF_ANY), 0);
	if (!r->next) {
		r->next = (__u16)(w->id + 1);
		return;
	}
	for (ix = r->next - 1;; ix = last.next - 1) {
		assert_int_equal(bpf_map_lookup_elem(f->windows, &ix, &last), 0);
		if (!last.next)
			break;
	}
	last.next = (__u16)(w->id + 1);
	assert_int_equal(bpf_map_update_elem(f->windows, &ix, &last, BPF_ANY), 0);
}

/* Marks rule set set as holding rules of a kind (xrl_ctl.kinds), as apply does. */
static inline void set_has(struct fx *f, __u8 set, __u8 kind)
{
	struct xrl_ctl ctl;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(f->ctl, &zero, &ctl), 0);
	ctl.kinds[set & 1] |= kind;
	assert_int_equal(bpf_map_update_elem(f->ctl, &zero, &ctl, BPF_ANY), 0);
}

static inline void put_port(struct fx *f, __u8 proto, __u16 port, const struct xrl_rule *r)
{
	__u32 ix = XRL_PORT_IDX(f->set, proto, port), slot, i;

	/* A port put again keeps its slot: the rule changes in place. */
	assert_int_equal(bpf_map_lookup_elem(f->port_idx, &ix, &slot), 0);
	i = slot ? slot - XRL_PORT_SLOT(f->set, 0) : f->nports[f->set & 1]++;
	assert_int_equal(xrl_port_put(f->port_idx, f->port_rules, f->set, i, proto, port, r), 0);
	set_has(f, f->set, XRL_HAS_PORTS);
}

/* A protocol rule for selector sel (XRL_SEL_* or a protocol number), as apply writes it. */
static inline void put_proto(struct fx *f, __u16 sel, const struct xrl_rule *r)
{
	assert_int_equal(xrl_proto_put(f->proto_rules, f->set, sel, r), 0);
	set_has(f, f->set, XRL_HAS_PROTOS);
}

/* Writes set's prefix and dst rules and their range structure again, as apply does. */
static inline void lpm_rebuild(struct fx *f, __u8 set)
{
	struct xrl_lpm_entry e[64];
	__u64 used = 1;
	size_t i, n;
	__u8 kind;

	xrl_lpm_clear(&f->lm, set);
	for (i = 0; i < f->nlpm[set]; i++) {
		struct xrl_lpm_rule lr = { .r = f->lpm[set][i].r, .kind = f->lpm[set][i].kind, .used = 1 };
		__u32 slot = XRL_LPM_SLOT(set, i);

		memcpy(lr.addr, f->lpm[set][i].p.addr, 16);
		lr.family = f->lpm[set][i].p.family;
		lr.plen = f->lpm[set][i].p.plen;
		assert_int_equal(bpf_map_update_elem(f->lpm_rules, &slot, &lr, BPF_ANY), 0);
	}
	for (kind = 0; kind < 2; kind++) {
		for (i = 0, n = 0; i < f->nlpm[set]; i++)
			if (f->lpm[set][i].kind == kind)
				e[n++] = (struct xrl_lpm_entry){ f->lpm[set][i].p, (__u16)XRL_LPM_SLOT(set, i) };
		assert_int_equal(xrl_lpm_build(&f->lm, kind, set, e, n, &used), 0);
	}
}

/* A prefix or dst rule for addr/plen in set: a prefix put again keeps its slot, the rule changes in place. */
static inline void put_lpm(struct fx *f, __u8 kind, __u8 set, const char *addr, int plen, const struct xrl_rule *r)
{
	struct xrl_pfx p = { .family = strchr(addr, ':') ? XRL_FAMILY_V6 : XRL_FAMILY_V4, .plen = (__u8)plen };
	size_t i;

	set &= 1;
	assert_int_equal(inet_pton(p.family == XRL_FAMILY_V6 ? AF_INET6 : AF_INET, addr, p.addr), 1);
	for (i = 0; i < f->nlpm[set]; i++)
		if (f->lpm[set][i].kind == kind && !memcmp(&f->lpm[set][i].p, &p, sizeof(p)))
			break;
	assert_true(i < 64);
	if (i == f->nlpm[set])
		f->nlpm[set]++;
	f->lpm[set][i] = (struct fx_lpm){ kind, p, *r };
	lpm_rebuild(f, set);
	set_has(f, set, kind == XRL_LPM_SRC ? XRL_HAS_PREFIXES : XRL_HAS_DSTS);
}

static inline void put_prefix_in(struct fx *f, __u8 set, const char *addr, int plen, const struct xrl_rule *r)
{
	put_lpm(f, XRL_LPM_SRC, set, addr, plen, r);
}

static inline void put_prefix(struct fx *f, const char *addr, int plen, const struct xrl_rule *r)
{
	put_prefix_in(f, f->set, addr, plen, r);
}

/*
 * A rule in the dst trie, as apply writes it: a dst rule (proto 0) or a port
 * rule narrowed to addr/plen.
 */
static inline void put_dst_rule(struct fx *f, __u8 proto, __u16 port, const char *addr, int plen,
				const struct xrl_rule *r)
{
	__u8 a[16] = {}, family = strchr(addr, ':') ? XRL_FAMILY_V6 : XRL_FAMILY_V4;
	struct xrl_dst_key k;

	if (!proto) {
		put_lpm(f, XRL_LPM_DST, f->set, addr, plen, r);
		return;
	}
	assert_int_equal(inet_pton(family == XRL_FAMILY_V6 ? AF_INET6 : AF_INET, addr, a), 1);
	xrl_dst_key(&k, f->set, proto, port, family, a, (__u8)plen);
	assert_int_equal(xrl_dst_put(f->dsts, &k, r), 0);
	set_has(f, f->set, proto ? XRL_HAS_PORT_DSTS : XRL_HAS_DSTS);
}

static inline void put_dst(struct fx *f, const char *addr, int plen, const struct xrl_rule *r)
{
	put_dst_rule(f, 0, 0, addr, plen, r);
}

static inline struct xrl_counters counters(struct fx *f)
{
	struct xrl_counters *v = calloc(f->ncpus, sizeof(*v)), sum = {};
	__u64 *d = (__u64 *)&sum;
	__u32 zero = 0;
	int c;
	size_t i;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(f->counters, &zero, v), 0);
	for (c = 0; c < f->ncpus; c++)
		for (i = 0; i < sizeof(sum) / 8; i++)
			d[i] += ((__u64 *)&v[c])[i];
	free(v);
	return sum;
}

struct totals {
	__u64 pass, block;
};

/* A rule's pass and block totals over every CPU. */
/* CPU cpu's value in buf, a per-CPU read of xrl_rule_stats, whose values are sized for the rings' cells. */
static inline struct xrl_rule_stats *fx_rs(struct fx *f, void *buf, int cpu)
{
	size_t stride = (xrl_rule_stats_size(f->skel->rodata->xrl_cfg.cells) + 7) & ~(size_t)7;

	return (struct xrl_rule_stats *)((char *)buf + (size_t)cpu * stride);
}

static inline struct totals rule_totals(struct fx *f, __u32 id)
{
	struct xrl_rule_stats *v = calloc(f->ncpus, sizeof(*v));
	struct totals t = {};
	int c;

	assert_non_null(v);
	assert_int_equal(bpf_map_lookup_elem(f->rule_stats, &id, v), 0);
	for (c = 0; c < f->ncpus; c++) {
		t.pass += fx_rs(f, v, c)->pass;
		t.block += fx_rs(f, v, c)->block;
	}
	free(v);
	return t;
}

#define assert_totals(f, id, p, b)                                                                               \
	do {                                                                                                     \
		struct totals t_ = rule_totals(f, id);                                                           \
		if (t_.pass != (p) || t_.block != (b))                                                           \
			fail_msg("rule %u: pass %llu block %llu, want %d %d", (unsigned)(id),                    \
				 (unsigned long long)t_.pass, (unsigned long long)t_.block, (int)(p), (int)(b)); \
	} while (0)

/* Frames. */

static inline void udp4(struct pkt *p, const char *src, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", 0);
	pkt_push_udp(p, 40000, dport);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

static inline void tcp4(struct pkt *p, const char *src, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv4(p, src, "203.0.113.1", 0);
	pkt_push_tcp(p, 40000, dport);
	pkt_finish(p);
}

static inline void udp6(struct pkt *p, const char *src, __u16 dport)
{
	pkt_init(p);
	pkt_push_eth(p);
	pkt_push_ipv6(p, src, "2001:db8:ffff::1");
	pkt_push_udp(p, 40000, dport);
	pkt_push_data(p, 16);
	pkt_finish(p);
}

/* Before any test: the CPUs this process may use, and libbpf's warnings only. */
static inline void fx_init(void)
{
	int c;

	sched_getaffinity(0, sizeof(orig_mask), &orig_mask);
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &orig_mask))
			cpus[ncpus_allowed++] = c;
	libbpf_set_print(libbpf_quiet);
}

#endif /* XRL_XDP_FIXTURE_H */
