// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Rates, byte rates and durations: "100/s", "10Mbit/s", "500ms", parsed and printed. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

/* Parses a whole decimal number with an optional k, M or G; no sign, no overflow. */
static int parse_count(const char *s, const char **end, __u64 *out)
{
	__u64 v = 0, mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (__u64)(*s - '0');
	}
	if (*s == 'k' || *s == 'K')
		mult = 1000, s++;
	else if (*s == 'M')
		mult = 1000000, s++;
	else if (*s == 'G')
		mult = 1000000000, s++;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	*end = s;
	return 0;
}

int xrl_parse_rate(const char *s, __u64 *count, __u32 *unit_ms, char *err, size_t len)
{
	static const struct {
		const char *name;
		__u32 ms;
	} units[] = {
		{ "s", 1000 },	  { "sec", 1000 },     { "second", 1000 }, { "m", 60000 },
		{ "min", 60000 }, { "minute", 60000 }, { "h", 3600000 },   { "hour", 3600000 },
	};
	const char *p;
	__u64 v;
	size_t i;
	int ret;

	ret = parse_count(s, &p, &v);
	if (ret == -ERANGE || (!ret && v > MAX_COUNT))
		return fail(err, len, "rate '%s' is too large (at most %llu per unit)", s,
			    (unsigned long long)MAX_COUNT);
	if (ret || *p != '/')
		return fail(err, len, "rate '%s' is not a rate: expected COUNT/UNIT like 100/s, 10k/s or 600/min", s);
	if (v == 0)
		return fail(
			err, len,
			"rate '%s' is zero: to drop everything use a rate of 1 and a long window; to allow, use 'allow'",
			s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(p + 1, units[i].name)) {
			*count = v;
			*unit_ms = units[i].ms;
			return 0;
		}
	}
	return fail(err, len, "rate '%s' has an unknown unit '%s': expected s, min or h", s, p + 1);
}

/* Byte rate spellings: bits and bytes apart, SI prefixes (K = 1000, as tc and nft count bit rates). */
static const struct {
	const char *name;
	__u8 unit;
	__u64 bits; /* bits in one unit */
} byte_units[] = {
	{ "bit", XRL_BU_BIT, 1 },
	{ "Kbit", XRL_BU_KBIT, 1000 },
	{ "kbit", XRL_BU_KBIT, 1000 },
	{ "Mbit", XRL_BU_MBIT, 1000000 },
	{ "mbit", XRL_BU_MBIT, 1000000 },
	{ "Gbit", XRL_BU_GBIT, 1000000000 },
	{ "gbit", XRL_BU_GBIT, 1000000000 },
	{ "B", XRL_BU_B, 8 },
	{ "KB", XRL_BU_KB, 8000 },
	{ "kB", XRL_BU_KB, 8000 },
	{ "MB", XRL_BU_MB, 8000000 },
	{ "GB", XRL_BU_GB, 8000000000ULL },
};
#define N_BYTE_UNITS (sizeof(byte_units) / sizeof(byte_units[0]))
#define BYTE_UNITS_HELP                                                                                        \
	"write bits as bit, Kbit, Mbit or Gbit and bytes as B, KB, MB or GB (SI: K = 1000), per s, min or h, " \
	"like 100Mbit/s or 12MB/s"

const char *xrl_time_unit_name(__u32 unit_ms)
{
	return unit_ms == 1000 ? "s" : unit_ms == 60000 ? "min" : "h";
}

/* The bits one XRL_BU_* unit holds; 0 for none. */
__u64 xrl_byte_unit_bits(__u8 unit)
{
	size_t i;

	for (i = 0; i < N_BYTE_UNITS; i++)
		if (byte_units[i].unit == unit)
			return byte_units[i].bits;
	return 0;
}

const char *xrl_byte_unit_name(__u8 unit)
{
	size_t i;

	for (i = 0; i < N_BYTE_UNITS; i++)
		if (byte_units[i].unit == unit)
			return byte_units[i].name;
	return "?";
}

int xrl_parse_byte_rate(const char *s, __u64 *count, __u8 *unit, __u32 *unit_ms, char *err, size_t len)
{
	const char *p = s, *slash = strchr(s, '/'), *u;
	__u64 v = 0;
	size_t i, ulen;
	__u32 ms;

	while (isdigit((unsigned char)*p))
		p++;
	u = p;
	ulen = slash ? (size_t)(slash - u) : strlen(u);
	/* Nothing, or a k, M or G alone after the number: a packet rate. */
	if (p == s || ulen == 0 || (ulen == 1 && strchr("kKMG", *u)))
		return 1;
	for (i = 0; i < N_BYTE_UNITS; i++)
		if (strlen(byte_units[i].name) == ulen && !strncmp(u, byte_units[i].name, ulen))
			break;
	if (i == N_BYTE_UNITS)
		return fail(
			err, len,
			"rate '%s': '%.*s' is not a unit this grammar reads (bps, Mb and the like are read as bits by some tools and bytes by others): %s",
			s, (int)ulen, u, BYTE_UNITS_HELP);
	for (p = s; p < u; p++) {
		if (v > (UINT64_MAX - 9) / 10 || v * 10 + (__u64)(*p - '0') > MAX_COUNT)
			return fail(err, len, "rate '%s' is too large (at most %llu units per time unit)", s,
				    (unsigned long long)MAX_COUNT);
		v = v * 10 + (__u64)(*p - '0');
	}
	if (v == 0)
		return fail(err, len, "rate '%s' is zero: to allow, use 'allow'", s);
	if (!slash)
		return fail(err, len, "rate '%s' has no time unit: %s", s, BYTE_UNITS_HELP);
	if (!strcmp(slash + 1, "s") || !strcmp(slash + 1, "sec") || !strcmp(slash + 1, "second"))
		ms = 1000;
	else if (!strcmp(slash + 1, "m") || !strcmp(slash + 1, "min") || !strcmp(slash + 1, "minute"))
		ms = 60000;
	else if (!strcmp(slash + 1, "h") || !strcmp(slash + 1, "hour"))
		ms = 3600000;
	else
		return fail(err, len, "rate '%s' has an unknown time unit '%s': expected s, min or h", s, slash + 1);
	*count = v;
	*unit = byte_units[i].unit;
	*unit_ms = ms;
	return 0;
}

/* A duration in ns, at least 1 ms and at most one hour; what names it in messages ("window", "warmup"). */
int xrl_parse_duration_of(const char *s, const char *what, __u64 *ns, char *err, size_t len)
{
	const char *p;
	__u64 v, ms;
	int ret;

	ret = parse_count(s, &p, &v);
	if (ret == -ERANGE)
		return fail(err, len, "duration '%s' is too large (at most 1h)", s);
	if (ret || p == s)
		return fail(err, len,
			    "duration '%s' is not a duration: expected a number and ms, s, m or h, like 500ms or 1s",
			    s);
	if (!strcmp(p, "ms"))
		ms = v;
	else if (!strcmp(p, "s") && v <= MAX_WINDOW_MS / 1000)
		ms = v * 1000;
	else if ((!strcmp(p, "m") || !strcmp(p, "min")) && v <= MAX_WINDOW_MS / 60000)
		ms = v * 60000;
	else if (!strcmp(p, "h") && v <= MAX_WINDOW_MS / 3600000)
		ms = v * 3600000;
	else if (!strcmp(p, "s") || !strcmp(p, "m") || !strcmp(p, "min") || !strcmp(p, "h"))
		ms = MAX_WINDOW_MS + 1;
	else
		return fail(err, len, "duration '%s' has an unknown unit '%s': expected ms, s, m or h", s, p);
	if (ms == 0 && !strcmp(what, "warmup"))
		return fail(
			err, len,
			"warmup '%s' is zero: leave 'warmup' out for none, or give a period like 30s (at least 1ms)",
			s);
	if (ms == 0)
		return fail(err, len, "duration '%s' is zero: a %s lasts at least 1ms", s, what);
	if (ms > MAX_WINDOW_MS)
		return fail(err, len, "duration '%s' is too long: a %s lasts at most 1h", s, what);
	*ns = ms * NS_PER_MS;
	return 0;
}

int xrl_parse_duration(const char *s, __u64 *ns, char *err, size_t len)
{
	return xrl_parse_duration_of(s, "window", ns, err, len);
}

int xrl_format_rate(__u64 count, __u32 unit_ms, char *buf, size_t len)
{
	const char *unit = xrl_time_unit_name(unit_ms);

	if (count % 1000000000 == 0)
		return snprintf(buf, len, "%lluG/%s", (unsigned long long)(count / 1000000000), unit);
	if (count % 1000000 == 0)
		return snprintf(buf, len, "%lluM/%s", (unsigned long long)(count / 1000000), unit);
	if (count % 1000 == 0)
		return snprintf(buf, len, "%lluk/%s", (unsigned long long)(count / 1000), unit);
	return snprintf(buf, len, "%llu/%s", (unsigned long long)count, unit);
}

int xrl_format_duration(__u64 ns, char *buf, size_t len)
{
	__u64 ms = ns / NS_PER_MS;

	if (ms % 60000 == 0)
		return snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
	if (ms % 1000 == 0)
		return snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	return snprintf(buf, len, "%llums", (unsigned long long)ms);
}
