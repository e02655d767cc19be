// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fleet/share.h"

__u64 xrl_share_floor(__u64 limit, __u32 members)
{
	__u64 floor;

	if (!members)
		members = 1;
	floor = limit / ((__u64)members * XRL_SYNC_FLOOR_DIV);
	return floor ? floor : 1;
}

__u64 xrl_share_of(const struct xrl_share *s)
{
	__u32 n = s->members ? s->members : 1;
	__u64 floor = xrl_share_floor(s->limit, n), spare, own = s->own;
	unsigned __int128 part;

	if (!s->limit)
		return 1;
	if (floor * n >= s->limit) /* a limit too small to give every member a floor */
		return s->limit / n ? s->limit / n : 1;
	if (!s->total)
		return s->limit / n;
	if (own > s->total) /* a total read before this member's own figure arrived */
		own = s->total;
	spare = s->limit - floor * n;
	part = (unsigned __int128)spare * own / s->total;
	return floor + (__u64)part;
}

enum xrl_fleet_policy xrl_sync_policy(__u32 failures, bool synced, enum xrl_fleet_policy on_loss)
{
	return synced && failures < XRL_SYNC_LOST_AFTER ? XRL_FLEET_SHARED : on_loss;
}

__u64 xrl_fallback_of(enum xrl_fleet_policy policy, __u64 limit, __u64 last, __u32 members_seen)
{
	switch (policy) {
	case XRL_FLEET_LOCAL:
		return members_seen > 1 ? (limit / members_seen ? limit / members_seen : 1) : limit;
	case XRL_FLEET_LAST:
		return last ? last : limit;
	default:
		return limit;
	}
}

__u64 xrl_fleet_reserve(__u64 want, __u64 fallback, __u64 threshold)
{
	__u64 enforced = fallback ? fallback : threshold;

	return want > enforced ? want : enforced;
}

/*
 * A silent member never passes more than the others set aside for it. Let K
 * be what this node's kernel enforces once its allowance lapses (f->fallback;
 * 0: the threshold) and W the agent's want. Invariant: K <= W, and K <= every
 * reserve of this member that Redis holds or may yet store.
 * - A sync publishes P = max(W, K) >= K (xrl_fleet_reserve).
 * - It succeeds: Redis holds P, the last of our writes. From the reply comes
 *   F, the policy's figure; the kernel gets K' = min(F, P) <= P, and W' = F
 *   >= K'. A rise of F is enforced a sync later, once published; a fall at once.
 * - It fails: P may have landed or not; either way what Redis holds is >= K.
 *   K stays or falls (the figure of a lost Redis is cut to K), W stays. So P
 *   stays W until a sync succeeds: a failed write that lands late still holds
 *   what the next good sync publishes.
 * - A restarted agent has no W (0): it publishes K. Only one agent writes an
 *   interface's entries (xrl_agent_claim).
 * The exception is asked for: under open, a node that lost Redis passes the
 * whole limit (K rises to it), whatever the others hold.
 */
void xrl_fleet_settle(struct xrl_fleet *f, __u64 *want, const struct xrl_sync_outcome *o)
{
	__u64 limit = o->limit, enforced = f->fallback;
	__u32 prev_policy = f->fallback_policy;

	f->attempt_ms = o->now_ms;
	f->interval_ms = o->interval_ms;
	f->fallback_policy = o->on_loss;
	if (o->ok) {
		struct xrl_share s = { .own = o->demand };
		__u64 held = 0, fig;
		size_t i;

		/* The silent members' reserves are set aside; the live ones share the rest. */
		for (i = 0; i < o->nmembers; i++) {
			if (!o->members[i].alive) {
				held += o->members[i].reserve;
				continue;
			}
			s.total += o->members[i].demand;
			s.members++;
		}
		if (!s.members)
			s.members = 1;
		s.limit = held < limit ? limit - held : 0;
		f->allowance = xrl_share_of(&s);
		f->policy = XRL_FLEET_SHARED;
		f->nodes = s.members;
		f->failures = 0;
		f->synced_ms = o->now_ms;
		f->fleet_demand = s.total;
		/* Should this agent fall silent: what its kernel enforces, at most what the others set aside. */
		f->expires_ns = o->now_coarse_ns + (__u64)o->interval_ms * XRL_SYNC_TTL_INTERVALS * 1000000ULL;
		fig = o->on_loss == XRL_FLEET_OPEN ?
			      limit :
			      xrl_fallback_of(o->on_loss, s.limit ? s.limit : 1, f->allowance, s.members);
		*want = fig;
		f->fallback = fig < o->published ? fig : o->published;
		return;
	}
	f->failures++;
	f->total_fails++;
	f->policy = xrl_sync_policy(f->failures, f->synced_ms != 0, o->on_loss);
	if (f->policy != XRL_FLEET_SHARED) {
		/* Local: the reserve the others set aside for this member, when it published one. */
		if (f->policy == XRL_FLEET_LOCAL && prev_policy == XRL_FLEET_LOCAL && f->fallback)
			f->allowance = f->fallback;
		else
			f->allowance = xrl_fallback_of(f->policy, limit, f->allowance, f->nodes);
		if (f->policy != XRL_FLEET_OPEN && enforced && f->allowance > enforced)
			f->allowance = enforced;
		f->fallback = f->allowance;
		f->expires_ns = 0;
	}
	/* Before Redis is declared lost, the last allowance stays (0 for a rule never synced: its threshold). */
}

static const char *const policy_names[] = {
	[XRL_FLEET_NONE] = "none", [XRL_FLEET_SHARED] = "shared", [XRL_FLEET_LOCAL] = "local",
	[XRL_FLEET_LAST] = "last", [XRL_FLEET_OPEN] = "open",
};

const char *xrl_policy_name(enum xrl_fleet_policy p)
{
	return (unsigned int)p < sizeof(policy_names) / sizeof(policy_names[0]) ? policy_names[p] : "?";
}

int xrl_policy_parse(const char *s, enum xrl_fleet_policy *p)
{
	enum xrl_fleet_policy i;

	for (i = XRL_FLEET_LOCAL; i <= XRL_FLEET_OPEN; i++)
		if (!strcmp(s, policy_names[i])) {
			*p = i;
			return 0;
		}
	return -EINVAL;
}

void xrl_rule_tag(const char *canonical, char out[17])
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (; *canonical; canonical++) {
		h ^= (unsigned char)*canonical;
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

__u16 xrl_crc16(const char *buf, size_t len)
{
	__u16 crc = 0;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= (__u16)((unsigned char)buf[i] << 8);
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (__u16)((crc << 1) ^ 0x1021) : (__u16)(crc << 1);
	}
	return crc;
}

__u16 xrl_key_slot(const char *key)
{
	const char *open = strchr(key, '{'), *close = open ? strchr(open + 1, '}') : NULL;

	/* As Redis Cluster does: a non-empty {tag} is hashed alone. */
	if (open && close && close > open + 1)
		return xrl_crc16(open + 1, (size_t)(close - open - 1)) & 16383;
	return xrl_crc16(key, strlen(key)) & 16383;
}
