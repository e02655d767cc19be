/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Global rules: the agent's cycle (xdp-ratelimit sync). Reads each
 * interface's global rules and their windows, syncs them through Redis in one
 * round trip, and writes each rule's allowance and the agent's view of it into
 * the interface's xrl_fleet map, which the program enforces and stats shows.
 */
#ifndef XRL_FLEET_AGENT_H
#define XRL_FLEET_AGENT_H

#include "fleet/share.h"
#include "fleet/redis.h"
#include "rules/rule.h"

/* Where agents claim the instances they serve (xrl_agent_claim). */
#define XRL_RUN_DIR "/run/xdp-ratelimit"

struct xrl_agent_opts {
	const char *node;  /* this node's name: members are NODE/IFACE */
	__u32 interval_ms; /* 0: one bucket of the shortest global rule (1 s when none; at least 10 ms) */
	enum xrl_fleet_policy on_loss;
};

/* One global rule of one interface, after a cycle: what the command renders. */
struct xrl_agent_rule {
	const char *iface;
	struct xrl_spec spec;
	char tag[17];
	__u64 pass, demand; /* this member's, in its window */
	struct xrl_fleet f; /* as written */
	__u32 prev_policy;  /* before this cycle */
	__u32 prev_nodes;
	__u64 want;    /* the reserve to publish at the next sync (xrl_fleet_settle) */
	char err[256]; /* the sync's error, when it failed */
};

struct xrl_agent;

int xrl_agent_new(struct xrl_agent **out, struct xrl_redis *redis, char **ifaces, int n,
		  const struct xrl_agent_opts *o);
void xrl_agent_free(struct xrl_agent *a);
/*
 * Claims the instance pinned at dir for one agent: a lock (flock) on
 * XRL_RUN_DIR/sync/INSTANCE.lock, in folders only root can write, which the
 * kernel frees when the agent ends. Returns its fd (keep it open),
 * -EADDRINUSE while another agent holds it, -EPERM when the folder is not
 * root's alone.
 */
int xrl_agent_claim(const char *dir);

/*
 * One cycle. Returns 0, or -errno with err when an interface could not be read
 * (its rules are then skipped this cycle; the others are synced). *rules and
 * *n: every global rule met, valid until the next cycle; *interval_ms: the
 * interval this cycle's heartbeats were made for, until the next cycle.
 */
int xrl_agent_cycle(struct xrl_agent *a, const struct xrl_agent_rule **rules, size_t *n, __u32 *interval_ms, char *err,
		    size_t len);

#endif /* XRL_FLEET_AGENT_H */
