/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Global rules: the arithmetic of sharing one limit across a fleet, pure
 * functions with no I/O (tests/unit/test_sync.c). Every member (a node's
 * interface running the rule) publishes its demand, the packets its window
 * passed and blocked, and gets a share of the limit in proportion to its
 * demand (DRL, SIGCOMM 2007), with a floor so an idle member can start.
 */
#ifndef XRL_FLEET_SHARE_H
#define XRL_FLEET_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "xrl_common.h"

/* Syncs failed in a row after which Redis is declared lost and --on-redis-loss applies. */
#define XRL_SYNC_LOST_AFTER 3
/* A member's floor: this fraction (1/N) of an equal share, so an idle member can start. */
#define XRL_SYNC_FLOOR_DIV 10
/*
 * A member that has not synced for this many of its intervals is silent: its
 * allowance lapses in its kernel at the same moment (xrl_fleet.expires_ns),
 * which then enforces its reserve, the figure of its --on-redis-loss policy.
 */
#define XRL_SYNC_TTL_INTERVALS 3
/*
 * The other members keep a silent member's reserve aside for this many TTLs
 * (10 minutes at the default 1 s interval), then forget it: the fleet's sum
 * stays within the limit for that long after an agent dies.
 */
#define XRL_SYNC_HOLD_TTLS 200

struct xrl_share {
	__u64 limit;   /* the rule's threshold less the silent members' reserves */
	__u64 own;     /* this member's demand (pass + block in its window) */
	__u64 total;   /* every live member's demand, own included */
	__u32 members; /* live members, this one included */
};

/*
 * This member's allowance, in packets per window: floor + (limit - members x
 * floor) x own / total, where floor = limit / (members x XRL_SYNC_FLOOR_DIV)
 * (at least 1); limit / members when nobody has demand. The allowances of the
 * members sum to at most limit. Never 0 (0 means "the threshold" to the program).
 */
__u64 xrl_share_of(const struct xrl_share *s);

/* The floor every member gets. */
__u64 xrl_share_floor(__u64 limit, __u32 members);

/*
 * The policy in force after failures syncs failed in a row: XRL_FLEET_SHARED
 * (the last good sync's allowance, held) until Redis is lost; on_loss from
 * the first failure when no sync ever succeeded (synced false): nothing was
 * shared, so the node must not say it shares.
 */
enum xrl_fleet_policy xrl_sync_policy(__u32 failures, bool synced, enum xrl_fleet_policy on_loss);

/*
 * The allowance under a loss policy: LOCAL, limit / the members last seen (1
 * if never seen); LAST, last (the limit if there was none); OPEN, the limit.
 */
__u64 xrl_fallback_of(enum xrl_fleet_policy policy, __u64 limit, __u64 last, __u32 members_seen);

/* One member of a global rule, as Redis holds it (fleet/redis.h). */
#define XRL_MEMBER_LEN 96

struct xrl_member {
	char name[XRL_MEMBER_LEN];
	__u64 pass, demand;
	__u64 reserve; /* what its kernel enforces once it is silent */
	int alive;     /* synced within its TTL; else silent, its reserve kept aside */
};

/* One sync of one rule as its agent saw it: what xrl_fleet_settle settles the rule's entry from. */
struct xrl_sync_outcome {
	__u64 limit;			  /* the rule's threshold */
	__u64 demand;			  /* this member's, as the sync published it */
	__u64 published;		  /* the reserve the sync published (xrl_fleet_reserve) */
	int ok;				  /* the sync succeeded: members holds Redis's reply */
	const struct xrl_member *members; /* live and silent, this one included */
	size_t nmembers;
	enum xrl_fleet_policy on_loss;
	__u32 interval_ms;
	__u64 now_ms;	     /* CLOCK_REALTIME */
	__u64 now_coarse_ns; /* the program's clock (bpf_ktime_get_coarse_ns) */
};

/*
 * The reserve a sync publishes for a rule: want, the fallback the agent's last
 * good sync computed for it (0 when it has none, after a restart), but never
 * less than what the kernel enforces now should the agent fall silent
 * (fallback; 0: the threshold).
 */
__u64 xrl_fleet_reserve(__u64 want, __u64 fallback, __u64 threshold);

/*
 * Settles a rule's entry f (allowance, policy, fallback, ...) after a sync,
 * and *want, the fallback to publish at the next (xrl_fleet_reserve). The
 * kernel is never left a fallback above a reserve Redis may hold for this
 * member (but under --on-redis-loss open once Redis is lost: the whole limit,
 * as asked): see the proof in share.c.
 */
void xrl_fleet_settle(struct xrl_fleet *f, __u64 *want, const struct xrl_sync_outcome *o);

/* "shared", "local", "last", "open", "none"; and back (-EINVAL). */
const char *xrl_policy_name(enum xrl_fleet_policy p);
int xrl_policy_parse(const char *s, enum xrl_fleet_policy *p);

/*
 * How nodes name the same rule: the FNV-1a 64-bit hash of its canonical line
 * (what dump prints: match, rate, window, buckets, scope, flags), in 16 hex
 * digits. Two nodes share a limit exactly when their rules print the same.
 */
void xrl_rule_tag(const char *canonical, char out[17]);

/* The Redis Cluster slot of a key: CRC16 (XMODEM) of its {hash tag}, or of the whole key, mod 16384. */
__u16 xrl_crc16(const char *buf, size_t len);
__u16 xrl_key_slot(const char *key);

#endif /* XRL_FLEET_SHARE_H */
