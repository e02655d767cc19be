// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Addresses and prefixes: "10.0.0.0/8", "2001:db8::/32", a host, parsed and printed. */
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

int xrl_parse_prefix(const char *s, __u8 *family, __u8 *addr, __u8 *plen, char *err, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long bits;
	__u8 max;
	int i;

	if (strlen(s) >= sizeof(buf))
		return fail(err, len,
			    "prefix '%s' is not an address: expected ADDR/LEN like 10.0.0.0/8 or 2001:db8::/32", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1) {
		*family = XRL_FAMILY_V4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		*family = XRL_FAMILY_V6;
		max = 128;
	} else {
		return fail(err, len,
			    "'%s' is not an IPv4 or IPv6 address: expected ADDR/LEN like 10.0.0.0/8 or 2001:db8::/32",
			    buf);
	}
	bits = max;
	if (slash) {
		errno = 0;
		bits = strtoul(slash + 1, &end, 10);
		if (!isdigit((unsigned char)slash[1]) || *end || errno)
			return fail(err, len, "prefix length '%s' is not a number", slash + 1);
		if (bits > max)
			return fail(err, len, "prefix length /%lu is longer than an IPv%d address (at most /%u)", bits,
				    *family, max);
	}
	for (i = 0; i < max / 8; i++) {
		unsigned int keep = bits >= (unsigned)(i + 1) * 8 ? 8 : bits > (unsigned)i * 8 ? bits - i * 8 : 0;
		__u8 mask = keep ? (__u8)(0xff << (8 - keep)) : 0;

		if (addr[i] & ~mask) {
			char net[INET6_ADDRSTRLEN];
			int j;

			for (j = i; j < max / 8; j++) {
				keep = bits >= (unsigned)(j + 1) * 8 ? 8 : bits > (unsigned)j * 8 ? bits - j * 8 : 0;
				addr[j] &= keep ? (__u8)(0xff << (8 - keep)) : 0;
			}
			xrl_format_addr(*family, addr, net, sizeof(net));
			return fail(err, len, "prefix '%s' has host bits set: did you mean %s/%lu?", s, net, bits);
		}
	}
	*plen = (__u8)bits;
	return 0;
}

int xrl_parse_match_prefix(const char *word, const char *s, __u8 *family, __u8 *addr, __u8 *plen, char *err, size_t len)
{
	static const __u8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int ret = xrl_parse_prefix(s, family, addr, plen, err, len);

	if (ret)
		return ret;
	/* IPv4 arrives as IPv4: no frame carries an address in ::ffff:0:0/96. */
	if (*family == XRL_FAMILY_V6 && *plen >= 96 && !memcmp(addr, mapped, sizeof(mapped)))
		return fail(
			err, len,
			"'%s' is an IPv4-mapped IPv6 prefix, which no packet matches (IPv4 traffic arrives as IPv4): write it as %s%s%u.%u.%u.%u/%u",
			s, word, *word ? " " : "", addr[12], addr[13], addr[14], addr[15], *plen - 96);
	return 0;
}

int xrl_format_addr(__u8 family, const __u8 *addr, char *buf, size_t len)
{
	if (!inet_ntop(family == XRL_FAMILY_V4 ? AF_INET : AF_INET6, addr, buf, (socklen_t)len)) {
		snprintf(buf, len, "?");
		return -errno;
	}
	return 0;
}
