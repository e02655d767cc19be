// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * classifiers [-r RUNS] [-s SPFAC]: issue 34's classifiers side by side, by
 * BPF_PROG_TEST_RUN on one CPU (tests/prog/cls_alt.bpf.c): LBVS as the
 * product runs it (include/xrl_lbvs.h), a linear scan of the rules and a
 * HiCuts tree (tests/prog/cls_tree.h), on the same rule sets and packets. Sets of
 * 16, 1000 and 16,384 rules: a destination port each (as bench/run.sh's
 * match rows), and random rules of every field with ranges
 * (tests/unit/lbvs_ref.h). For each: ns a packet for packets meeting a rule
 * and random ones (the median of RUNS runs, 3 by default, each about 50 ms,
 * 256 packets in turn), build time, the maps' bytes and the verifier's
 * instructions. SPFAC: the tree's space factor (tests/prog/cls_tree.h).
 * Needs root; bench/classifiers.sh runs it for make bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* lbvs_ref.h is the tests' (cmocka's asserts): here a failure ends the run. */
#define assert_non_null(p)                                                                     \
	do {                                                                                   \
		if (!(p)) {                                                                    \
			fprintf(stderr, "classifiers: out of memory at line %d.\n", __LINE__); \
			exit(1);                                                               \
		}                                                                              \
	} while (0)
#define fail_msg(...)                                           \
	do {                                                    \
		fprintf(stderr, "classifiers: wrong result: "); \
		fprintf(stderr, __VA_ARGS__);                   \
		fprintf(stderr, "\n");                          \
		exit(1);                                        \
	} while (0)

#include "base/err.h"
#include "unit/lbvs_ref.h"
#include "prog/cls_tree.h"
#include "prog/cls_load.h"

#define TARGET_NS 50000000ULL /* a run */
#define MAX_RUNS 15

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "classifiers: %s: %s.\n", what, strerror(-err));
	exit(1);
}

/* The median ns a packet of kind (-1: the floor) on the packets loaded, over runs runs. */
static __u32 measure(struct cls_loaded *l, int kind, int runs)
{
	__u32 ns[MAX_RUNS], one = 0, repeat;
	int i, err;

	err = cls_run(l, kind, CLS_PKTS, &one, NULL);
	if (err)
		die("BPF_PROG_TEST_RUN", err);
	repeat = (__u32)(TARGET_NS / (one ? one : 1));
	repeat = repeat < CLS_PKTS ? CLS_PKTS : repeat > (1U << 22) ? 1U << 22 : repeat / CLS_PKTS * CLS_PKTS;
	for (i = 0; i < runs; i++) {
		err = cls_run(l, kind, repeat, &ns[i], NULL);
		if (err)
			die("BPF_PROG_TEST_RUN", err);
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_u32);
	return ns[runs / 2];
}

static void bytes(char *buf, size_t len, __u64 b)
{
	if (b >= 10ULL << 20)
		snprintf(buf, len, "%.0f MB", b / 1048576.0);
	else if (b >= 1ULL << 20)
		snprintf(buf, len, "%.1f MB", b / 1048576.0);
	else
		snprintf(buf, len, "%.1f KB", b / 1024.0);
}

/* One set's rows: built three ways, loaded, timed on packets meeting a rule and random ones. */
static void rows(const char *label, const struct ref_set *s, int dport, int runs, __u32 spfac)
{
	struct xrl_lbvs_pkt met[CLS_PKTS], rnd[CLS_PKTS];
	struct xrl_lbvs_set b;
	struct cls_rule *rules;
	struct cls_tree t;
	struct cls_loaded l;
	char err[XRL_ERRLEN], mem[CLS_KINDS][32];
	double t0, ms[CLS_KINDS];
	__u32 ns_met[CLS_KINDS], ns_rnd[CLS_KINDS], floor, i;
	int k, e;

	t0 = now_ms();
	e = xrl_lbvs_build(&b, s->in, s->n, err, sizeof(err));
	ms[CLS_LBVS] = now_ms() - t0;
	if (e) {
		fprintf(stderr, "classifiers: %s\n", err);
		exit(1);
	}
	t0 = now_ms();
	rules = cls_rules_build(s, &b);
	ms[CLS_SCAN] = now_ms() - t0;
	assert_non_null(rules);
	t0 = now_ms();
	e = cls_tree_build(&t, s, &b, spfac);
	ms[CLS_TREE] = now_ms() - t0 + ms[CLS_SCAN]; /* its leaves check the scan's rules */
	if (e)
		die("the tree", e);
	e = cls_load(&l, &b, rules, s->n, &t);
	if (e)
		die("loading tests/prog/cls_alt.bpf.c", e);
	bytes(mem[CLS_LBVS], sizeof(mem[0]), xrl_lbvs_bytes(&b.t));
	bytes(mem[CLS_SCAN], sizeof(mem[0]), cls_array_bytes(sizeof(*rules), s->n));
	bytes(mem[CLS_TREE], sizeof(mem[0]),
	      cls_array_bytes(sizeof(*rules), s->n) + cls_array_bytes(sizeof(struct cls_node), t.nnodes) +
		      cls_array_bytes(sizeof(__u32), t.nleaf));
	for (i = 0; i < CLS_PKTS; i++) {
		if (dport) {
			cls_dport_pkt(&met[i], 9 + ref_rnd(s->n));
			cls_dport_pkt(&rnd[i], ref_rnd(65536));
		} else {
			ref_pkt_planted(s, ref_rnd(s->n), &met[i]);
			ref_pkt_random(s, &rnd[i]);
		}
	}
	/* Each classifier's result on each packet, first: what is timed classifies as the reference. */
	for (i = 0; i < 2 * CLS_PKTS; i++) {
		const struct xrl_lbvs_pkt *pk = i < CLS_PKTS ? &met[i] : &rnd[i - CLS_PKTS];
		struct cls_out o;

		if ((e = cls_set_pkts(&l, pk, 1)))
			die("the packets", e);
		for (k = 0; k < CLS_KINDS; k++) {
			if ((e = cls_run(&l, k, 1, NULL, &o)))
				die("BPF_PROG_TEST_RUN", e);
			ref_check(s, &b, pk, &o.res, cls_kind_name[k]);
		}
	}
	if ((e = cls_set_pkts(&l, met, CLS_PKTS)))
		die("the packets", e);
	floor = measure(&l, -1, runs);
	for (k = 0; k < CLS_KINDS; k++)
		ns_met[k] = measure(&l, k, runs);
	if ((e = cls_set_pkts(&l, rnd, CLS_PKTS)))
		die("the packets", e);
	for (k = 0; k < CLS_KINDS; k++)
		ns_rnd[k] = measure(&l, k, runs);
	for (k = 0; k < CLS_KINDS; k++)
		printf("%-24s %-6s %8d %8d %10.1f %9s %8u\n", k ? "" : label, cls_kind_name[k],
		       (int)ns_met[k] - (int)floor, (int)ns_rnd[k] - (int)floor, ms[k], mem[k], l.verified[k]);
	printf("%-24s (floor %u ns; tree: %u nodes, %llu leaf entries, depth %u, largest leaf %u%s)\n", "", floor,
	       t.nnodes, (unsigned long long)t.nleaf, t.depth, t.maxleaf, t.capped ? ", capped" : "");
	fflush(stdout);
	cls_unload(&l);
	cls_tree_free(&t);
	free(rules);
	xrl_lbvs_free(&b);
}

int main(int argc, char **argv)
{
	static const __u32 sizes[] = { 16, 1000, 16384 };
	struct ref_set s;
	char label[64];
	cpu_set_t cpus;
	int runs = 3, c, cpu;
	__u32 spfac = CLS_SPFAC;
	size_t i;

	while ((c = getopt(argc, argv, "r:s:h")) != -1) {
		if (c == 'r' && atoi(optarg) >= 1 && atoi(optarg) <= MAX_RUNS) {
			runs = atoi(optarg);
			continue;
		}
		if (c == 's' && atoi(optarg) >= 1 && atoi(optarg) <= 64) {
			spfac = (__u32)atoi(optarg);
			continue;
		}
		fprintf(stderr,
			"usage: classifiers [-r RUNS] [-s SPFAC]: RUNS from 1 to %d (3), the tree's space factor from 1 to 64 (%d)\n",
			MAX_RUNS, CLS_SPFAC);
		return c == 'h' ? 0 : 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "classifiers: needs root to load BPF programs: run it with sudo.\n");
		return 1;
	}
	/* One CPU: the test runs run where the caller does. */
	cpu = sched_getcpu();
	CPU_ZERO(&cpus);
	CPU_SET(cpu < 0 ? 0 : cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("classifiers: sched_setaffinity");
		return 1;
	}
	printf("Classifiers by BPF_PROG_TEST_RUN on CPU %d, ns a packet over the floor (the median of %d runs of\n"
	       "256 packets in turn), for packets meeting one rule (\"met\") and random ones; build in ms; the maps'\n"
	       "bytes (the tree's include the rules it checks); the verifier's instructions. The tree: HiCuts, space\n"
	       "factor %u.\n\n",
	       cpu, runs, spfac);
	printf("%-24s %-6s %8s %8s %10s %9s %8s\n", "rules", "", "met", "random", "build ms", "memory", "verifier");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (cls_dport_set(&s, sizes[i]))
			die("the rules", -ENOMEM);
		snprintf(label, sizeof(label), "%u, a dport each", sizes[i]);
		rows(label, &s, 1, runs, spfac);
		ref_set_free(&s);
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ref_set_gen(&s, sizes[i], (1U << XRL_LBVS_FIELDS) - 1, 16 + sizes[i] / 8, 75);
		snprintf(label, sizeof(label), "%u random, 9 fields", sizes[i]);
		rows(label, &s, 0, runs, spfac);
		ref_set_free(&s);
	}
	return 0;
}
