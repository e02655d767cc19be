// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* set update: one named set's prefixes (or ports) replaced, the rest of the rules as they are. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "life/apply.h"
#include "cli.h"

struct set_opts {
	struct xrl_pset ps;	     /* FILE's prefixes, or ports */
	const char *file;	     /* a name for messages */
	char path[XRL_SET_PATH_MAX]; /* FILE resolved; "" for standard input */
};

/* Reads the whole file before anything is opened: a bad line changes nothing. */
static int update_prepare(struct cli_ctx *ctx)
{
	struct set_opts *so = ctx->opts;
	const char *path = ctx->argv[1];
	char err[XRL_ERRLEN], real[PATH_MAX];
	int ret;

	so->file = strcmp(path, "-") ? path : "<stdin>";
	/* Prefixes or ports, as the first line says: the set's kind is known once the rules are read. */
	so->ps.kind = XRL_PSET_ANY;
	/* What apply takes as a set's file, and no other: a FIFO or a device is refused. */
	if (strcmp(path, "-"))
		ret = xrl_set_read_file(&so->ps, path, err, sizeof(err));
	else
		ret = xrl_set_read(&so->ps, stdin, so->file, err, sizeof(err));
	if (ret)
		return cli_fail(EXIT_USAGE, "%s; nothing was changed", err);
	if (strcmp(path, "-") && realpath(path, real) && strlen(real) < sizeof(so->path))
		strcpy(so->path, real);
	return EXIT_OK;
}

/*
 * The rule set in force, read whole, with the set's prefixes replaced and
 * applied again: atomically, as apply is (the rules keep their ids and
 * windows). The set keeps its file when FILE is that file (refreshed in
 * place); from another file or standard input it records none, so that dump
 * and save write its prefixes inline: FILE is often a download that goes
 * (/tmp/abusers.new), and a saved 'set NAME file FILE' would then load
 * nothing.
 */
/* What set update did: the set, where its prefixes came from, and the rules in force. */
struct update_report {
	const char *iface, *name, *file;
	bool own; /* the set's file is the one read: dump and save keep naming it */
	const struct xrl_pset *ps;
	size_t rules;
};

static void update_json(const struct update_report *ur)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:I,s:I}", "interface", ur->iface, "set", ur->name, "file", ur->file,
			      "inline", !ur->own, "prefixes", (json_int_t)ur->ps->n, "rule_count",
			      (json_int_t)ur->rules);

	if (ur->ps->kind == XRL_PSET_PORTS)
		json_object_set_new(o, "port_ranges", json_integer((json_int_t)ur->ps->nports));
	cli_json(o);
}

static void update_plain(const struct update_report *ur)
{
	if (ur->ps->kind == XRL_PSET_PORTS) {
		printf("%s: port set %s now holds the %zu port range%s of %s%s; %zu rule%s in force\n", ur->iface,
		       ur->name, ur->ps->nports, ur->ps->nports == 1 ? "" : "s", ur->file,
		       ur->own ? ", its file" : " (dump and save write them inline: the file may go)", ur->rules,
		       ur->rules == 1 ? "" : "s");
		return;
	}
	printf("%s: set %s now holds the %zu prefix%s of %s%s; %zu rule%s in force\n", ur->iface, ur->name, ur->ps->n,
	       ur->ps->n == 1 ? "" : "es", ur->file,
	       ur->own ? ", its file" : " (dump and save write them inline: the file may go)", ur->rules,
	       ur->rules == 1 ? "" : "s");
}

static int update_run(struct cli_ctx *ctx)
{
	struct set_opts *so = ctx->opts;
	const char *name = ctx->argv[0];
	struct xrl_ruleset set = {};
	struct xrl_pset *ps;
	struct update_report ur;
	char err[XRL_ERRLEN];
	int code, ret;
	bool own;

	code = cli_lock(ctx, false);
	if (code)
		return code;
	ret = xrl_rules_read_full(&ctx->maps, &set);
	if (ret) {
		code = cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", ctx->iface, strerror(-ret));
		goto out;
	}
	ps = xrl_ruleset_set(&set, name);
	if (!ps) {
		code = cli_fail(EXIT_FAIL, "%s has no set '%s': 'xdp-ratelimit dump %s' lists its sets", ctx->iface,
				name, ctx->iface);
		goto out;
	}
	if (so->ps.kind != XRL_PSET_ANY && so->ps.kind != ps->kind) {
		code = cli_fail(
			EXIT_USAGE,
			"set %s holds %s, and %s holds %s: give a file of %s (one %s a line); nothing was changed",
			name, ps->kind == XRL_PSET_PORTS ? "ports" : "prefixes", so->file,
			so->ps.kind == XRL_PSET_PORTS ? "ports" : "prefixes",
			ps->kind == XRL_PSET_PORTS ? "ports" : "prefixes",
			ps->kind == XRL_PSET_PORTS ? "port or range lo-hi" : "prefix");
		goto out;
	}
	free(ps->v);
	free(ps->lines);
	own = so->path[0] && !strcmp(ps->path, so->path);
	if (!own)
		ps->path[0] = '\0';
	ps->v = so->ps.v;
	ps->lines = so->ps.lines;
	ps->n = so->ps.n;
	ps->cap = so->ps.cap;
	ps->nports = so->ps.nports;
	memcpy(ps->ports, so->ps.ports, sizeof(ps->ports));
	memset(&so->ps, 0, sizeof(so->ps));
	if (xrl_ruleset_check_sets(&set, so->file, err, sizeof(err)) ||
	    xrl_rules_apply(&ctx->maps, &set, NULL, err, sizeof(err))) {
		code = cli_fail(EXIT_FAIL, "%s; nothing was changed", err);
		goto out;
	}
	ur = (struct update_report){
		.iface = ctx->iface, .name = name, .file = so->file, .own = own, .ps = ps, .rules = set.n
	};
	if (cli.json)
		update_json(&ur);
	else
		update_plain(&ur);
out:
	xrl_ruleset_free(&set);
	return code;
}

static void update_done(struct cli_ctx *ctx)
{
	struct set_opts *so = ctx->opts;

	free(so->ps.v);
	free(so->ps.lines);
}

static const struct cli_cmd set_update = {
	.name = "update",
	.parent = "set",
	.args = "IFACE NAME FILE|-",
	.summary = "Replaces the prefixes of IFACE's set NAME with FILE's (one prefix a line, '#' a comment; - for\n"
		   "standard input), or a port set's ports (one port or range lo-hi a line), atomically, as apply\n"
		   "does: the rules keep their windows and counters. A file with any bad line changes nothing.\n"
		   "FILE is a regular file, as a set's file in apply. When FILE is the set's own file, the set\n"
		   "keeps it; else dump and save write the set inline.",
	.min_args = 3,
	.max_args = 3,
	.missing = "missing interface, set name or file",
	.flags = CLI_MAPS,
	.prepare = update_prepare,
	.run = update_run,
	.done = update_done,
};

static const struct cli_cmd *const set_subs[] = { &set_update, NULL };

const struct cli_cmd cmd_set = {
	.name = "set",
	.summary =
		"Changes a named set of the rules in force: of prefixes ('set NAME file PATH' or 'set NAME { ... }'\n"
		"in a rules file, used as 'prefix @NAME', 'dst @NAME', 'src @NAME'), or of ports ('set NAME ports\n"
		"{ 80, 8000-8999 }' or 'set NAME ports file PATH', used as 'dport @NAME' or 'sport @NAME').",
	.missing = "missing subcommand: update",
	.opts_size = sizeof(struct set_opts),
	.subs = set_subs,
};
