// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Global rules' arithmetic (user/lib/sync.c): each member's share of the
 * fleet's limit in proportion to its demand with a floor, the policy when
 * Redis is lost and its fallback allowances, how nodes name a rule and which
 * Redis Cluster slot serves it; and the Redis side's pure parts
 * (user/lib/fleet/redis.c): cluster redirections, where the password comes from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_proportional), cmocka_unit_test(test_share_floor_and_idle),
		cmocka_unit_test(test_share_sum_bounded),  cmocka_unit_test(test_policy),
		cmocka_unit_test(test_rule_tag),	   cmocka_unit_test(test_cluster_slot),
		cmocka_unit_test(test_redirect),	   cmocka_unit_test(test_password),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
