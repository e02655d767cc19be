// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The shorthands' values: 'port PORT/PROTO', 'proto NAME|N [type N]'. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

int xrl_shorthand_port(const char *s, struct xrl_spec *out, char *err, size_t len)
{
	const char *slash = strchr(s, '/');
	char *end;
	unsigned long port;

	errno = 0;
	port = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || end != slash || errno || !slash)
		return fail(err, len, "'%s' is not a port: expected PORT/PROTO like 53/udp or 443/tcp", s);
	if (port == 0 || port > 65535)
		return fail(err, len, "port %lu is out of range: expected 1 to 65535", port);
	if (!strcmp(slash + 1, "tcp"))
		out->proto = XRL_PROTO_TCP;
	else if (!strcmp(slash + 1, "udp"))
		out->proto = XRL_PROTO_UDP;
	else
		return fail(err, len, "protocol '%s' is not supported: expected tcp or udp", slash + 1);
	out->port = (__u16)port;
	return 0;
}

/* Protocol names "proto" takes besides a number; tcp-syn is a selector of its own. */
static const struct {
	const char *name;
	__u16 sel;
} proto_names[] = {
	{ "tcp-syn", XRL_SEL_SYN }, { "tcp", XRL_PROTO_TCP },	    { "udp", XRL_PROTO_UDP },
	{ "icmp", XRL_PROTO_ICMP }, { "icmpv6", XRL_PROTO_ICMPV6 },
};

int xrl_sel_format(__u16 sel, char *buf, size_t len)
{
	size_t i;

	if (sel >= XRL_SEL_ICMP(0) && sel <= XRL_SEL_ICMP(255))
		return snprintf(buf, len, "icmp type %u", sel - XRL_SEL_ICMP(0));
	if (sel >= XRL_SEL_ICMPV6(0) && sel <= XRL_SEL_ICMPV6(255))
		return snprintf(buf, len, "icmpv6 type %u", sel - XRL_SEL_ICMPV6(0));
	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (proto_names[i].sel == sel)
			return snprintf(buf, len, "%s", proto_names[i].name);
	return snprintf(buf, len, "%u", sel);
}

/* "proto NAME|N [type N]": the words it takes (2 or 4), or -EINVAL. */
int xrl_shorthand_proto(int argc, char **argv, struct xrl_spec *out, char *err, size_t len)
{
	unsigned long v;
	size_t i;
	char *end;

	out->kind = XRL_KIND_PROTO;
	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (!strcmp(argv[1], proto_names[i].name))
			break;
	if (i < sizeof(proto_names) / sizeof(proto_names[0])) {
		out->sel = proto_names[i].sel;
	} else {
		errno = 0;
		v = strtoul(argv[1], &end, 10);
		if (!isdigit((unsigned char)argv[1][0]) || *end || errno || v > 255)
			return fail(
				err, len,
				"'%s' is not a protocol: expected tcp-syn, tcp, udp, icmp, icmpv6 or an IP protocol number from 0 to 255",
				argv[1]);
		out->sel = (__u16)v;
	}
	out->proto = out->sel == XRL_SEL_SYN ? XRL_PROTO_TCP : (__u8)out->sel;
	if (argc < 3 || strcmp(argv[2], "type"))
		return 2;
	if (out->sel != XRL_PROTO_ICMP && out->sel != XRL_PROTO_ICMPV6)
		return fail(err, len,
			    "'type' is for icmp and icmpv6 rules: write 'proto icmp type N' or 'proto icmpv6 type N'");
	errno = 0;
	v = argc > 3 ? strtoul(argv[3], &end, 10) : 0;
	if (argc < 4 || !isdigit((unsigned char)argv[3][0]) || *end || errno || v > 255)
		return fail(err, len,
			    "icmp 'type' needs a number from 0 to 255 (8 is echo request, 128 in icmpv6), got '%s'",
			    argc > 3 ? argv[3] : "nothing");
	out->sel = out->sel == XRL_PROTO_ICMP ? XRL_SEL_ICMP(v) : XRL_SEL_ICMPV6(v);
	return 4;
}
