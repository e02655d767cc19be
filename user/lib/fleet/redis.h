/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Global rules: the Redis side. One sync is one round trip: an EVAL of a small
 * Lua script per global rule, pipelined, that stores this member's demand as
 * absolute values (a retry never counts twice), refreshes its heartbeat,
 * forgets members whose heartbeat expired, and returns the live members'
 * demands. Both keys of a rule share a hash tag, so a Redis Cluster serves a
 * rule from one master: the client routes by slot (CRC16 of the tag) and
 * learns the owner of a slot from MOVED replies (ASK is followed once).
 * Bookworm's hiredis (0.14) has no cluster client and no TLS.
 */
#ifndef XRL_FLEET_REDIS_H
#define XRL_FLEET_REDIS_H

#include <stddef.h>
#include "xrl_common.h"
#include "fleet/share.h"

struct xrl_sync_req {
	char tag[17];		     /* xrl_rule_tag of the rule */
	char member[XRL_MEMBER_LEN]; /* who publishes: NODE/IFACE */
	__u64 pass, demand;	     /* this member's, in its window now */
	__u64 reserve;		     /* its allowance should its agent fall silent (xrl_fleet.fallback) */
	int ret;		     /* out: 0, or -errno with err */
	char err[256];
	struct xrl_member *members; /* out: the members, live and silent, this one included */
	size_t nmembers;
};

struct xrl_redis;

/* Where to reach Redis (a cluster's seed node), its password or NULL, and how long to wait for it. */
int xrl_redis_new(struct xrl_redis **out, const char *host, int port, const char *password, int timeout_ms, char *err,
		  size_t len);
void xrl_redis_free(struct xrl_redis *r);

/*
 * One sync of n rules, each for its member, whose heartbeat lasts ttl_ms. Each
 * request gets its own ret; returns 0 when every one succeeded, else the first error.
 */
int xrl_redis_sync(struct xrl_redis *r, __u32 ttl_ms, struct xrl_sync_req *reqs, size_t n);
void xrl_sync_req_clear(struct xrl_sync_req *q);

/* "MOVED 3999 127.0.0.1:6381" or "ASK ...": 1 and the target (an empty host: the one asked), 0 if not. */
int xrl_redis_redirect(const char *msg, int *ask, char *host, size_t hlen, int *port);

/* The password: from a file (its first line), else $REDISCLI_AUTH, else $XRL_REDIS_PASSWORD; NULL for none. */
int xrl_redis_password(const char *file, char *buf, size_t blen, int *have, char *err, size_t len);

#endif /* XRL_FLEET_REDIS_H */
