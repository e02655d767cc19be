// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The match words whose values are bits and bytes: 'tcp flags FLAGS [/ MASK]', 'payload OFFSET HEX [/ MASK]'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "rules/match_parse.h"
#include "base/err.h"

static int flag_list(struct mp *p, const char *s, __u8 *out)
{
	char buf[64], *save = NULL, *e;

	*out = 0;
	if (!strcmp(s, "none"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		int bit = xrl_tcp_flag_value(e);

		if (bit < 0)
			return fail(
				p->err, p->len,
				"'%s' is not a TCP flag: expected fin, syn, rst, psh, ack, urg, ece, cwr (comma-separated) or none",
				e);
		*out |= (__u8)bit;
	}
	if (!*out)
		return fail(p->err, p->len, "'tcp flags' needs flags: like 'syn / syn,ack'");
	return 0;
}

/* VALUE [/ MASK], "VALUE/MASK" or "VALUE /MASK": the value's and the mask's words (mask NULL: none). */
static int slash_pair(struct mp *p, const char *word, const char *expected, char *val, char *mask, size_t n)
{
	const char *v = xrl_mp_next(p, word, expected), *slash;

	if (!v)
		return -EINVAL;
	slash = strchr(v, '/');
	snprintf(val, n, "%.*s", slash ? (int)(slash - v) : (int)strlen(v), v);
	mask[0] = '\0';
	if (slash && slash[1]) {
		snprintf(mask, n, "%s", slash + 1);
	} else if (slash || (p->i < p->argc && p->argv[p->i][0] == '/')) {
		if (!slash && p->argv[p->i][1]) {
			snprintf(mask, n, "%s", p->argv[p->i++] + 1);
		} else {
			if (!slash)
				p->i++;
			v = xrl_mp_next(p, "/", "a mask after '/'");
			if (!v)
				return -EINVAL;
			snprintf(mask, n, "%s", v);
		}
	}
	return 0;
}

int xrl_mp_flags(struct mp *p, const struct mword *w)
{
	char val[64], mask[64];

	(void)w;
	if (p->m->given & XRL_MF_TCPFLAGS)
		return fail(p->err, p->len, "'tcp flags' is given twice: give it once");
	if (p->i >= p->argc || strcmp(p->argv[p->i], "flags"))
		return fail(p->err, p->len, "'tcp' takes 'flags': write 'tcp flags syn / syn,ack'");
	p->i++;
	if (slash_pair(p, "tcp flags", "flags like 'ack / syn,ack,rst'", val, mask, sizeof(val)) ||
	    flag_list(p, val, &p->m->flags) || (mask[0] && flag_list(p, mask, &p->m->flags_mask)))
		return -EINVAL;
	if (!mask[0] && !p->m->flags)
		return fail(p->err, p->len,
			    "'tcp flags none' needs a mask: 'none / syn,ack' is a packet with neither SYN nor ACK");
	if (!mask[0])
		p->m->flags_mask = p->m->flags;
	if (p->m->flags & ~p->m->flags_mask)
		return fail(
			p->err, p->len,
			"'tcp flags %s / %s': the flags are compared under the mask, so ones outside it match no packet; add them to the mask",
			val, mask);
	p->m->given |= XRL_MF_TCPFLAGS;
	return xrl_mp_set_proto(p, XRL_PROTO_TCP, "tcp flags");
}

/* HEX, 1 to XRL_MATCH_PAYLOAD bytes ("032a", "0x032a"): its bytes, or -EINVAL. */
static int hex_bytes(struct mp *p, const char *what, const char *s, __u8 *out)
{
	size_t n, i;

	if (!strncmp(s, "0x", 2))
		s += 2;
	n = strlen(s);
	if (!n || n % 2 || n > 2 * XRL_MATCH_PAYLOAD || strspn(s, "0123456789abcdefABCDEF") != n)
		return fail(
			p->err, p->len,
			"payload %s '%s' is not bytes in hex: expected 1 to %d bytes, two hex digits each, like 032a",
			what, s, XRL_MATCH_PAYLOAD);
	for (i = 0; i < n / 2; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };

		out[i] = (__u8)strtoul(b, NULL, 16);
	}
	return (int)(n / 2);
}

int xrl_mp_payload(struct mp *p, const struct mword *w)
{
	char val[64], mask[64];
	unsigned long off;
	const char *v = xrl_mp_next(p, w->word, "OFFSET HEX, like 'payload 2 032a'");
	int n, k;

	if (!v)
		return -EINVAL;
	if (xrl_mp_number(v, XRL_MATCH_PAYLOAD_OFF_MAX, &off))
		return fail(
			p->err, p->len,
			"payload offset '%s' is not an offset: expected bytes from the transport payload's start, 0 to %d",
			v, XRL_MATCH_PAYLOAD_OFF_MAX);
	if (slash_pair(p, "payload", "HEX bytes like 032a", val, mask, sizeof(val)))
		return -EINVAL;
	n = hex_bytes(p, "value", val, p->m->payload);
	if (n < 0)
		return n;
	memset(p->m->payload_mask, 0xff, (size_t)n);
	if (mask[0]) {
		k = hex_bytes(p, "mask", mask, p->m->payload_mask);
		if (k < 0)
			return k;
		if (k != n)
			return fail(
				p->err, p->len,
				"payload mask '%s' is %d bytes and the value '%s' %d: give a mask as long as the value",
				mask, k, val, n);
		for (k = 0; k < n; k++)
			if (p->m->payload[k] & ~p->m->payload_mask[k])
				return fail(
					p->err, p->len,
					"payload value '%s' has bits its mask '%s' clears: the bytes are compared under the mask, so no packet would match; clear them in the value",
					val, mask);
	}
	p->m->payload_off = (__u16)off;
	p->m->payload_len = (__u8)n;
	return 0;
}
