// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "codec/rules_read.h"
#include "base/err.h"
#include "read/metrics.h"

/*
 * The counters of the capture running now: the CPUs' counters of its session.
 * Each CPU resets them when it first sees a new session, and nothing tells
 * which session was the last once a capture has ended: 0 while none runs.
 */
static void read_capture(struct xrl_instance_metrics *im)
{
	struct xrl_capture c;
	char err[XRL_ERRLEN];

	if (xrl_capture_open(&c, im->st.dir, im->st.iface, err, sizeof(err)))
		return;
	im->has_capture = true;
	c.session = __atomic_load_n(&c.ctl->session, __ATOMIC_ACQUIRE);
	if (im->st.capture_pid && c.session && xrl_capture_counts(&c, &im->cap))
		memset(&im->cap, 0, sizeof(im->cap));
	xrl_capture_close(&c);
}

/* The counters and the rules' totals of one instance, under its shared lock: never a set half written. */
static int read_one(struct xrl_instance_metrics *im, xrl_mend_fn *mend, char *err, size_t len)
{
	const char *name = im->st.iface;
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	__u64 now;
	size_t i;
	int ret;

	if (im->st.err[0])
		return xrl_fail(-EIO, err, len, "%s", im->st.err);
	ret = mend ? mend(im->st.dir, name, err, len) : 0;
	if (!ret)
		ret = xrl_maps_open_dir(im->st.dir, name, &m, err, len);
	if (ret)
		return ret;
	ret = xrl_maps_lock_shared(&m);
	if (ret) {
		xrl_fail(ret, err, len, "cannot lock %s: %s", m.dir, strerror(-ret));
		goto out;
	}
	ret = xrl_counters_read(&m, &im->counters);
	if (!ret)
		ret = xrl_rules_read(&m, &set);
	if (!ret)
		ret = xrl_clock_now(im->st.ctl.clock, &now);
	if (ret) {
		xrl_fail(ret, err, len, "cannot read the figures of %s: %s", name, strerror(-ret));
		goto out;
	}
	im->st.rules = set.n;
	im->rules = calloc(set.n ? set.n : 1, sizeof(*im->rules));
	if (!im->rules) {
		ret = xrl_fail(-ENOMEM, err, len, "out of memory");
		goto out;
	}
	for (i = 0; i < set.n; i++) {
		struct xrl_rule_totals *t = &im->rules[i];
		struct xrl_rule_report r;

		ret = xrl_rule_report(&m, &set.v[i], now, &r);
		if (ret) {
			xrl_fail(ret, err, len, "cannot read the figures of %s: %s", name, strerror(-ret));
			goto out;
		}
		t->spec = set.v[i];
		t->passed = r.pass;
		t->passed_bytes = r.pass_bytes;
		if (set.v[i].r.flags & XRL_F_MONITOR) {
			t->monitored = r.block;
			t->monitored_bytes = r.block_bytes;
		} else {
			t->blocked = r.block;
			t->blocked_bytes = r.block_bytes;
		}
	}
	read_capture(im);
	xrl_cost_read(im->st.prog_id, &im->cost); /* 0 and 0 when it cannot be read */
out:
	xrl_ruleset_free(&set);
	xrl_maps_close(&m);
	return ret;
}

static bool wanted(const struct xrl_status *st, char *const *ifaces, size_t n, size_t *which)
{
	size_t i;

	if (!st->here || st->gone)
		return false;
	if (!n)
		return true;
	for (i = 0; i < n; i++) {
		if (!strcmp(st->iface, ifaces[i])) {
			*which = i;
			return true;
		}
	}
	return false;
}

int xrl_metrics_read(char *const *ifaces, size_t n, xrl_mend_fn *mend, struct xrl_instance_metrics **out, size_t *count,
		     char *err, size_t len)
{
	struct xrl_instance_metrics *v = NULL;
	struct xrl_status *st = NULL;
	size_t nst = 0, i, which = 0, k = 0;
	bool *found = NULL;
	int ret;

	*out = NULL;
	*count = 0;
	for (i = 0; i < n; i++) {
		ret = xrl_iface_check(ifaces[i], err, len);
		if (ret)
			return ret;
	}
	ret = xrl_status_list(&st, &nst, mend);
	if (ret)
		return xrl_fail(ret, err, len, "cannot list %s: %s", XRL_PIN_ROOT, strerror(-ret));
	v = calloc(nst + n + 1, sizeof(*v));
	found = calloc(n ? n : 1, sizeof(*found));
	if (!v || !found) {
		ret = xrl_fail(-ENOMEM, err, len, "out of memory");
		goto fail;
	}
	for (i = 0; i < nst; i++) {
		if (!wanted(&st[i], ifaces, n, &which))
			continue;
		found[which] = true;
		v[k].st = st[i];
		read_one(&v[k], mend, v[k].err, sizeof(v[k].err));
		k++;
	}
	for (i = 0; i < n; i++) {
		if (found[i])
			continue;
		snprintf(v[k].st.iface, sizeof(v[k].st.iface), "%s", ifaces[i]);
		xrl_fail(
			-ENOENT, v[k].err, sizeof(v[k].err),
			"xdp-ratelimit is not loaded on %s: 'xdp-ratelimit status' lists where it is, 'xdp-ratelimit load %s' loads it",
			ifaces[i], ifaces[i]);
		k++;
	}
	free(st);
	free(found);
	*out = v;
	*count = k;
	return 0;
fail:
	free(st);
	free(found);
	xrl_metrics_free(v, k);
	return ret;
}

void xrl_metrics_free(struct xrl_instance_metrics *v, size_t count)
{
	size_t i;

	for (i = 0; v && i < count; i++)
		free(v[i].rules);
	free(v);
}
