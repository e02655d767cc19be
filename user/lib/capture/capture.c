// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <bpf/bpf.h>
#include "base/critical.h"
#include "capture/capture.h"
#include "base/maps.h"
#include "base/memory.h"
#include "base/objinfo.h"
#include "base/err.h"

__u64 xrl_capture_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (__u64)ts.tv_sec * 1000 + (__u64)ts.tv_nsec / 1000000;
}

int xrl_capture_open(struct xrl_capture *c, const char *dir, const char *iface, char *err, size_t len)
{
	struct bpf_map_info info;
	void *p;

	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->cpu_fd = c->ring_fd = -1;
	c->ctl_fd = xrl_pin_open(dir, XRL_MAP_CAP_CTL);
	c->cpu_fd = xrl_pin_open(dir, XRL_MAP_CAP_CPU);
	c->ring_fd = xrl_pin_open(dir, XRL_MAP_CAP_RING);
	if (c->ctl_fd < 0 || c->cpu_fd < 0 || c->ring_fd < 0) {
		int ret = -errno;

		xrl_capture_close(c);
		if (ret == -ENOENT)
			return xrl_fail(
				ret, err, len,
				"the program on %s was loaded by an xdp-ratelimit without capture: run 'xdp-ratelimit load %s' to upgrade it in place (rules, windows and counters are kept), then capture",
				iface, iface);
		return xrl_fail(ret, err, len, "cannot open the capture maps under %s: %s", dir, strerror(-ret));
	}
	if (xrl_obj_info(c->ctl_fd, &info, sizeof(info)) || info.value_size != sizeof(struct xrl_cap_ctl)) {
		xrl_capture_close(c);
		return xrl_fail(
			-EPROTO, err, len,
			"the capture maps under %s are another version's: run 'xdp-ratelimit load %s' to upgrade", dir,
			iface);
	}
	p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, c->ctl_fd, 0);
	if (p == MAP_FAILED) {
		int ret = -errno;

		xrl_capture_close(c);
		return xrl_fail(ret, err, len, "cannot map the capture's control block under %s: %s", dir,
				strerror(-ret));
	}
	c->ctl = p;
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		xrl_capture_close(c);
		return xrl_fail(-EIO, err, len, "cannot count the possible CPUs: is /sys mounted?");
	}
	c->percpu = xrl_percpu_alloc(c->ncpus, sizeof(struct xrl_cap_cpu));
	if (!c->percpu) {
		xrl_capture_close(c);
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	}
	return 0;
}

void xrl_capture_close(struct xrl_capture *c)
{
	if (c->rb)
		ring_buffer__free(c->rb);
	c->rb = NULL;
	if (c->ctl)
		munmap(c->ctl, (size_t)sysconf(_SC_PAGESIZE));
	c->ctl = NULL;
	if (c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->cpu_fd >= 0)
		close(c->cpu_fd);
	if (c->ring_fd >= 0)
		close(c->ring_fd);
	c->ctl_fd = c->cpu_fd = c->ring_fd = -1;
	free(c->percpu);
	c->percpu = NULL;
}

static int drop_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/*
 * Takes the claim: free (0), or a lease that has ended (its capturer died or
 * is stopped). One compare-and-swap of the whole word, so two captures
 * starting at once cannot both win.
 */
static int claim(struct xrl_capture *c, const char *iface, char *err, size_t len)
{
	__u64 old, now, mine;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		old = __atomic_load_n(&c->ctl->owner, __ATOMIC_ACQUIRE);
		now = xrl_capture_now_ms();
		if (old && XRL_CAP_OWNER_MS(old) > now)
			return xrl_fail(
				-EBUSY, err, len,
				"a capture is already running on %s (pid %u): one at a time; stop it (kill %u) or wait for it to end (a capture that dies gives way within %d s)",
				iface, XRL_CAP_OWNER_PID(old), XRL_CAP_OWNER_PID(old), XRL_CAP_LEASE_MS / 1000);
		mine = XRL_CAP_OWNER(now + XRL_CAP_LEASE_MS, getpid());
		if (__atomic_compare_exchange_n(&c->ctl->owner, &old, mine, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			c->owner = mine;
			c->renewed_ms = now;
			return 0;
		}
	}
	return xrl_fail(-EBUSY, err, len, "cannot claim the capture on %s: it is contended", iface);
}

int xrl_capture_start(struct xrl_capture *c, const struct xrl_cap_ctl *want, ring_buffer_sample_fn fn, void *ctx,
		      const char *iface, char *err, size_t len)
{
	struct xrl_cap_ctl *k = c->ctl;
	struct timespec ts;
	__u64 s = 0;
	int ret;

	ret = claim(c, iface, err, len);
	if (ret)
		return ret;
	/* A lease that ended leaves the flag off in the program's eyes: turn it off in ours too. */
	__atomic_store_n(&k->session, 0, __ATOMIC_RELEASE);
	c->rb = ring_buffer__new(c->ring_fd, drop_record, NULL, NULL);
	if (!c->rb) {
		ret = -errno;
		xrl_capture_stop(c);
		return xrl_fail(ret, err, len, "cannot map the capture ring: %s", strerror(-ret));
	}
	ring_buffer__consume(c->rb); /* what an earlier capture left */
	ring_buffer__free(c->rb);
	c->rb = ring_buffer__new(c->ring_fd, fn, ctx, NULL);
	if (!c->rb) {
		ret = -errno;
		xrl_capture_stop(c);
		return xrl_fail(ret, err, len, "cannot map the capture ring: %s", strerror(-ret));
	}
	while (!s && getrandom(&s, sizeof(s), 0) == sizeof(s))
		;
	if (!s)
		s = ((__u64)getpid() << 32) | (__u64)time(NULL);
	c->session = s;
	k->verdicts = want->verdicts;
	k->rule_id = want->rule_id;
	k->snaplen = want->snaplen;
	k->rate = want->rate;
	k->burst = want->burst;
	k->src_family = want->src_family;
	memcpy(k->src_addr, want->src_addr, sizeof(k->src_addr));
	memcpy(k->src_mask, want->src_mask, sizeof(k->src_mask));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	k->started_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	__atomic_store_n(&k->deadline, XRL_CAP_OWNER_MS(c->owner) * 1000000ULL, __ATOMIC_RELEASE);
	/* Last: the program reads the rest once it sees the session. */
	__atomic_store_n(&k->session, s, __ATOMIC_RELEASE);
	return 0;
}

int xrl_capture_renew(struct xrl_capture *c)
{
	__u64 now = xrl_capture_now_ms(), mine, old = c->owner;
	int ret = 1;

	if (now < c->renewed_ms + XRL_CAP_RENEW_MS)
		return 0;
	mine = XRL_CAP_OWNER(now + XRL_CAP_LEASE_MS, getpid());
	if (!__atomic_compare_exchange_n(&c->ctl->owner, &old, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -EOWNERDEAD;
	c->owner = mine;
	c->renewed_ms = now;
	__atomic_store_n(&c->ctl->deadline, (now + XRL_CAP_LEASE_MS) * 1000000ULL, __ATOMIC_RELEASE);
	/* The program turned it off when the lease ended: on again, the same session. */
	if (__atomic_load_n(&c->ctl->session, __ATOMIC_ACQUIRE) != c->session) {
		__atomic_store_n(&c->ctl->session, c->session, __ATOMIC_RELEASE);
		ret = 2;
	}
	return ret;
}

void xrl_capture_rule(struct xrl_capture *c, __u32 rule_id)
{
	if (c->ctl && __atomic_load_n(&c->ctl->rule_id, __ATOMIC_RELAXED) != rule_id)
		__atomic_store_n(&c->ctl->rule_id, rule_id, __ATOMIC_RELEASE);
}

int xrl_capture_poll(struct xrl_capture *c)
{
	return c->rb ? ring_buffer__consume(c->rb) : 0;
}

void xrl_capture_stop(struct xrl_capture *c)
{
	__u64 mine = c->owner;

	if (!c->ctl || !c->owner)
		return;
	/* Off, unless another capture took the claim (then the session is its own). */
	if (__atomic_load_n(&c->ctl->owner, __ATOMIC_ACQUIRE) == mine) {
		__u64 s = c->session;

		__atomic_compare_exchange_n(&c->ctl->session, &s, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	xrl_wait_programs();
	if (c->rb)
		ring_buffer__consume(c->rb);
	__atomic_compare_exchange_n(&c->ctl->owner, &mine, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	c->owner = 0;
}

int xrl_capture_counts(struct xrl_capture *c, struct xrl_cap_counts *out)
{
	size_t stride = xrl_percpu_stride(sizeof(struct xrl_cap_cpu));
	__u32 zero = 0;
	int i;

	memset(out, 0, sizeof(*out));
	if (bpf_map_lookup_elem(c->cpu_fd, &zero, c->percpu))
		return -errno;
	for (i = 0; i < c->ncpus; i++) {
		const struct xrl_cap_cpu *v = (const void *)((const char *)c->percpu + (size_t)i * stride);

		if (v->session != c->session)
			continue;
		out->matched += v->matched;
		out->captured += v->captured;
		out->lost_rate += v->lost_rate;
		out->lost_full += v->lost_full;
	}
	return 0;
}

int xrl_capture_running(const char *dir, __u32 *pid, __u64 *since_ns)
{
	struct xrl_cap_ctl k;
	struct timespec ts;
	__u32 zero = 0;
	int fd = xrl_pin_open(dir, XRL_MAP_CAP_CTL), ret = 0;

	*pid = 0;
	*since_ns = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (bpf_map_lookup_elem(fd, &zero, &k))
		ret = -errno;
	close(fd);
	if (ret || !k.session || !k.owner || XRL_CAP_OWNER_MS(k.owner) <= xrl_capture_now_ms())
		return ret;
	*pid = XRL_CAP_OWNER_PID(k.owner);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*since_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec - k.started_ns;
	return 0;
}

__u64 xrl_capture_memlock(const char *dir)
{
	static const char *const cap_pins[] = XRL_CAP_PINS;
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < sizeof(cap_pins) / sizeof(cap_pins[0]); i++) {
		int fd = xrl_pin_open(dir, cap_pins[i]);

		if (fd < 0)
			continue;
		sum += xrl_fd_memlock(fd);
		close(fd);
	}
	return sum;
}
