// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rule add|del|list, apply, dump. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "life/apply.h"
#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "cli.h"
#include "render.h"
#include "rules/config.h"
#include "codec/specialise.h"

/* A rule set as dump shows it: its sets first, then its rules, in the grammar. */
static void set_plain(const struct xrl_ruleset *set, bool inline_)
{
	char line[XRL_RULE_TEXT];
	size_t i;

	for (i = 0; i < set->nsets; i++)
		xrl_pset_fprint(stdout, &set->sets[i], inline_);
	for (i = 0; i < set->n; i++) {
		xrl_spec_format(&set->v[i], line, sizeof(line));
		printf("%s\n", line);
	}
}

static void set_json(const char *iface, const struct xrl_ruleset *set)
{
	json_t *arr = json_array(), *sets = json_array();
	size_t i;

	for (i = 0; i < set->nsets; i++)
		json_array_append_new(sets, cli_set_json(&set->sets[i]));
	for (i = 0; i < set->n; i++)
		json_array_append_new(arr, cli_rule_json(&set->v[i]));
	cli_json(json_pack("{s:s,s:o,s:o}", "interface", iface, "rules", arr, "sets", sets));
}

static int print_set(const char *iface, const struct xrl_ruleset *set, bool inline_)
{
	if (cli.json)
		set_json(iface, set);
	else
		set_plain(set, inline_);
	return EXIT_OK;
}

/* Reads the active set of the interface's maps, every set's prefixes included; an exit code on failure. */
static int read_rules(const char *iface, struct xrl_maps *m, struct xrl_ruleset *set)
{
	int ret = xrl_rules_read_full(m, set);

	return ret ? cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", iface, strerror(-ret)) : EXIT_OK;
}

/*
 * A file's load line that asks for other options than the instance has: a
 * note (load options apply at load only), or NULL. note has NOTE_LEN bytes.
 */
#define NOTE_LEN 1024
static const char *load_note(const char *iface, struct xrl_maps *m, const struct xrl_ruleset *set, char *note)
{
	char want[200], have[200];
	struct xrl_ctl ctl;

	if (!set->load.line || xrl_ctl_read(m, &ctl) ||
	    !xrl_load_line_differs(&set->load, &ctl, xrl_maps_max_prefixes(m), want, have, 200))
		return NULL;
	snprintf(note, NOTE_LEN,
		 "the file's load line asks for '%s', %s is loaded with '%s': apply changes rules only; "
		 "'xdp-ratelimit load %s --config FILE' changes both in place, with no gap",
		 want, iface, have, iface);
	return note;
}

/* What an apply did: the interface, what was done, its rules, the program's swap and the notes. */
struct apply_report {
	const char *iface, *what;
	size_t rules;
	const struct xrl_apply_swap *sw;
	const char *note; /* the file's load line differs, or NULL */
};

static void apply_json(const struct apply_report *ar)
{
	const struct xrl_apply_swap *sw = ar->sw;
	json_t *j = json_pack("{s:s,s:s,s:I,s:o,s:I,s:I}", "interface", ar->iface, "result", ar->what, "rule_count",
			      (json_int_t)ar->rules, "features", cli_features_json(sw->after), "program_swaps",
			      (json_int_t)sw->swaps, "prog_id", (json_int_t)sw->prog_id);

	if (ar->note)
		json_object_set_new(j, "note", json_string(ar->note));
	if (sw->note[0])
		json_object_set_new(j, "features_note", json_string(sw->note));
	cli_json(j);
}

static void apply_plain(const struct apply_report *ar)
{
	const struct xrl_apply_swap *sw = ar->sw;
	char feats[128];

	printf("%s: %s; %zu rule%s in force", ar->iface, ar->what, ar->rules, ar->rules == 1 ? "" : "s");
	if (sw->swaps)
		printf("; the program now carries %s (swapped in place, program %u)",
		       xrl_features_format(sw->after, feats, sizeof(feats)), sw->prog_id);
	printf("\n");
	if (ar->note)
		fprintf(stderr, "xdp-ratelimit: note: %s\n", ar->note);
	if (sw->note[0])
		fprintf(stderr, "xdp-ratelimit: note: %s\n", sw->note);
}

static int apply_set(const char *iface, struct xrl_maps *m, struct xrl_ruleset *set, const char *what)
{
	char err[XRL_ERRLEN], buf[NOTE_LEN];
	struct xrl_apply_swap sw;
	struct apply_report ar = { .iface = iface, .what = what, .rules = set->n, .sw = &sw };

	if (xrl_ruleset_not_judged_yet(set, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s; nothing was applied", err);
	ar.note = load_note(iface, m, set, buf);
	if (xrl_rules_apply(m, set, &sw, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (cli.json)
		apply_json(&ar);
	else
		apply_plain(&ar);
	return EXIT_OK;
}

/* rule add and rule del: the rule or match from the words after the interface. */
struct rule_opts {
	struct xrl_spec spec;
};

/*
 * The rule as words, however it was quoted: 'rule add eth0 "port 53/udp rate
 * 1/s"' is the same rule as the unquoted one (a line of a rules file, pasted).
 */
static void rule_words(struct cli_ctx *ctx)
{
	static char buf[2 * XRL_RULE_TEXT];
	static char *words[256];
	size_t off = 0;
	int i, n = 0;

	for (i = 0; i < ctx->argc && !strpbrk(ctx->argv[i], " \t"); i++)
		;
	if (i == ctx->argc)
		return; /* nothing quoted: the words are the arguments */
	for (i = 0; i < ctx->argc; i++) {
		int w = snprintf(buf + off, sizeof(buf) - off, "%s ", ctx->argv[i]);

		if (w < 0 || (size_t)w >= sizeof(buf) - off)
			return; /* too long to be a rule: the parser says what is wrong with it as given */
		off += (size_t)w;
	}
	for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t && n < 255; t = strtok_r(NULL, " \t", &save))
		words[n++] = t;
	words[n] = NULL;
	ctx->argc = n;
	ctx->argv = words;
}

static int rule_prepare(struct cli_ctx *ctx)
{
	struct rule_opts *ro = ctx->opts;
	bool add = ctx->cmd->name[0] == 'a';
	char err[XRL_ERRLEN];
	int words = 0;

	rule_words(ctx);
	if (add ? xrl_spec_parse(ctx->argc, ctx->argv, &ro->spec, err, sizeof(err)) :
		  (words = xrl_spec_match_words(ctx->argc, ctx->argv, &ro->spec, err, sizeof(err))) < 0)
		return cli_usage(ctx->cmd, "%s", err);
	if (!add) {
		/* The match's words only: 2 for 'port 53/udp', 4 for 'port 53/udp dst 192.0.2.0/24'. */
		if (ctx->argc > words)
			return cli_usage(ctx->cmd,
					 "'rule del' takes only the match, like 'port 53/udp': unexpected '%s'",
					 ctx->argv[words]);
	}
	return EXIT_OK;
}

/*
 * rule add/del take the interface's lock around read-modify-apply, so two
 * at once cannot lose each other's change.
 */
static int rule_run(struct cli_ctx *ctx)
{
	const struct xrl_spec *s = &((struct rule_opts *)ctx->opts)->spec;
	bool add = ctx->cmd->name[0] == 'a';
	const char *iface = ctx->iface;
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN], what[XRL_RULE_TEXT + 16], match[XRL_RULE_TEXT];
	int code, idx;

	code = cli_lock(ctx, false);
	if (code)
		return code;
	code = read_rules(iface, &ctx->maps, &set);
	if (code)
		return code;
	xrl_spec_format_match(s, match, sizeof(match));
	idx = xrl_ruleset_find(&set, s);
	if (add) {
		if (idx >= 0) {
			code = cli_fail(
				EXIT_FAIL,
				"%s already has a rule for '%s': delete it first with 'xdp-ratelimit rule del %s %s'",
				iface, match, iface, match);
			goto out;
		}
		/* The sets it names must be in force: 'rule add' adds a rule, not a set. */
		if (xrl_ruleset_spec_sets(&set, s, iface, err, sizeof(err))) {
			code = cli_fail(
				EXIT_USAGE,
				"%s (in a rules file, with 'apply': 'rule add' adds no set); nothing was changed", err);
			goto out;
		}
		if (xrl_ruleset_add(&set, s, err, sizeof(err))) {
			code = cli_fail(EXIT_FAIL, "%s", err);
			goto out;
		}
		memcpy(what, "added ", 6);
		xrl_spec_format(s, what + 6, sizeof(what) - 6);
	} else {
		if (idx < 0) {
			code = cli_fail(EXIT_FAIL, "%s has no rule for '%s': 'xdp-ratelimit dump %s' lists them", iface,
					match, iface);
			goto out;
		}
		/* The others keep their order: dump lists them as they were. */
		memmove(&set.v[idx], &set.v[idx + 1], (set.n - idx - 1) * sizeof(set.v[0]));
		set.n--;
		snprintf(what, sizeof(what), "deleted %s", match);
	}
	code = apply_set(iface, &ctx->maps, &set, what);
out:
	xrl_ruleset_free(&set);
	return code;
}

struct dump_opts {
	bool inline_;
};

static const struct cli_opt dump_opts[] = {
	CLI_OPT(struct dump_opts, inline_, "inline", FLAG, .short_name = 'i',
		.help = "write every set's prefixes inline ('set NAME { ... }'), a set read from a\n"
			"file too (by default: 'set NAME file PATH')"),
	{},
};

static int dump_run(struct cli_ctx *ctx)
{
	const struct dump_opts *o = ctx->opts;
	struct xrl_ruleset set = {};
	int code = read_rules(ctx->iface, &ctx->maps, &set);

	if (!code)
		code = print_set(ctx->iface, &set, o && o->inline_);
	xrl_ruleset_free(&set);
	return code;
}

static int list_run(struct cli_ctx *ctx)
{
	struct xrl_ruleset set = {};
	int code = read_rules(ctx->iface, &ctx->maps, &set);

	if (!code)
		code = print_set(ctx->iface, &set, false);
	xrl_ruleset_free(&set);
	return code;
}

/* rule add and rule del differ in their words only: rule_prepare and rule_run tell them apart by name. */
#define RULE_CHANGE(NAME, WORDS, WHAT, SUMMARY)                                                                       \
	{                                                                                                             \
		.name = NAME, .parent = "rule", .args = "IFACE " WORDS, .summary = SUMMARY, .min_args = 2,            \
		.max_args = -1, .missing = "missing interface and " WHAT, .flags = CLI_MAPS, .prepare = rule_prepare, \
		.run = rule_run                                                                                       \
	}

static const struct cli_cmd rule_add = RULE_CHANGE("add", "RULE", "rule", "Adds one rule.");
static const struct cli_cmd rule_del = RULE_CHANGE("del", "MATCH", "match", "Deletes the rule with this match.");

static const struct cli_cmd rule_list = {
	.name = "list",
	.parent = "rule",
	.summary = "Lists the rules, as dump.",
	CLI_ONE_IFACE(CLI_MAPS | CLI_READS),
	.run = list_run,
};

static const struct cli_cmd *const rule_subs[] = { &rule_add, &rule_del, &rule_list, NULL };

const struct cli_cmd cmd_rule = {
	.name = "rule",
	.summary =
		"Adds, deletes or lists single rules. RULE is one line of the rules grammar (xdp-ratelimit.conf(5)):\n"
		"  port PORT/tcp|udp [dst ADDR/LEN] rate N/s [rate NMbit/s] [window 1s] [buckets 2] [warmup 30s]\n"
		"        [per-source|aggregate [global]] [mask4 N] [mask6 N] [monitor]\n"
		"  prefix ADDR/LEN rate N/s [...as port, mask N for mask4 and mask6]\n"
		"  proto tcp-syn|tcp|udp|icmp [type N]|icmpv6 [type N]|N rate N/s [...as port]\n"
		"  fragments rate N/s [...as port]\n"
		"  dst ADDR/LEN rate N/s [...as port]\n"
		"  prefix ADDR/LEN allow | dst ADDR/LEN allow\n"
		"A rule of several fields, each optional, in any order, matching when they all do (nftables' words):\n"
		"  src|dst [!=] ADDR/LEN|ADDR|@SET    proto tcp|udp|icmp|icmpv6|N\n"
		"  sport|dport [!=] N|LO-HI|{ N, LO-HI, ... }|@SET   (need proto tcp or udp)\n"
		"  tcp flags FLAGS [/ MASK]   (fin,syn,rst,psh,ack,urg,ece,cwr or none; no mask: the flags; implies proto tcp)\n"
		"  icmp|icmpv6 type T [code C]   (numbers or names: echo-request, ...)\n"
		"  length [!=] N|LO-HI|{...}   ttl|hoplimit [!=] N|LO-HI|{...}   dscp [!=] N|ef|af11..af43|cs0..cs7|{...}\n"
		"  frag [!=] none|first|later|{...}   payload OFFSET HEX [/ MASKHEX]   (up to 8 bytes from the transport payload)\n"
		"then rate ... allow ... as above, and what it counts by: per-source (per src), aggregate, per dst,\n"
		"per src,dport or per dst,dport. For example:\n"
		"  proto udp sport 53 length 512-65535 rate 1000/s aggregate\n"
		"  proto tcp tcp flags ack / syn,ack,rst dport 443 rate 200/s per-source\n"
		"  dst 192.0.2.10 proto udp rate 50k/s per src,dport\n"
		"A rules file names sets: 'set NAME { PREFIX, ... }' for src, dst and prefix @NAME, 'set NAME ports\n"
		"{ 80, 443, 8000-8999 }' (up to 128 ranges) for sport and dport @NAME; either as 'file PATH' instead.\n"
		"Every rule a packet meets applies; at most 16 of these a packet (apply refuses a set where one could meet more).\n"
		"A rate is packets (N/s, N/min, N/h; k, M, G) or bytes (bit, Kbit, Mbit, Gbit, B, KB, MB, GB a unit of time);\n"
		"a rule may have one of each over one window. A window has 1 to 60 buckets ('rate 6000/min window 60s\n"
		"buckets 60' is Sentinel's minute window). Several rates of a kind make a rule of several windows, up to 4\n"
		"('rate 20/s rate 600/min', a burst and a sustained rate): each over the window written after it, else\n"
		"its unit's (600/min: 1m) of 2 buckets; a packet passes when every window has room.\n"
		"MATCH is the words before the rate: 'port 53/udp', 'port 53/udp dst 192.0.2.0/24', 'proto icmp type 8',\n"
		"'fragments', 'dst 192.0.2.1', 'prefix 10.0.0.0/8' or 'proto udp sport 53'.",
	.missing = "missing subcommand: add, del or list",
	.opts_size = sizeof(struct rule_opts),
	.subs = rule_subs,
};

struct apply_opts {
	bool check, allow_empty;
	const char *file; /* a name for messages */
	struct xrl_ruleset set;
};

static const struct cli_opt apply_opts[] = {
	CLI_OPT(struct apply_opts, check, "check", FLAG, .short_name = 'c',
		.help = "make every check apply would against IFACE (loaded), change nothing;\n"
			"'xdp-ratelimit lint FILE' checks the grammar alone, with no interface"),
	CLI_OPT(struct apply_opts, allow_empty, "allow-empty", FLAG,
		.help = "apply input with no rule (and no load line), which removes every rule:\n"
			"refused without it, so that a generator that died before writing\n"
			"('gen | xdp-ratelimit apply eth0 -') leaves the rules in force"),
	{},
};

/* Reads and checks the whole file before anything is opened: a bad line changes nothing. */
static int apply_prepare(struct cli_ctx *ctx)
{
	struct apply_opts *ao = ctx->opts;
	const char *path = ctx->argv[0];
	char err[XRL_ERRLEN + 64];
	FILE *f;
	int ret;

	ao->file = strcmp(path, "-") ? path : "<stdin>";
	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		return cli_fail(EXIT_USAGE, "cannot read rules file '%s': %s", path, strerror(errno));
	ret = xrl_ruleset_parse(f, ao->file, &ao->set, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret)
		return cli_fail(EXIT_USAGE, "%s; nothing was applied", err);
	if (ctx->cmd == &cmd_apply &&
	    (xrl_ruleset_not_judged_yet(&ao->set, err, sizeof(err)) || xrl_match_check(&ao->set, err, sizeof(err))))
		return cli_fail(EXIT_FAIL, "%s: %s; nothing was applied", ao->file, err);
	return EXIT_OK;
}

/* A file found valid: by apply --check against iface, or by lint (iface NULL) against the grammar alone. */
static void valid_json(const char *iface, const struct apply_opts *ao)
{
	json_t *j = json_object();

	if (iface)
		json_object_set_new(j, "interface", json_string(iface));
	json_object_update_new(j, json_pack("{s:s,s:b,s:I}", "file", ao->file, "valid", 1, "rule_count",
					    (json_int_t)ao->set.n));
	cli_json(j);
}

static void valid_plain(const char *iface, const struct apply_opts *ao)
{
	if (iface)
		printf("%s: %zu rule%s, all valid for %s: apply would replace its set\n", ao->file, ao->set.n,
		       ao->set.n == 1 ? "" : "s", iface);
	else
		printf("%s: %zu rule%s, grammar valid (no interface checked)\n", ao->file, ao->set.n,
		       ao->set.n == 1 ? "" : "s");
}

static void print_valid(const char *iface, const struct apply_opts *ao)
{
	if (cli.json)
		valid_json(iface, ao);
	else
		valid_plain(iface, ao);
}

static int apply_run(struct cli_ctx *ctx)
{
	struct apply_opts *ao = ctx->opts;
	char err[XRL_ERRLEN];
	int code = EXIT_OK;

	if (!ao->set.n && !ao->set.load.line && !ao->allow_empty)
		return cli_usage(ctx->cmd,
				 "%s holds no rule: applying it would remove every rule from %s; nothing was applied "
				 "(to remove them all, say so: 'xdp-ratelimit apply %s %s --allow-empty')",
				 ao->file, ctx->iface, ctx->iface, ctx->argv[0]);
	if (ao->check) {
		if (xrl_rules_check(&ctx->maps, &ao->set, err, sizeof(err)))
			code = cli_fail(EXIT_FAIL, "%s: %s", ao->file, err);
		else
			print_valid(ctx->iface, ao);
	} else {
		code = apply_set(ctx->iface, &ctx->maps, &ao->set,
				 strcmp(ctx->argv[0], "-") ? "applied the file" : "applied standard input");
	}
	return code;
}

/* apply's and lint's: the rule set apply_prepare read, whatever happened after. */
static void apply_done(struct cli_ctx *ctx)
{
	struct apply_opts *ao = ctx->opts;

	xrl_ruleset_free(&ao->set);
}

const struct cli_cmd cmd_apply = {
	.name = "apply",
	.args = "IFACE FILE|-",
	.summary =
		"Replaces IFACE's whole rule set with FILE's (- for standard input), atomically: packets see the old set\n"
		"or the new one. One rule a line, as 'rule add' takes it; '#' starts a comment. A file with any bad line\n"
		"is refused whole.",
	.min_args = 2,
	.max_args = 2,
	.missing = "missing interface or file",
	.flags = CLI_MAPS,
	.opts = apply_opts,
	.opts_size = sizeof(struct apply_opts),
	.prepare = apply_prepare,
	.run = apply_run,
	.done = apply_done,
};

/* lint: valid, with what it warns about (a rule no packet reaches, one another makes redundant). */
static int lint_run(struct cli_ctx *ctx)
{
	struct apply_opts *ao = ctx->opts;
	struct xrl_lint_warn *w = NULL;
	int n = xrl_ruleset_lint(&ao->set, &w), i;

	if (n < 0)
		return cli_fail(EXIT_FAIL, "%s: out of memory", ao->file);
	if (cli.json) {
		json_t *arr = json_array(), *rules = json_array();
		size_t k;

		for (i = 0; i < n; i++)
			json_array_append_new(arr, json_pack("{s:i,s:s}", "line", w[i].line, "warning", w[i].msg));
		for (k = 0; k < ao->set.n; k++)
			json_array_append_new(rules, cli_rule_json(&ao->set.v[k]));
		cli_json(json_pack("{s:s,s:b,s:I,s:o,s:o}", "file", ao->file, "valid", 1, "rule_count",
				   (json_int_t)ao->set.n, "warnings", arr, "rules", rules));
	} else {
		for (i = 0; i < n; i++)
			fprintf(stderr, "xdp-ratelimit: warning: %s:%d: %s\n", ao->file, w[i].line, w[i].msg);
		print_valid(NULL, ao);
	}
	free(w);
	return EXIT_OK;
}

const struct cli_cmd cmd_lint = {
	.name = "lint",
	.args = "FILE|-",
	.summary = "Checks a rules file's grammar and limits only, against no interface (for rule files in CI);\n"
		   "'apply IFACE FILE --check' makes every check apply would against a loaded interface.",
	.min_args = 1,
	.max_args = 1,
	.missing = "missing file",
	.opts_size = sizeof(struct apply_opts),
	.prepare = apply_prepare,
	.run = lint_run,
	.done = apply_done,
};

const struct cli_cmd cmd_dump = {
	.name = "dump",
	.summary =
		"Prints IFACE's rules in the rules grammar, their sets first: 'dump IFACE | apply IFACE -' round-trips.",
	CLI_ONE_IFACE(CLI_MAPS | CLI_READS),
	.opts = dump_opts,
	.opts_size = sizeof(struct dump_opts),
	.run = dump_run,
};
