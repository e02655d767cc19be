// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rule kinds' names, and set names. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/err.h"

const char *xrl_proto_name(__u8 proto)
{
	return proto == XRL_PROTO_TCP ? "tcp" : proto == XRL_PROTO_UDP ? "udp" : "?";
}

const char *xrl_kind_name(int kind)
{
	return kind == XRL_KIND_PORT  ? "port" :
	       kind == XRL_KIND_PROTO ? "proto" :
	       kind == XRL_KIND_DST   ? "dst" :
	       kind == XRL_KIND_MATCH ? "match" :
					"prefix";
}

bool xrl_spec_in_dsts(const struct xrl_spec *s)
{
	return s->kind == XRL_KIND_DST || (s->kind == XRL_KIND_PORT && s->family);
}

/* What a rule is called in messages. */
const char *xrl_kind_word(int kind)
{
	return kind == XRL_KIND_PROTO ? "protocol" : kind == XRL_KIND_MATCH ? "match" : xrl_kind_name(kind);
}

int xrl_set_name_check(const char *name, char *err, size_t len)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
			break;
	if (!name[0] || name[i] || i >= XRL_SET_NAME_MAX || !isalpha((unsigned char)name[0]))
		return fail(err, len,
			    "'%s' is not a set's name: a letter, then letters, digits, '_', '-' or '.', at most %d",
			    name, XRL_SET_NAME_MAX - 1);
	return 0;
}

/* What 'per' takes, and what it prints ('per src' is per-source, which prints so). */
static const struct {
	const char *name;
	__u8 per;
} pers[] = { { "src", XRL_PER_SRC },
	     { "dst", XRL_PER_DST },
	     { "src,dport", XRL_PER_SRC | XRL_PER_DPORT },
	     { "dst,dport", XRL_PER_DST | XRL_PER_DPORT } };

int xrl_per_parse(const char *v, __u8 *per, char *err, size_t len)
{
	size_t i;

	for (i = 0; v && i < sizeof(pers) / sizeof(pers[0]); i++)
		if (!strcmp(v, pers[i].name)) {
			*per = pers[i].per;
			return 0;
		}
	return fail(err, len, "'per' %s%s%s: expected src, dst, src,dport or dst,dport (no spaces)", v ? "'" : "",
		    v ? v : "needs a key", v ? "' is not a key" : "");
}

const char *xrl_per_name(__u8 per)
{
	size_t i;

	if (per == XRL_PER_SRC)
		return "per-source";
	if (!per)
		return "aggregate";
	for (i = 0; i < sizeof(pers) / sizeof(pers[0]); i++)
		if (pers[i].per == per)
			return pers[i].name;
	return "?";
}

bool xrl_spec_has_ports(const struct xrl_spec *s)
{
	__u8 p = s->kind == XRL_KIND_MATCH ? s->m.proto : s->proto;

	if (s->kind == XRL_KIND_MATCH && !(s->m.given & XRL_MF_PROTO))
		return false;
	return s->kind != XRL_KIND_PREFIX && s->kind != XRL_KIND_DST && s->sel != XRL_SEL_FRAGMENTS &&
	       (p == XRL_PROTO_TCP || p == XRL_PROTO_UDP);
}

__u8 xrl_spec_per(const struct xrl_spec *s)
{
	return (__u8)((s->r.flags & XRL_F_PER_SOURCE ? XRL_PER_SRC : 0) | s->per);
}
