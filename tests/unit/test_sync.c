// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Global rules' arithmetic (user/lib/fleet/share.c): each member's share of the
 * fleet's limit in proportion to its demand with a floor, the policy when
 * Redis is lost and its fallback allowances, how nodes name a rule and which
 * Redis Cluster slot serves it; and the Redis side's pure parts
 * (user/lib/fleet/redis.c): cluster redirections, where the password comes from;
 * and, through the syncs of a simulated fleet, that what a member's kernel
 * enforces once its agent is silent never exceeds the reserve it published.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fleet/share.h"
#include "fleet/redis.h"

static __u64 share(__u64 limit, __u64 own, __u64 total, __u32 members)
{
	struct xrl_share s = { .limit = limit, .own = own, .total = total, .members = members };

	return xrl_share_of(&s);
}

static void test_share_proportional(void **state)
{
	(void)state;
	/* 1000 a window, 3 members: floor 33 each, the 901 left in proportion to demand */
	assert_int_equal(xrl_share_floor(1000, 3), 33);
	assert_int_equal(share(1000, 600, 1000, 3), 33 + 540);
	assert_int_equal(share(1000, 300, 1000, 3), 33 + 270);
	assert_int_equal(share(1000, 100, 1000, 3), 33 + 90);
	/* equal demand, equal shares */
	assert_int_equal(share(1000, 50, 150, 3), 33 + 300);
	/* one member alone has the whole limit */
	assert_int_equal(share(1000, 7, 7, 1), 1000);
	assert_int_equal(share(1000, 0, 0, 1), 1000);
}

static void test_share_floor_and_idle(void **state)
{
	(void)state;
	/* an idle member keeps the floor, so its first packets pass before the next sync */
	assert_int_equal(share(1000, 0, 900, 3), 33);
	/* nobody has demand: equal shares */
	assert_int_equal(share(1000, 0, 0, 4), 250);
	/* a limit too small for a floor each: an equal share, never 0 (0 means the threshold) */
	assert_int_equal(share(2, 1, 2, 3), 1);
	assert_int_equal(share(10, 5, 5, 10), 1);
	assert_int_equal(share(0, 5, 5, 1), 1);
	/* 0 members (a reply without this one): taken as 1 */
	assert_int_equal(share(1000, 5, 5, 0), 1000);
	/* own read fresher than the total: at most the whole spare, the others keep their floor */
	assert_int_equal(share(1000, 500, 100, 2), 50 + 900);
	/* figures too large for 64-bit products */
	assert_int_equal(share(4294967295ULL, 1ULL << 62, 1ULL << 63, 2),
			 214748364 + (4294967295ULL - 2 * 214748364) / 2);
}

/* The members' shares never add up to more than the limit, whatever the demands. */
static void test_share_sum_bounded(void **state)
{
	__u64 d[16], total, sum, limit;
	unsigned int seed = 1, it, n, i;

	(void)state;
	for (it = 0; it < 20000; it++) {
		n = 1 + rand_r(&seed) % 16;
		limit = 1 + (__u64)rand_r(&seed) % 100000;
		total = 0;
		for (i = 0; i < n; i++) {
			d[i] = rand_r(&seed) % 3 ? (__u64)rand_r(&seed) % 50000 : 0;
			total += d[i];
		}
		sum = 0;
		for (i = 0; i < n; i++) {
			__u64 a = share(limit, d[i], total, n);

			assert_true(a >= 1);
			sum += a;
		}
		if (limit >= n && sum > limit)
			fail_msg("limit %llu, %u members: shares sum to %llu", (unsigned long long)limit, n,
				 (unsigned long long)sum);
	}
}

static void test_policy(void **state)
{
	enum xrl_fleet_policy p;

	(void)state;
	/* Redis is lost after XRL_SYNC_LOST_AFTER failures in a row, not before */
	assert_int_equal(xrl_sync_policy(0, true, XRL_FLEET_LOCAL), XRL_FLEET_SHARED);
	assert_int_equal(xrl_sync_policy(2, true, XRL_FLEET_OPEN), XRL_FLEET_SHARED);
	assert_int_equal(XRL_SYNC_LOST_AFTER, 3);
	assert_int_equal(xrl_sync_policy(3, true, XRL_FLEET_LOCAL), XRL_FLEET_LOCAL);
	assert_int_equal(xrl_sync_policy(100, true, XRL_FLEET_LAST), XRL_FLEET_LAST);
	assert_int_equal(xrl_sync_policy(3, true, XRL_FLEET_OPEN), XRL_FLEET_OPEN);
	/* never synced: a failed sync shared nothing, so it is not 'shared' (was: 'shared, 0 nodes') */
	assert_int_equal(xrl_sync_policy(1, false, XRL_FLEET_LOCAL), XRL_FLEET_LOCAL);
	assert_int_equal(xrl_sync_policy(1, false, XRL_FLEET_OPEN), XRL_FLEET_OPEN);
	/* local: the limit / the members last seen */
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LOCAL, 1000, 573, 3), 333);
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LOCAL, 1000, 573, 1), 1000);
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LOCAL, 1000, 0, 0), 1000); /* never seen anyone */
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LOCAL, 2, 0, 5), 1);
	/* last: what it had */
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LAST, 1000, 573, 3), 573);
	assert_int_equal(xrl_fallback_of(XRL_FLEET_LAST, 1000, 0, 3), 1000);
	/* open: the whole limit */
	assert_int_equal(xrl_fallback_of(XRL_FLEET_OPEN, 1000, 573, 3), 1000);
	/* names */
	assert_int_equal(xrl_policy_parse("local", &p), 0);
	assert_int_equal(p, XRL_FLEET_LOCAL);
	assert_int_equal(xrl_policy_parse("open", &p), 0);
	assert_int_equal(p, XRL_FLEET_OPEN);
	assert_int_equal(xrl_policy_parse("shared", &p), -EINVAL);
	assert_int_equal(xrl_policy_parse("", &p), -EINVAL);
	assert_string_equal(xrl_policy_name(XRL_FLEET_LAST), "last");
	assert_string_equal(xrl_policy_name(XRL_FLEET_SHARED), "shared");
}

static void test_rule_tag(void **state)
{
	char a[17], b[17], c[17];

	(void)state;
	xrl_rule_tag("port 53/udp rate 1k/s window 1s buckets 2 aggregate global", a);
	xrl_rule_tag("port 53/udp rate 1k/s window 1s buckets 2 aggregate global", b);
	xrl_rule_tag("port 53/udp rate 2k/s window 1s buckets 2 aggregate global", c);
	assert_int_equal(strlen(a), 16);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	/* FNV-1a 64 of "a" */
	xrl_rule_tag("a", a);
	assert_string_equal(a, "af63dc4c8601ec8c");
}

static void test_cluster_slot(void **state)
{
	(void)state;
	/* the Redis Cluster specification's check value */
	assert_int_equal(xrl_crc16("123456789", 9), 0x31c3);
	/* a {tag} is hashed alone, so both keys of a rule share a slot */
	assert_int_equal(xrl_key_slot("xrl:{0123456789abcdef}:demand"), xrl_key_slot("xrl:{0123456789abcdef}:alive"));
	assert_int_equal(xrl_key_slot("xrl:{0123456789abcdef}:demand"), xrl_crc16("0123456789abcdef", 16) & 16383);
	/* an empty tag counts for nothing: the whole key */
	assert_int_equal(xrl_key_slot("a{}b"), xrl_crc16("a{}b", 4) & 16383);
	assert_int_equal(xrl_key_slot("foo"), 12182); /* redis-cli cluster keyslot foo */
}

static void test_redirect(void **state)
{
	char host[64];
	int ask, port;

	(void)state;
	assert_int_equal(xrl_redis_redirect("MOVED 3999 127.0.0.1:6381", &ask, host, sizeof(host), &port), 1);
	assert_int_equal(ask, 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 6381);
	assert_int_equal(xrl_redis_redirect("ASK 12 ::1:7002", &ask, host, sizeof(host), &port), 1);
	assert_int_equal(ask, 1);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 7002);
	/* an empty host: the node that answered */
	assert_int_equal(xrl_redis_redirect("MOVED 1 :7000", &ask, host, sizeof(host), &port), 1);
	assert_string_equal(host, "");
	assert_int_equal(xrl_redis_redirect("ERR unknown command", &ask, host, sizeof(host), &port), 0);
	assert_int_equal(xrl_redis_redirect("MOVED 1 host:0", &ask, host, sizeof(host), &port), 0);
	assert_int_equal(xrl_redis_redirect("MOVED 1 host:70000", &ask, host, sizeof(host), &port), 0);
	assert_int_equal(xrl_redis_redirect("MOVED 1", &ask, host, sizeof(host), &port), 0);
}

static void test_password(void **state)
{
	char path[] = "/tmp/xrl-test-pw-XXXXXX", buf[64], err[256];
	int fd, have;
	FILE *f;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("s3cret\n", f);
	fclose(f);
	chmod(path, 0600);
	unsetenv("REDISCLI_AUTH");
	setenv("XRL_REDIS_PASSWORD", "fromenv", 1);
	assert_int_equal(xrl_redis_password(path, buf, sizeof(buf), &have, err, sizeof(err)), 0);
	assert_int_equal(have, 1);
	assert_string_equal(buf, "s3cret");
	/* readable by others: refused, naming the fix */
	chmod(path, 0644);
	assert_int_equal(xrl_redis_password(path, buf, sizeof(buf), &have, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "chmod 600"));
	unlink(path);
	assert_true(xrl_redis_password(path, buf, sizeof(buf), &have, err, sizeof(err)) < 0);
	/* no file: the environment, REDISCLI_AUTH first */
	assert_int_equal(xrl_redis_password(NULL, buf, sizeof(buf), &have, err, sizeof(err)), 0);
	assert_int_equal(have, 1);
	assert_string_equal(buf, "fromenv");
	setenv("REDISCLI_AUTH", "cli", 1);
	assert_int_equal(xrl_redis_password(NULL, buf, sizeof(buf), &have, err, sizeof(err)), 0);
	assert_string_equal(buf, "cli");
	unsetenv("REDISCLI_AUTH");
	unsetenv("XRL_REDIS_PASSWORD");
	assert_int_equal(xrl_redis_password(NULL, buf, sizeof(buf), &have, err, sizeof(err)), 0);
	assert_int_equal(have, 0);
}

/*
 * A fleet of agents syncing one rule through a Redis of their own, in rounds:
 * the sync script's logic (redis.c) in memory, each agent's publish and
 * settle as agent.c does them (xrl_fleet_reserve, xrl_fleet_settle).
 */
#define SIM_LIMIT 1000
#define SIM_TTL 3  /* rounds a heartbeat lasts */
#define SIM_HOLD 4 /* rounds a silent member's reserve is kept aside, then forgotten */
#define SIM_MAX 8

struct sim_slot {
	char name[8];
	__u64 demand, reserve;
	int expiry;
	bool present;
};

struct sim_agent {
	char name[8];
	struct xrl_fleet f; /* its kernel's entry */
	__u64 want;	    /* the agent's memory between syncs; 0 after a restart */
	enum xrl_fleet_policy on_loss;
	__u64 demand;
};

/* What the kernel enforces once the agent's allowance lapses. */
static __u64 sim_enforced(const struct sim_agent *g)
{
	return g->f.fallback ? g->f.fallback : SIM_LIMIT;
}

static struct sim_slot *sim_find(struct sim_slot *r, const char *name)
{
	int i;

	for (i = 0; i < SIM_MAX; i++)
		if (r[i].present && !strcmp(r[i].name, name))
			return &r[i];
	return NULL;
}

/* One sync of g at round t; a failed one (ok false) may still have stored what it sent (landed). */
static void sim_sync(struct sim_slot *r, struct sim_agent *g, int t, bool ok, bool landed)
{
	struct xrl_sync_outcome o = { .limit = SIM_LIMIT,
				      .demand = g->demand,
				      .ok = ok,
				      .on_loss = g->on_loss,
				      .interval_ms = 100,
				      .now_ms = 1000000 + (__u64)t * 100,
				      .now_coarse_ns = (__u64)t * 100000000ULL };
	struct xrl_member reply[SIM_MAX];
	struct sim_slot *me;
	size_t n = 0;
	int i;

	o.published = xrl_fleet_reserve(g->want, g->f.fallback, SIM_LIMIT);
	if (ok || landed) {
		for (i = 0; i < SIM_MAX; i++)
			if (r[i].present && r[i].expiry + SIM_HOLD <= t)
				r[i].present = false;
		me = sim_find(r, g->name);
		for (i = 0; !me && i < SIM_MAX; i++)
			if (!r[i].present) {
				me = &r[i];
				snprintf(me->name, sizeof(me->name), "%s", g->name);
			}
		assert_non_null(me);
		me->present = true;
		me->demand = g->demand;
		me->reserve = o.published;
		me->expiry = t + SIM_TTL;
	}
	for (i = 0; ok && i < SIM_MAX; i++)
		if (r[i].present) {
			snprintf(reply[n].name, sizeof(reply[n].name), "%s", r[i].name);
			reply[n].demand = r[i].demand;
			reply[n].reserve = r[i].reserve;
			reply[n].alive = r[i].expiry > t;
			n++;
		}
	o.members = reply;
	o.nmembers = n;
	xrl_fleet_settle(&g->f, &g->want, &o);
}

/* Should g's agent die now, the others set aside what Redis holds for it: at least what its kernel will enforce. */
static void sim_check(struct sim_slot *r, const struct sim_agent *g, int t)
{
	const struct sim_slot *s = sim_find(r, g->name);

	if (!s || g->f.policy == XRL_FLEET_OPEN) /* open, Redis lost: the whole limit, as asked */
		return;
	if (sim_enforced(g) > s->reserve)
		fail_msg(
			"round %d, %s (%s): its kernel enforces %llu once its agent is silent, Redis holds a reserve of %llu",
			t, g->name, xrl_policy_name(g->on_loss), (unsigned long long)sim_enforced(g),
			(unsigned long long)s->reserve);
}

/* Three members a, b and c, on --on-redis-loss local, with a steady demand. */
static void sim_three(struct sim_agent *g)
{
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(g[i].name, sizeof(g[i].name), "%c", 'a' + i);
		g[i].on_loss = XRL_FLEET_LOCAL;
		g[i].demand = 100;
	}
}

/*
 * Three members, local; c's agent dies, and once the others forget it their
 * figure rises from 333 to 500 while 333 is published: the kernel is held to
 * 333 for one more sync. A first sync has nothing published yet.
 */
static void test_reserve_membership_shrinks(void **state)
{
	struct sim_slot redis[SIM_MAX] = {};
	struct sim_agent g[3] = {};
	int t, i, rose = 0;

	(void)state;
	sim_three(g);
	for (t = 1; t <= 20; t++)
		for (i = 0; i < 3; i++) {
			__u64 before = sim_enforced(&g[i]);

			if (i == 2 && t > 3) /* c's agent died after round 3 */
				continue;
			sim_sync(redis, &g[i], t, true, false);
			sim_check(redis, &g[i], t);
			if (t > 3 && g[i].want == 500 && before == 333 && !rose++)
				/* the round the figure rose: still 333 in the kernel, 500 next round */
				assert_int_equal(sim_enforced(&g[i]), 333);
		}
	assert_true(rose);
	assert_null(sim_find(redis, "c"));
	assert_int_equal(sim_enforced(&g[0]), 500);
	assert_int_equal(sim_find(redis, "a")->reserve, 500);
}

/*
 * The fleet stays within its limit when an agent dies right after a sync
 * whose figure rose: b dies in the round c is forgotten, a sets b's reserve
 * aside; a's share and what b's kernel enforces sum to the limit at most.
 */
static void test_reserve_fleet_within_limit(void **state)
{
	struct sim_slot redis[SIM_MAX] = {};
	struct sim_agent g[3] = {};
	int t, i, b_dead = 0, held = 0;

	(void)state;
	sim_three(g);
	for (t = 1; t <= 30; t++)
		for (i = 0; i < 3; i++) {
			if ((i == 2 && t > 3) || (i == 1 && b_dead))
				continue;
			sim_sync(redis, &g[i], t, true, false);
			if (i == 1 && !sim_find(redis, "c") && t > 3)
				b_dead = t; /* b's agent dies right after the sync that forgot c */
			/* while b is silent and held (past the hold the others forget it: documented) */
			if (i == 0 && b_dead && t > b_dead + SIM_TTL && sim_find(redis, "b") && ++held &&
			    g[0].f.allowance + sim_enforced(&g[1]) > SIM_LIMIT)
				fail_msg(
					"round %d: a's allowance %llu and b's fallback %llu pass %llu, over the limit %d",
					t, (unsigned long long)g[0].f.allowance,
					(unsigned long long)sim_enforced(&g[1]),
					(unsigned long long)(g[0].f.allowance + sim_enforced(&g[1])), SIM_LIMIT);
		}
	assert_true(b_dead);
	assert_true(held >= SIM_HOLD - 1);
}

/* Random fleets: demands moving, members dying and coming back (restarted: no memory), syncs failing. */
static void test_reserve_random(void **state)
{
	static const enum xrl_fleet_policy pol[] = { XRL_FLEET_LOCAL, XRL_FLEET_LAST, XRL_FLEET_OPEN };
	unsigned int seed = 7, run;

	(void)state;
	for (run = 0; run < 200; run++) {
		struct sim_slot redis[SIM_MAX] = {};
		struct sim_agent g[5] = {};
		int dead[5] = {}, t, i, n = 2 + (int)(rand_r(&seed) % 4);

		for (i = 0; i < n; i++) {
			snprintf(g[i].name, sizeof(g[i].name), "m%d", i);
			g[i].on_loss = pol[rand_r(&seed) % 3];
		}
		for (t = 1; t <= 200; t++)
			for (i = 0; i < n; i++) {
				unsigned int dice = (unsigned int)rand_r(&seed) % 100;

				if (dead[i]) {
					if (--dead[i] == 0)
						g[i].want = 0; /* restarted */
					continue;
				}
				if (dice < 3) {
					dead[i] = 1 + rand_r(&seed) % (3 * (SIM_TTL + SIM_HOLD));
					continue;
				}
				if (dice < 30)
					g[i].demand = (__u64)(rand_r(&seed) % 2000);
				sim_sync(redis, &g[i], t, dice >= 40, dice < 35);
				sim_check(redis, &g[i], t);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_proportional),
		cmocka_unit_test(test_share_floor_and_idle),
		cmocka_unit_test(test_share_sum_bounded),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_rule_tag),
		cmocka_unit_test(test_cluster_slot),
		cmocka_unit_test(test_redirect),
		cmocka_unit_test(test_password),
		cmocka_unit_test(test_reserve_membership_shrinks),
		cmocka_unit_test(test_reserve_fleet_within_limit),
		cmocka_unit_test(test_reserve_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
