// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* memory: what the maps will take, for this machine or another. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "base/memory.h"
#include "xrl_lpm.h"

struct memory_opts {
	__u32 cpus, max_keys, prefixes, dsts, sketch_width, buckets, rules;
};

static const struct cli_opt memory_opts[] = {
	CLI_OPT(struct memory_opts, cpus, "cpus", UINT, .arg = "N", .min = 1, .max = 8192, .what = "a CPU count",
		.help = "possible CPUs of the machine (default: this one's)"),
	CLI_OPT(struct memory_opts, max_keys, "max-keys", UINT, .short_name = 'k', .arg = "N", .min = 16,
		.max = 16777216, .what = "a key count", .help = "window states kept, as load takes it; default 65536"),
	CLI_OPT(struct memory_opts, prefixes, "prefixes", UINT, .arg = "N", .min = XRL_PREFIXES_MIN,
		.max = XRL_PREFIXES_MAX, .what = "a prefix count",
		.help = "prefixes of the prefix and dst rules, sets included, as load --max-prefixes\n"
			"takes it; default 65536"),
	CLI_OPT(struct memory_opts, dsts, "dsts", UINT, .arg = "N", .min = 0, .max = 2 * XRL_MAX_RULES,
		.what = "a rule count",
		.help = "port rules narrowed to a destination, in their trie (both rule sets); default 0"),
	CLI_OPT(struct memory_opts, sketch_width, "sketch-width", UINT, .short_name = 'w', .arg = "N",
		.min = XRL_SKETCH_MIN_WIDTH, .max = XRL_SKETCH_MAX_WIDTH, .what = "a sketch width",
		.help = "the sketch's columns, as load takes it (a power of 2); default 65536"),
	CLI_OPT(struct memory_opts, buckets, "buckets", UINT, .arg = "N", .min = 1, .max = XRL_MAX_BUCKETS,
		.what = "a bucket count",
		.help = "the most buckets a window of the rules has, up to 60 (a ring keeps one more,\n"
			"and a long window, of more than 16, the sum of its older buckets); default 2"),
	CLI_OPT(struct memory_opts, rules, "rules", UINT, .arg = "N", .min = 0, .max = XRL_MAX_RULE_IDS / 2,
		.what = "a rule count",
		.help = "rules in force: their counter slots are sized for twice as many, 256 at least;\n"
			"default 0"),
	{},
};

static void memory_plain(const struct memory_opts *o, int ncpus, const struct xrl_mem *mem)
{
	size_t i;

	printf("%d possible CPUs, %u keys, %u prefixes, %u narrowed port rules, a sketch %u wide, windows of up to %u buckets:\n",
	       ncpus, o->max_keys, o->prefixes, o->dsts, o->sketch_width, o->buckets);
	for (i = 0; i < mem->n; i++)
		printf("  %-16s %12llu bytes\n", mem->map[i].name, (unsigned long long)mem->map[i].bytes);
	printf("  %-16s %12llu bytes (%.1f MiB); %.0f bytes a key\n", "total", (unsigned long long)mem->total,
	       (double)mem->total / (1024.0 * 1024.0), mem->per_key);
}

static void memory_json(const struct memory_opts *o, int ncpus, const struct xrl_mem *mem)
{
	json_t *maps = json_object();
	size_t i;

	for (i = 0; i < mem->n; i++)
		json_object_set_new(maps, mem->map[i].name, json_integer((json_int_t)mem->map[i].bytes));
	cli_json(json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I,s:I,s:I,s:I}", "cpus", ncpus, "max_keys",
			   (json_int_t)o->max_keys, "prefixes", (json_int_t)o->prefixes, "dsts", (json_int_t)o->dsts,
			   "sketch_width", (json_int_t)o->sketch_width, "buckets", (json_int_t)o->buckets, "rules",
			   (json_int_t)o->rules, "maps", maps, "total_bytes", (json_int_t)mem->total, "state_bytes",
			   (json_int_t)mem->state, "bytes_per_key", (json_int_t)mem->per_key, "sketch_bytes",
			   (json_int_t)mem->sketch));
}

static int memory_run(struct cli_ctx *ctx)
{
	const struct memory_opts *o = ctx->opts;
	int ncpus = o->cpus ? (int)o->cpus : libbpf_num_possible_cpus();
	char err[XRL_ERRLEN];
	struct xrl_mem mem;

	if (xrl_sketch_width_check(o->sketch_width, err, sizeof(err)))
		return cli_usage(ctx->cmd, "%s", err);
	if (ncpus <= 0)
		return cli_fail(EXIT_FAIL, "cannot count this machine's possible CPUs: give --cpus N");
	if (xrl_memory(ncpus, o->max_keys, o->prefixes, o->dsts, o->sketch_width, xrl_cells_for(o->buckets),
		       xrl_rule_ids_for(o->rules), &mem, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		memory_json(o, ncpus, &mem);
	else
		memory_plain(o, ncpus, &mem);
	return EXIT_OK;
}

static const struct memory_opts memory_defaults = { .max_keys = XRL_DEFAULT_KEYS,
						    .buckets = 2,
						    .prefixes = XRL_PREFIXES_DEFAULT,
						    .sketch_width = XRL_SKETCH_DEFAULT_WIDTH };

const struct cli_cmd cmd_memory = {
	.name = "memory",
	.summary = "What the maps of one interface take in kernel memory, as the kernel counts it, for this machine\n"
		   "or one with --cpus possible CPUs: computed from the maps' definitions, nothing is loaded.",
	.opts = memory_opts,
	.opts_size = sizeof(struct memory_opts),
	.defaults = &memory_defaults,
	.run = memory_run,
};
