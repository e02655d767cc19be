// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The names a match rule's values take: ICMP types, TCP flags, DSCP classes, fragment states. */
#include <stdio.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"

static const struct {
	const char *name;
	__u8 type;
} icmp_types[] = {
	{ "echo-reply", 0 },	      { "destination-unreachable", 3 }, { "source-quench", 4 },
	{ "redirect", 5 },	      { "echo-request", 8 },		{ "router-advertisement", 9 },
	{ "router-solicitation", 10 }, { "time-exceeded", 11 },		{ "parameter-problem", 12 },
	{ "timestamp-request", 13 },  { "timestamp-reply", 14 },
}, icmpv6_types[] = {
	{ "destination-unreachable", 1 }, { "packet-too-big", 2 },	 { "time-exceeded", 3 },
	{ "parameter-problem", 4 },	  { "echo-request", 128 },	 { "echo-reply", 129 },
	{ "mld-listener-query", 130 },	  { "mld-listener-report", 131 }, { "nd-router-solicit", 133 },
	{ "nd-router-advert", 134 },	  { "nd-neighbor-solicit", 135 }, { "nd-neighbor-advert", 136 },
	{ "nd-redirect", 137 },
};

int xrl_icmp_type_value(const char *name, bool v6)
{
	size_t i, n = v6 ? sizeof(icmpv6_types) / sizeof(icmpv6_types[0]) : sizeof(icmp_types) / sizeof(icmp_types[0]);

	for (i = 0; i < n; i++)
		if (!strcmp(name, v6 ? icmpv6_types[i].name : icmp_types[i].name))
			return v6 ? icmpv6_types[i].type : icmp_types[i].type;
	return -1;
}

/* TCP flags in the order they print: the common ones first ("syn,ack,rst"). */
static const struct {
	const char *name;
	__u8 bit;
} tcp_flags[] = { { "syn", 0x02 }, { "ack", 0x10 }, { "rst", 0x04 }, { "fin", 0x01 },
		  { "psh", 0x08 }, { "urg", 0x20 }, { "ece", 0x40 }, { "cwr", 0x80 } };
#define N_TCP_FLAGS (sizeof(tcp_flags) / sizeof(tcp_flags[0]))

int xrl_tcp_flags_format(__u8 v, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!v)
		return snprintf(buf, len, "none");
	for (i = 0; i < N_TCP_FLAGS; i++)
		if (v & tcp_flags[i].bit)
			n += (size_t)snprintf(buf + n, len > n ? len - n : 0, "%s%s", n ? "," : "", tcp_flags[i].name);
	return (int)n;
}

int xrl_tcp_flag_value(const char *name)
{
	size_t i;

	for (i = 0; i < N_TCP_FLAGS; i++)
		if (!strcmp(name, tcp_flags[i].name))
			return tcp_flags[i].bit;
	return -1;
}

static const struct {
	const char *name;
	__u8 v;
} dscps[] = { { "cs0", 0 },   { "cs1", 8 },   { "af11", 10 }, { "af12", 12 }, { "af13", 14 }, { "cs2", 16 },
	      { "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "cs3", 24 },  { "af31", 26 }, { "af32", 28 },
	      { "af33", 30 }, { "cs4", 32 },  { "af41", 34 }, { "af42", 36 }, { "af43", 38 }, { "cs5", 40 },
	      { "ef", 46 },   { "cs6", 48 },  { "cs7", 56 } };

int xrl_dscp_value(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(dscps) / sizeof(dscps[0]); i++)
		if (!strcmp(name, dscps[i].name))
			return dscps[i].v;
	return -1;
}

const char *xrl_dscp_name(unsigned int v)
{
	size_t i;

	for (i = 0; i < sizeof(dscps) / sizeof(dscps[0]); i++)
		if (dscps[i].v == v)
			return dscps[i].name;
	return NULL;
}

static const char *const frags[] = { "none", "first", "later" };

int xrl_frag_value(const char *name)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, frags[i]))
			return i;
	return -1;
}

const char *xrl_frag_name(unsigned int v)
{
	return v < 3 ? frags[v] : NULL;
}
