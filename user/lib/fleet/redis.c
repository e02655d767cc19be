// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <hiredis.h>
#include "fleet/share.h"
#include "fleet/redis.h"
#include "base/err.h"

#define MAX_CONNS 32
#define MAX_HOPS 3

/*
 * KEYS[1]: the rule's demands (a hash, member -> "pass demand reserve");
 * KEYS[2]: its heartbeats (a sorted set, member -> expiry in ms of the server's clock).
 * ARGV: member, "pass demand reserve", ttl_ms, hold_ms (few arguments: Redis
 * answers an unauthenticated command of more than 10 with a protocol error,
 * not NOAUTH, which names the problem). The server's clock
 * judges expiry: the nodes' clocks need not agree. A member past its expiry
 * is silent: it is returned with alive 0 (its reserve is kept aside by the
 * others) until hold_ms more have passed, then forgotten. Returns member,
 * "pass demand reserve alive" pairs.
 */
static const char script[] = "local t = redis.call('TIME') "
			     "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
			     "local ttl = tonumber(ARGV[3]) "
			     "local hold = tonumber(ARGV[4]) "
			     "local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - hold) "
			     "for _, m in ipairs(gone) do redis.call('HDEL', KEYS[1], m) end "
			     "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - hold) "
			     "redis.call('ZADD', KEYS[2], now + ttl, ARGV[1]) "
			     "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) "
			     "redis.call('PEXPIRE', KEYS[1], ttl * 2 + hold) "
			     "redis.call('PEXPIRE', KEYS[2], ttl * 2 + hold) "
			     "local all = redis.call('HGETALL', KEYS[1]) "
			     "local out = {} "
			     "for i = 1, #all, 2 do "
			     "local s = redis.call('ZSCORE', KEYS[2], all[i]) "
			     "out[#out + 1] = all[i] "
			     "out[#out + 1] = all[i + 1] .. ((s and tonumber(s) > now) and ' 1' or ' 0') "
			     "end "
			     "return out";

struct conn {
	char host[256];
	int port;
	redisContext *c;
	char dead_err[256]; /* why it could not be reached, in this sync */
};

struct xrl_redis {
	struct conn conns[MAX_CONNS]; /* [0]: the seed */
	int nconns;
	__s8 slot_conn[16384]; /* which conn serves a slot, as MOVED taught us */
	char password[512];
	int has_password;
	int timeout_ms;
};

int xrl_redis_new(struct xrl_redis **out, const char *host, int port, const char *password, int timeout_ms, char *err,
		  size_t len)
{
	struct xrl_redis *r = calloc(1, sizeof(*r));

	if (!r)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	if (strlen(host) >= sizeof(r->conns[0].host)) {
		free(r);
		return xrl_fail(-EINVAL, err, len, "the Redis host name is too long");
	}
	snprintf(r->conns[0].host, sizeof(r->conns[0].host), "%s", host);
	r->conns[0].port = port;
	r->nconns = 1;
	if (password) {
		snprintf(r->password, sizeof(r->password), "%s", password);
		r->has_password = 1;
	}
	r->timeout_ms = timeout_ms;
	*out = r;
	return 0;
}

static void conn_drop(struct conn *k)
{
	if (k->c)
		redisFree(k->c);
	k->c = NULL;
}

void xrl_redis_free(struct xrl_redis *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->nconns; i++)
		conn_drop(&r->conns[i]);
	memset(r->password, 0, sizeof(r->password));
	free(r);
}

void xrl_sync_req_clear(struct xrl_sync_req *q)
{
	free(q->members);
	q->members = NULL;
	q->nmembers = 0;
	q->ret = 0;
	q->err[0] = '\0';
}

/* The connection to host:port, made (and authenticated) when missing. -errno with err on failure. */
static int conn_get(struct xrl_redis *r, int i, char *err, size_t len)
{
	struct conn *k = &r->conns[i];
	struct timeval tv = { r->timeout_ms / 1000, (r->timeout_ms % 1000) * 1000 };
	redisReply *rep;

	if (k->c)
		return 0;
	k->c = redisConnectWithTimeout(k->host, k->port, tv);
	if (!k->c)
		return xrl_fail(-ENOMEM, err, len, "redis %s:%d: out of memory", k->host, k->port);
	if (k->c->err) {
		xrl_fail(-ECONNREFUSED, err, len, "redis %s:%d: %s", k->host, k->port, k->c->errstr);
		conn_drop(k);
		return -ECONNREFUSED;
	}
	redisSetTimeout(k->c, tv);
	if (!r->has_password)
		return 0;
	rep = redisCommand(k->c, "AUTH %s", r->password);
	if (!rep || rep->type == REDIS_REPLY_ERROR) {
		xrl_fail(-EACCES, err, len, "redis %s:%d refused the password: %s", k->host, k->port,
			 rep ? rep->str : k->c->errstr);
		if (rep)
			freeReplyObject(rep);
		conn_drop(k);
		return -EACCES;
	}
	freeReplyObject(rep);
	return 0;
}

/* The index of host:port among the connections, added when new; -1 when full. */
static int conn_find(struct xrl_redis *r, const char *host, int port)
{
	int i;

	for (i = 0; i < r->nconns; i++)
		if (r->conns[i].port == port && !strcmp(r->conns[i].host, host))
			return i;
	if (r->nconns == MAX_CONNS || strlen(host) >= sizeof(r->conns[0].host))
		return -1;
	snprintf(r->conns[i].host, sizeof(r->conns[i].host), "%s", host);
	r->conns[i].port = port;
	r->conns[i].c = NULL;
	return r->nconns++;
}

int xrl_redis_redirect(const char *msg, int *ask, char *host, size_t hlen, int *port)
{
	const char *p, *colon;
	char *end;
	long v;

	if (!strncmp(msg, "MOVED ", 6))
		*ask = 0, p = msg + 6;
	else if (!strncmp(msg, "ASK ", 4))
		*ask = 1, p = msg + 4;
	else
		return 0;
	p = strchr(p, ' '); /* past the slot */
	if (!p)
		return 0;
	p++;
	colon = strrchr(p, ':');
	if (!colon || (size_t)(colon - p) >= hlen)
		return 0;
	v = strtol(colon + 1, &end, 10);
	if (*end || v <= 0 || v > 65535)
		return 0;
	memcpy(host, p, (size_t)(colon - p));
	host[colon - p] = '\0';
	*port = (int)v;
	return 1;
}

/* Takes the script's reply (member, "pass demand reserve alive", ...) into q. */
static int take_reply(struct xrl_sync_req *q, const redisReply *rep, const struct conn *k)
{
	size_t i;

	if (rep->type == REDIS_REPLY_ERROR)
		return xrl_fail(-EPROTO, q->err, sizeof(q->err), "redis %s:%d: %s", k->host, k->port, rep->str);
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements % 2)
		return xrl_fail(-EPROTO, q->err, sizeof(q->err), "redis %s:%d: unexpected reply to the sync script",
				k->host, k->port);
	q->members = calloc(rep->elements / 2 + 1, sizeof(*q->members));
	if (!q->members)
		return xrl_fail(-ENOMEM, q->err, sizeof(q->err), "out of memory");
	for (i = 0; i + 1 < rep->elements; i += 2) {
		struct xrl_member *m = &q->members[q->nmembers];
		unsigned long long pass, demand, reserve = 0, alive;
		int got;

		if (rep->element[i]->type != REDIS_REPLY_STRING || rep->element[i + 1]->type != REDIS_REPLY_STRING)
			continue; /* not ours: ignore rather than fail the rule */
		got = sscanf(rep->element[i + 1]->str, "%llu %llu %llu %llu", &pass, &demand, &reserve, &alive);
		if (got == 3) /* an agent of layout 7 publishes no reserve */
			alive = reserve, reserve = 0;
		else if (got != 4)
			continue;
		snprintf(m->name, sizeof(m->name), "%s", rep->element[i]->str);
		m->pass = pass;
		m->demand = demand;
		m->reserve = reserve;
		m->alive = alive != 0;
		q->nmembers++;
	}
	return 0;
}

static void keys_of(const struct xrl_sync_req *q, char *k1, char *k2, size_t len)
{
	snprintf(k1, len, "xrl:{%s}:demand", q->tag);
	snprintf(k2, len, "xrl:{%s}:alive", q->tag);
}

static int append(struct conn *k, const struct xrl_sync_req *q, __u32 ttl_ms, int asking)
{
	char k1[64], k2[64], stats[64];

	keys_of(q, k1, k2, sizeof(k1));
	if (asking && redisAppendCommand(k->c, "ASKING") != REDIS_OK)
		return -EIO;
	snprintf(stats, sizeof(stats), "%llu %llu %llu", (unsigned long long)q->pass, (unsigned long long)q->demand,
		 (unsigned long long)q->reserve);
	return redisAppendCommand(k->c, "EVAL %s 2 %s %s %s %s %u %llu", script, k1, k2, q->member, stats, ttl_ms,
				  (unsigned long long)ttl_ms * XRL_SYNC_HOLD_TTLS) == REDIS_OK ?
		       0 :
		       -EIO;
}

/* Reads one reply of k; on a broken connection, drops it (a later sync reconnects). */
static redisReply *get_reply(struct conn *k, char *err, size_t len)
{
	void *rep = NULL;

	if (!k->c || redisGetReply(k->c, &rep) != REDIS_OK || !rep) {
		xrl_fail(-EIO, err, len, "redis %s:%d: %s", k->host, k->port, k->c ? k->c->errstr : "not connected");
		conn_drop(k);
		return NULL;
	}
	return rep;
}

/* One request alone, following MOVED and ASK redirections (the cluster's topology changed). */
static void sync_one(struct xrl_redis *r, int ci, __u32 ttl_ms, struct xrl_sync_req *q, redisReply *rep)
{
	char host[256];
	int hop, ask, port, asking = 0;
	__u16 slot;

	for (hop = 0;; hop++) {
		if (rep && rep->type == REDIS_REPLY_ERROR &&
		    xrl_redis_redirect(rep->str, &ask, host, sizeof(host), &port)) {
			char k1[64], k2[64];
			int ni;

			freeReplyObject(rep);
			rep = NULL;
			if (hop == MAX_HOPS) {
				q->ret = xrl_fail(-ELOOP, q->err, sizeof(q->err),
						  "redis: more than %d cluster redirections for one rule", MAX_HOPS);
				return;
			}
			ni = conn_find(r, host[0] ? host : r->conns[ci].host, port);
			if (ni < 0) {
				q->ret = xrl_fail(-ENOSPC, q->err, sizeof(q->err),
						  "redis: a cluster of more than %d nodes", MAX_CONNS);
				return;
			}
			keys_of(q, k1, k2, sizeof(k1));
			slot = xrl_key_slot(k1);
			if (!ask)
				r->slot_conn[slot] = (__s8)ni;
			asking = ask;
			ci = ni;
		} else if (rep) {
			q->ret = take_reply(q, rep, &r->conns[ci]);
			freeReplyObject(rep);
			return;
		}
		q->ret = conn_get(r, ci, q->err, sizeof(q->err));
		if (q->ret)
			return;
		if (append(&r->conns[ci], q, ttl_ms, asking)) {
			q->ret = xrl_fail(-EIO, q->err, sizeof(q->err), "redis: cannot send");
			return;
		}
		if (asking) {
			rep = get_reply(&r->conns[ci], q->err, sizeof(q->err));
			if (rep)
				freeReplyObject(rep);
		}
		rep = get_reply(&r->conns[ci], q->err, sizeof(q->err));
		if (!rep) {
			q->ret = -EIO;
			return;
		}
	}
}

int xrl_redis_sync(struct xrl_redis *r, __u32 ttl_ms, struct xrl_sync_req *reqs, size_t n)
{
	int *ci = calloc(n + 1, sizeof(*ci)), first = 0, dead[MAX_CONNS] = { 0 };
	size_t i;

	if (!ci)
		return -ENOMEM;
	/* Every rule's script to the master of its slot, in one pipeline: one round trip. */
	for (i = 0; i < n; i++) {
		char k1[64], k2[64];

		xrl_sync_req_clear(&reqs[i]);
		keys_of(&reqs[i], k1, k2, sizeof(k1));
		ci[i] = r->slot_conn[xrl_key_slot(k1)];
		/* A server that did not answer is not asked again for every rule: one timeout a sync. */
		reqs[i].ret = dead[ci[i]] ? xrl_fail(-ECONNREFUSED, reqs[i].err, sizeof(reqs[i].err), "%s",
						     r->conns[ci[i]].dead_err) :
					    conn_get(r, ci[i], reqs[i].err, sizeof(reqs[i].err));
		if (reqs[i].ret && !dead[ci[i]]) {
			dead[ci[i]] = 1;
			snprintf(r->conns[ci[i]].dead_err, sizeof(r->conns[ci[i]].dead_err), "%s", reqs[i].err);
		}
		if (!reqs[i].ret && append(&r->conns[ci[i]], &reqs[i], ttl_ms, 0))
			reqs[i].ret = xrl_fail(-EIO, reqs[i].err, sizeof(reqs[i].err), "redis: cannot send");
		if (reqs[i].ret)
			ci[i] = -1;
	}
	for (i = 0; i < n; i++) {
		redisReply *rep;

		if (ci[i] < 0)
			continue;
		rep = get_reply(&r->conns[ci[i]], reqs[i].err, sizeof(reqs[i].err));
		if (!rep)
			reqs[i].ret = -EIO;
		else
			sync_one(r, ci[i], ttl_ms, &reqs[i], rep);
	}
	for (i = 0; i < n && !first; i++)
		first = reqs[i].ret;
	free(ci);
	return first;
}

int xrl_redis_password(const char *file, char *buf, size_t blen, int *have, char *err, size_t len)
{
	const char *env;
	struct stat st;
	FILE *f;

	*have = 0;
	if (file) {
		f = fopen(file, "r");
		if (!f)
			return xrl_fail(-errno, err, len, "cannot read the password file %s: %s", file,
					strerror(errno));
		if (!fstat(fileno(f), &st) && (st.st_mode & 0077)) {
			fclose(f);
			return xrl_fail(-EPERM, err, len,
					"the password file %s can be read by others (mode %03o): chmod 600 %s", file,
					(unsigned int)(st.st_mode & 0777), file);
		}
		if (!fgets(buf, (int)blen, f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\r\n")] = '\0';
		if (!buf[0])
			return xrl_fail(-EINVAL, err, len, "the password file %s is empty", file);
		*have = 1;
		return 0;
	}
	env = getenv("REDISCLI_AUTH");
	if (!env || !*env)
		env = getenv("XRL_REDIS_PASSWORD");
	if (env && *env) {
		if (strlen(env) >= blen)
			return xrl_fail(-EINVAL, err, len, "the Redis password is too long");
		snprintf(buf, blen, "%s", env);
		*have = 1;
	}
	return 0;
}
