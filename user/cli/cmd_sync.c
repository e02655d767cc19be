// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sync: the agent that shares global rules' limits across a fleet through Redis. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "render.h"
#include "fleet/agent.h"
#include "read/limit.h"

struct sync_opts {
	const char *redis, *node, *password_file;
	__u32 interval, on_loss, count;
	/* parsed */
	char host[256];
	int port;
};

static const struct cli_enum loss_names[] = {
	{ "local", XRL_FLEET_LOCAL },
	{ "last", XRL_FLEET_LAST },
	{ "open", XRL_FLEET_OPEN },
	{ NULL },
};

static const struct cli_opt sync_opts[] = {
	CLI_OPT(struct sync_opts, redis, "redis", STRING, .arg = "HOST:PORT", .required = true,
		.help = "the Redis server (or a Redis Cluster's node) the fleet shares"),
	CLI_OPT(struct sync_opts, node, "node", STRING, .arg = "NAME",
		.help = "this node's name in the fleet (default: the host name); letters, digits, . _ -"),
	CLI_OPT(struct sync_opts, interval, "interval", UINT, .arg = "MS", .min = 10, .max = 60000,
		.what = "a number of milliseconds",
		.help = "sync every MS milliseconds (default: every bucket of the shortest global rule)"),
	CLI_OPT(struct sync_opts, on_loss, "on-redis-loss", ENUM, .values = loss_names, .what = "a policy",
		.help = "when Redis is unreachable for 3 intervals: local (the limit / the nodes last seen,\n"
			"the default), last (keep the last allowance) or open (the whole limit)"),
	CLI_OPT(struct sync_opts, password_file, "redis-password-file", STRING, .arg = "FILE",
		.help = "Redis's password, the file's first line (else $REDISCLI_AUTH or $XRL_REDIS_PASSWORD)"),
	CLI_OPT(struct sync_opts, count, "count", UINT, .short_name = 'n', .arg = "N", .min = 1, .max = 1000000,
		.what = "a count", .help = "stop after N syncs (default: until interrupted)"),
	{},
};

static int sync_prepare(struct cli_ctx *ctx)
{
	struct sync_opts *o = ctx->opts;
	const char *colon, *h = o->redis, *c;
	char err[XRL_ERRLEN], *end;
	size_t hl;
	long port;
	int i;

	/* A URL or user:password@host carries a secret: never echoed, in this message or any later one. */
	if (strchr(h, '@') || strstr(h, "://"))
		return cli_usage(
			ctx->cmd,
			"--redis takes HOST:PORT only, with no user, password or scheme (the value is not shown: it may hold a password); give the password with --redis-password-file FILE or REDISCLI_AUTH");
	colon = strrchr(h, ':');
	if (h[0] == '[') { /* [IPv6]:PORT */
		const char *close = strchr(h, ']');

		if (!close || close[1] != ':')
			colon = NULL;
		h++;
		hl = close ? (size_t)(close - h) : 0;
	} else {
		hl = colon ? (size_t)(colon - h) : 0;
	}
	errno = 0;
	port = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || !hl || hl >= sizeof(o->host) || !isdigit((unsigned char)colon[1]) || *end || errno || port < 1 ||
	    port > 65535)
		return cli_usage(ctx->cmd, "--redis '%s' is not HOST:PORT: expected like 127.0.0.1:6379 or [::1]:6379",
				 o->redis);
	memcpy(o->host, h, hl);
	o->host[hl] = '\0';
	o->port = (int)port;
	if (o->node) {
		if (!o->node[0] || strlen(o->node) > 48)
			return cli_usage(ctx->cmd, "--node '%s' must be 1 to 48 characters", o->node);
		for (c = o->node; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
				return cli_usage(
					ctx->cmd,
					"--node '%s' has '%c': a node's name has letters, digits, '.', '_' and '-'",
					o->node, *c);
	}
	for (i = 0; i < ctx->argc; i++)
		if (xrl_iface_check(ctx->argv[i], err, sizeof(err)))
			return cli_usage(ctx->cmd, "%s", err);
	return EXIT_OK;
}

/* A rule's line when its policy or node count changes (why: start, policy or nodes), in JSON and in text. */
static void event_json(const struct xrl_agent_rule *r, const char *why, const char *ts)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:o,s:s,s:s,s:I,s:I,s:i,s:I,s:I}", "timestamp", ts, "event", why,
			      "interface", r->iface, "rule", cli_rule_json(&r->spec), "key_tag", r->tag, "policy",
			      xrl_policy_name(r->f.policy), "allowance", (json_int_t)xrl_limit(&r->spec.r, &r->f),
			      "limit", (json_int_t)r->spec.r.threshold, "nodes", (int)r->f.nodes, "sync_failures",
			      (json_int_t)r->f.failures, "demand", (json_int_t)r->demand);

	if (r->err[0])
		json_object_set_new(o, "error", json_string(r->err));
	cli_json(o);
}

static void event_plain(const struct xrl_agent_rule *r, const char *ts)
{
	char line[256];

	xrl_spec_format(&r->spec, line, sizeof(line));
	printf("%s %s: %s: %s, %u node%s, allowance %llu of %llu a window%s%s\n", ts, r->iface, line,
	       xrl_policy_name(r->f.policy), r->f.nodes, r->f.nodes == 1 ? "" : "s",
	       (unsigned long long)xrl_limit(&r->spec.r, &r->f), (unsigned long long)r->spec.r.threshold,
	       r->err[0] ? "; " : "", r->err);
}

static void print_event(const struct xrl_agent_rule *r, const char *why)
{
	char ts[40];

	cli_timestamp(ts, sizeof(ts));
	if (cli.json)
		event_json(r, why, ts);
	else
		event_plain(r, ts);
	fflush(stdout);
}

/* The cycle's first error, said once until it changes. */
static void print_error(const char *err)
{
	if (cli.json)
		cli_json(json_pack("{s:s,s:s}", "event", "error", "error", err));
	else
		fprintf(stderr, "xdp-ratelimit: %s\n", err);
}

static int sync_run(struct cli_ctx *ctx)
{
	const struct sync_opts *o = ctx->opts;
	struct xrl_agent_opts ao = { .interval_ms = o->interval, .on_loss = o->on_loss };
	char err[XRL_ERRLEN], pw[512], host[64], last_err[XRL_ERRLEN] = "";
	const struct xrl_agent_rule *rules;
	struct xrl_redis *redis = NULL;
	struct xrl_agent *agent = NULL;
	struct timespec next;
	int have_pw, ret, wait_ms, code = EXIT_OK;
	size_t n, i;
	__u32 done;

	if (xrl_check_env(err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (xrl_redis_password(o->password_file, pw, sizeof(pw), &have_pw, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (!o->node) {
		if (gethostname(host, sizeof(host) - 1))
			snprintf(host, sizeof(host), "node");
		host[sizeof(host) - 1] = '\0';
		ao.node = host;
	} else {
		ao.node = o->node;
	}
	/* Waiting for Redis longer than an interval would stretch the 3 intervals before a fallback. */
	wait_ms = o->interval ? (int)o->interval : 500;
	wait_ms = wait_ms < 50 ? 50 : wait_ms > 1000 ? 1000 : wait_ms;
	if (xrl_redis_new(&redis, o->host, o->port, have_pw ? pw : NULL, wait_ms, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	memset(pw, 0, sizeof(pw));
	if (xrl_agent_new(&agent, redis, ctx->argv, ctx->argc, &ao)) {
		xrl_redis_free(redis);
		return cli_fail(EXIT_FAIL, "out of memory");
	}
	signal(SIGINT, cli_on_stop);
	signal(SIGTERM, cli_on_stop);
	signal(SIGPIPE, SIG_IGN);
	cli.ndjson = true;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (done = 0; !cli_stopped && (!o->count || done < o->count); done++) {
		__u32 interval;

		ret = xrl_agent_cycle(agent, &rules, &n, &interval, err, sizeof(err));
		/* The first error of the cycle (an interface, else a rule's sync), said once until it changes. */
		for (i = 0; !ret && i < n; i++)
			if (rules[i].err[0]) {
				snprintf(err, sizeof(err), "%s", rules[i].err);
				ret = -EIO;
			}
		if (ret && strcmp(err, last_err))
			print_error(err);
		snprintf(last_err, sizeof(last_err), "%s", ret ? err : "");
		for (i = 0; i < n; i++) {
			const struct xrl_agent_rule *r = &rules[i];

			if (r->f.policy != r->prev_policy)
				print_event(r, r->prev_policy == XRL_FLEET_NONE ? "start" : "policy");
			else if (r->f.nodes != r->prev_nodes && r->f.policy == XRL_FLEET_SHARED)
				print_event(r, "nodes");
		}
		next.tv_nsec += (long)(interval % 1000) * 1000000L;
		next.tv_sec += interval / 1000 + next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		if (!o->count || done + 1 < o->count)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	xrl_agent_free(agent);
	xrl_redis_free(redis);
	return code;
}

static const struct sync_opts sync_defaults = { .on_loss = XRL_FLEET_LOCAL };

const struct cli_cmd cmd_sync = {
	.name = "sync",
	.args = "IFACE...",
	.summary =
		"Shares the global rules' limits across a fleet through Redis, in the foreground: every interval it\n"
		"publishes each global rule's demand (pass + block in its window), reads the other nodes', and sets\n"
		"this node's allowance in proportion. The program enforces the allowance locally; if this agent\n"
		"stops, the last allowance stays in force. Prints a line when a rule's policy or node count changes.",
	.min_args = 1,
	.max_args = -1,
	.missing = "missing interface: sync IFACE...",
	.opts = sync_opts,
	.opts_size = sizeof(struct sync_opts),
	.defaults = &sync_defaults,
	.prepare = sync_prepare,
	.run = sync_run,
};
