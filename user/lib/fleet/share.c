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
