// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rule set in force, read back from the maps (declared in rules_read.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "codec/dsts.h"
#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "codec/ports.h"
#include "codec/protos.h"
#include "codec/rules_read.h"
#include "codec/windows.h"

/* Appends the port rules of one set to out. */
static int read_ports(const struct xrl_maps *m, __u8 set, struct xrl_ruleset *out)
{
	struct xrl_port_rule *ports = calloc(XRL_MAX_RULES, sizeof(*ports));
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	size_t i, n;
	int ret;

	if (!ports)
		return -ENOMEM;
	ret = xrl_ports_read(m->port_rules, set, ports, &n);
	for (i = 0; !ret && i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.r = ports[i].r;
		s.kind = XRL_KIND_PORT;
		s.proto = ports[i].proto;
		s.port = ports[i].port;
		ret = xrl_ruleset_add(out, &s, err, sizeof(err));
	}
	free(ports);
	return ret;
}

/* Appends the protocol rules of one set to out. */
static int read_protos(const struct xrl_maps *m, __u8 set, struct xrl_ruleset *out)
{
	struct xrl_proto_rule *protos = calloc(XRL_SELS, sizeof(*protos));
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	size_t i, n;
	int ret;

	if (!protos)
		return -ENOMEM;
	ret = xrl_protos_read(m->proto_rules, set, protos, &n);
	for (i = 0; !ret && i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.r = protos[i].r;
		s.kind = XRL_KIND_PROTO;
		s.sel = protos[i].sel;
		s.proto = s.sel == XRL_SEL_SYN ? XRL_PROTO_TCP : (__u8)s.sel;
		ret = xrl_ruleset_add(out, &s, err, sizeof(err));
	}
	free(protos);
	return ret;
}

/* Appends the port rules narrowed to a destination of one set to out (entries of proto 0 are stale dst rules). */
static int read_dsts(const struct xrl_maps *m, __u8 set, struct xrl_ruleset *out)
{
	struct xrl_dst_key dk, *pdk = NULL;
	char err[XRL_ERRLEN];
	struct xrl_spec s;
	int ret;

	while (!bpf_map_get_next_key(m->dsts, pdk, &dk)) {
		pdk = &dk;
		if (dk.set != set || !dk.proto)
			continue;
		memset(&s, 0, sizeof(s));
		if (bpf_map_lookup_elem(m->dsts, &dk, &s.r))
			continue;
		s.kind = XRL_KIND_PORT;
		s.proto = dk.proto;
		s.port = dk.port;
		s.family = dk.family;
		s.plen = (__u8)(dk.prefixlen - XRL_DST_HDR_BITS);
		memcpy(s.addr, dk.addr, 16);
		ret = xrl_ruleset_add(out, &s, err, sizeof(err));
		if (ret)
			return ret;
	}
	return 0;
}

int xrl_rules_read_set(const struct xrl_maps *m, __u8 set, bool items, struct xrl_ruleset *out)
{
	struct xrl_match_fds mf;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_ports(m, set, out);
	if (!ret)
		ret = read_protos(m, set, out);
	if (!ret)
		ret = xrl_lpm_read(m, set, items, out);
	if (!ret)
		ret = read_dsts(m, set, out);
	if (!ret && !xrl_match_fds_of(m, &mf))
		ret = xrl_match_read(&mf, set, out) ?: xrl_lpm_read_match_sets(m, set, items, out);
	if (!ret && m->windows >= 0)
		ret = xrl_windows_read(m->windows, out);
	if (ret)
		xrl_ruleset_free(out);
	return ret;
}

int xrl_rules_read(const struct xrl_maps *m, struct xrl_ruleset *set)
{
	struct xrl_ctl ctl;
	int ret = xrl_ctl_read(m, &ctl);

	return ret ? ret : xrl_rules_read_set(m, ctl.active_set & 1, false, set);
}

int xrl_rules_read_full(const struct xrl_maps *m, struct xrl_ruleset *set)
{
	struct xrl_ctl ctl;
	int ret = xrl_ctl_read(m, &ctl);

	return ret ? ret : xrl_rules_read_set(m, ctl.active_set & 1, true, set);
}

__u32 xrl_ruleset_cells(const struct xrl_ruleset *set)
{
	__u32 n = 0;
	size_t i;

	int k;

	for (i = 0; i < set->n; i++)
		for (k = 0; k <= set->v[i].nw; k++)
			if (xrl_spec_window(&set->v[i], k)->buckets > n)
				n = xrl_spec_window(&set->v[i], k)->buckets;
	return xrl_cells_for(n);
}
