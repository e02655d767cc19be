// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "life/journal.h"
#include "codec/rules_read.h"
#include "base/err.h"
#include "base/maps.h"
#include "read/fleet.h"
#include "read/stats.h"
#include "fleet/agent.h"

/* What a rule's last good sync wants published at the next (xrl_fleet_settle), kept between cycles. */
struct want {
	const char *iface;
	__u32 id, gen;
	__u64 want;
};

struct xrl_agent {
	struct xrl_redis *redis;
	char **ifaces;
	int nifaces;
	struct xrl_agent_opts o;
	struct xrl_agent_rule *rules;
	struct xrl_sync_req *reqs;
	struct want *wants; /* the last cycle's, nwants of them */
	size_t n, cap, nwants;
	int *claims; /* per interface: the lock that claims its instance (xrl_agent_claim), or -1 */
};

int xrl_agent_new(struct xrl_agent **out, struct xrl_redis *redis, char **ifaces, int n, const struct xrl_agent_opts *o)
{
	struct xrl_agent *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->claims = malloc(sizeof(*a->claims) * (size_t)(n ? n : 1));
	if (!a->claims) {
		free(a);
		return -ENOMEM;
	}
	for (int k = 0; k < n; k++)
		a->claims[k] = -1;
	a->redis = redis;
	a->ifaces = ifaces;
	a->nifaces = n;
	a->o = *o;
	*out = a;
	return 0;
}

/* Makes folder path (0700, root's), or checks that the one there is: nobody else may write in it. */
static int private_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int xrl_agent_claim(const char *dir)
{
	char copy[PATH_MAX], path[PATH_MAX + 64];
	int fd, ret;

	/*
	 * A lock on a file in a folder only root can write: an abstract socket's
	 * name, as before, could be taken by any local user, keeping the agent off.
	 */
	ret = private_dir(XRL_RUN_DIR);
	if (!ret)
		ret = private_dir(XRL_RUN_DIR "/sync");
	if (ret)
		return ret;
	snprintf(copy, sizeof(copy), "%s", dir);
	snprintf(path, sizeof(path), XRL_RUN_DIR "/sync/%s.lock", basename(copy));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EADDRINUSE : -errno;
		close(fd);
		return ret;
	}
	return fd;
}

void xrl_agent_free(struct xrl_agent *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < (size_t)a->nifaces; i++)
		if (a->claims[i] >= 0)
			close(a->claims[i]);
	free(a->claims);
	for (i = 0; i < a->cap; i++)
		xrl_sync_req_clear(&a->reqs[i]);
	free(a->reqs);
	free(a->wants);
	free(a->rules);
	free(a);
}

static __u64 realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000 + (__u64)ts.tv_nsec / 1000000;
}

static int grow(struct xrl_agent *a)
{
	size_t cap = a->cap ? a->cap * 2 : 8;
	struct xrl_agent_rule *r = realloc(a->rules, cap * sizeof(*r));
	struct xrl_sync_req *q;
	struct want *w;

	if (!r)
		return -ENOMEM;
	a->rules = r;
	w = realloc(a->wants, cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	a->wants = w;
	q = realloc(a->reqs, cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	memset(q + a->cap, 0, (cap - a->cap) * sizeof(*q));
	a->reqs = q;
	a->cap = cap;
	return 0;
}

/* The want of a rule at the last cycle (0: none, as after a restart); rules come in the same order each cycle. */
static __u64 want_of(const struct xrl_agent *a, size_t hint, const char *iface, __u32 id, __u32 gen)
{
	size_t i;

	for (i = 0; i < a->nwants; i++) {
		const struct want *w = &a->wants[(hint + i) % a->nwants];

		if (w->iface == iface && w->id == id && w->gen == gen)
			return w->want;
	}
	return 0;
}

/*
 * Gathers interface k's global rules and their windows, once this agent has
 * claimed its instance: two agents would both write its allowances.
 */
static int gather(struct xrl_agent *a, int k, char *err, size_t len)
{
	const char *iface = a->ifaces[k];
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	struct xrl_ctl ctl;
	__u64 now;
	size_t i;
	int ret;

	ret = xrl_maps_open_mended(iface, &m, err, len);
	if (ret)
		return ret;
	if (a->claims[k] < 0) {
		a->claims[k] = xrl_agent_claim(m.dir);
		if (a->claims[k] < 0) {
			ret = a->claims[k];
			a->claims[k] = -1;
			xrl_maps_close(&m);
			if (ret == -EADDRINUSE)
				return xrl_fail(
					ret, err, len,
					"another 'xdp-ratelimit sync' serves %s already (one agent an interface: each writes its allowances); this one takes over when it stops",
					iface);
			if (ret == -EPERM)
				return xrl_fail(
					ret, err, len,
					"cannot claim %s for this agent: %s or %s/sync is not a folder of this user's alone (mode 0700): remove it, and run sync as root",
					iface, XRL_RUN_DIR, XRL_RUN_DIR);
			return xrl_fail(ret, err, len, "cannot claim %s for this agent under %s/sync: %s", iface,
					XRL_RUN_DIR, strerror(-ret));
		}
	}
	ret = xrl_maps_lock_shared(&m);
	if (ret) {
		xrl_maps_close(&m);
		return xrl_fail(ret, err, len, "%s was unloaded", iface);
	}
	ret = xrl_ctl_read(&m, &ctl);
	if (!ret)
		ret = xrl_clock_now(ctl.clock, &now);
	if (!ret)
		ret = xrl_rules_read(&m, &set);
	for (i = 0; !ret && i < set.n; i++) {
		struct xrl_agent_rule *r;
		struct xrl_rule_report rep;
		struct xrl_sync_req *q;
		char line[256];
		__u32 id = set.v[i].r.id;

		if (!(set.v[i].r.flags & XRL_F_GLOBAL))
			continue;
		if (a->n == a->cap && (ret = grow(a)))
			break;
		r = &a->rules[a->n];
		q = &a->reqs[a->n];
		memset(r, 0, sizeof(*r));
		r->iface = iface;
		r->spec = set.v[i];
		if (xrl_rule_report(&m, &set.v[i], now, &rep))
			continue;
		r->pass = rep.window.pass;
		r->demand = rep.window.pass + rep.window.block;
		xrl_spec_format(&set.v[i], line, sizeof(line));
		xrl_rule_tag(line, r->tag);
		if (bpf_map_lookup_elem(m.fleet, &id, &r->f) || r->f.gen != set.v[i].r.gen)
			memset(&r->f, 0, sizeof(r->f)); /* a new rule in this slot */
		r->prev_policy = r->f.policy;
		r->prev_nodes = r->f.nodes;
		memcpy(q->tag, r->tag, sizeof(q->tag));
		snprintf(q->member, sizeof(q->member), "%s/%s", a->o.node, iface);
		q->pass = r->pass;
		q->demand = r->demand;
		r->want = want_of(a, a->n, iface, id, set.v[i].r.gen);
		q->reserve = xrl_fleet_reserve(r->want, r->f.fallback, set.v[i].r.threshold);
		a->n++;
	}
	xrl_ruleset_free(&set);
	xrl_maps_unlock(&m);
	xrl_maps_close(&m);
	if (ret)
		return xrl_fail(ret, err, len, "cannot read the rules of %s: %s", iface, strerror(-ret));
	return 0;
}

/* The interval when none is given: one bucket of the shortest global rule (1 s when none). */
static __u32 bucket_interval(const struct xrl_agent_rule *r, size_t n)
{
	__u64 ms = 1000;
	size_t i;

	for (i = 0; i < n; i++) {
		__u64 b = r[i].spec.r.interval_ns / r[i].spec.r.buckets / 1000000;

		if (b < ms)
			ms = b;
	}
	return ms < 10 ? 10 : (__u32)ms;
}

/* The rule's new state, from its sync's outcome. */
static void settle(struct xrl_agent *a, struct xrl_agent_rule *r, const struct xrl_sync_req *q, __u32 interval_ms,
		   __u64 now_ms)
{
	struct xrl_sync_outcome o = {
		.limit = r->spec.r.threshold,
		.demand = r->demand,
		.published = q->reserve,
		.ok = !q->ret,
		.members = q->members,
		.nmembers = q->nmembers,
		.on_loss = a->o.on_loss,
		.interval_ms = interval_ms,
		.now_ms = now_ms,
		.now_coarse_ns = xrl_fleet_now(),
	};

	r->f.gen = r->spec.r.gen;
	r->f.agent_pid = (__u32)getpid();
	xrl_fleet_settle(&r->f, &r->want, &o);
	if (q->ret)
		snprintf(r->err, sizeof(r->err), "%s", q->err);
	else
		r->err[0] = '\0';
}

static int write_back(struct xrl_agent *a, size_t from, size_t to, const char *iface)
{
	struct xrl_maps m;
	char err[XRL_ERRLEN];
	size_t i;
	int ret = xrl_maps_open_mended(iface, &m, err, sizeof(err));

	if (ret)
		return ret;
	for (i = from; i < to; i++) {
		__u32 id = a->rules[i].spec.r.id;

		if (bpf_map_update_elem(m.fleet, &id, &a->rules[i].f, BPF_ANY))
			ret = -errno;
	}
	xrl_maps_close(&m);
	return ret;
}

int xrl_agent_cycle(struct xrl_agent *a, const struct xrl_agent_rule **rules, size_t *n, __u32 *interval_ms, char *err,
		    size_t len)
{
	size_t *start = calloc((size_t)a->nifaces + 1, sizeof(*start)), i;
	int k, ret = 0, r;
	__u64 now_ms;

	if (!start)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	a->n = 0;
	for (k = 0; k < a->nifaces; k++) {
		char e[XRL_ERRLEN];

		start[k] = a->n;
		r = gather(a, k, e, sizeof(e));
		if (r && !ret)
			ret = xrl_fail(r, err, len, "%s", e);
	}
	start[a->nifaces] = a->n;
	*interval_ms = a->o.interval_ms ? a->o.interval_ms : bucket_interval(a->rules, a->n);
	xrl_redis_sync(a->redis, *interval_ms * XRL_SYNC_TTL_INTERVALS, a->reqs, a->n);
	now_ms = realtime_ms();
	for (i = 0; i < a->n; i++) {
		settle(a, &a->rules[i], &a->reqs[i], *interval_ms, now_ms);
		a->wants[i] = (struct want){ a->rules[i].iface, a->rules[i].spec.r.id, a->rules[i].spec.r.gen,
					     a->rules[i].want };
	}
	a->nwants = a->n;
	for (k = 0; k < a->nifaces; k++) {
		if (start[k] == start[k + 1])
			continue;
		r = write_back(a, start[k], start[k + 1], a->ifaces[k]);
		if (r && !ret)
			ret = xrl_fail(r, err, len, "cannot write the allowances of %s: %s", a->ifaces[k],
				       strerror(-r));
	}
	free(start);
	*rules = a->rules;
	*n = a->n;
	return ret;
}
