// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Match rules into the classifier's per-field constraints (codec/match_lbvs.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "base/err.h"
#include "codec/match_lbvs.h"

/* A named port set's ranges are the builder's as they are: the set outlives the build. */
_Static_assert(sizeof(struct xrl_vrange) == sizeof(struct xrl_lbvs_range) &&
		       offsetof(struct xrl_vrange, hi) == offsetof(struct xrl_lbvs_range, hi),
	       "a port set's ranges have the builder's layout");

int xrl_match_lbvs(const struct xrl_spec *s, const struct xrl_ruleset *set, struct xrl_match_lbvs *out, char *err,
		   size_t len)
{
	struct xrl_vrange v[XRL_MATCH_FIELD_RANGES];
	int f, n, i;

	memset(out, 0, sizeof(*out));
	if (s->kind != XRL_KIND_MATCH)
		return xrl_fail(-EINVAL, err, len, "a %s rule is not a rule of several fields: it has maps of its own",
				xrl_kind_name(s->kind));
	for (f = 0; f < XRL_LBVS_FIELDS; f++) {
		struct xrl_lbvs_cond *c = &out->rule.f[f];

		c->r = out->r[f];
		if (f == XRL_LBVS_TCPFLAGS && (s->m.given & XRL_MF_TCPFLAGS)) {
			c->r = out->flags;
			n = xrl_lbvs_flags_ranges(s->m.flags_mask, s->m.flags, out->flags);
			if (n < 0)
				return xrl_fail(n, err, len, "tcp flags %#x under mask %#x match no packet", s->m.flags,
						s->m.flags_mask);
			c->n = (__u32)n;
			continue;
		}
		if ((f == XRL_LBVS_DPORT && s->m.dport_set[0]) || (f == XRL_LBVS_SPORT && s->m.sport_set[0])) {
			const struct xrl_mranges *mr = f == XRL_LBVS_DPORT ? &s->m.dport : &s->m.sport;
			const char *name = f == XRL_LBVS_DPORT ? s->m.dport_set : s->m.sport_set;
			const struct xrl_pset *ps = set ? xrl_ruleset_port_set(set, name) : NULL;

			/* A set of many ranges is pointed to, not copied: r has room for a rule's own. */
			if (!ps)
				return xrl_fail(
					-EINVAL, err, len,
					"'%s @%s': the rules have no port set %s: define it ('set %s ports { 80, 443 }') in the rules file and apply that",
					f == XRL_LBVS_DPORT ? "dport" : "sport", name, name, name);
			if (!ps->nports && !mr->neg) {
				out->r[f][0] = (struct xrl_lbvs_range){ 0, xrl_lbvs_domain((__u32)f) - 1 };
				c->n = 1;
				c->neg = 1;
			} else if (ps->nports) {
				c->r = (const struct xrl_lbvs_range *)ps->ports;
				c->n = (__u32)ps->nports;
				c->neg = mr->neg;
			}
			continue;
		}
		n = xrl_match_field_ranges(s, set, f, v);
		if (n > XRL_MATCH_RANGES + 1) /* tcp flags only, handled above */
			return xrl_fail(-EINVAL, err, len, "field %d has %d ranges", f, n);
		if (n < 0)
			continue; /* not constrained: c->n 0 */
		if (n == 0) {
			/* No value: every value excluded. */
			out->r[f][0] = (struct xrl_lbvs_range){ 0, xrl_lbvs_domain((__u32)f) - 1 };
			c->n = 1;
			c->neg = 1;
			continue;
		}
		for (i = 0; i < n; i++)
			out->r[f][i] = (struct xrl_lbvs_range){ v[i].lo, v[i].hi };
		c->n = (__u32)n;
	}
	return 0;
}
