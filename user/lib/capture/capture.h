/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A capture's control side (include/xrl_capture.h has the design): the
 * claim on an instance's capture, its lease, the ring, the counters. Prints
 * nothing; the command (user/cli/cmd_capture.c) writes the frames.
 */
#ifndef XRL_LIB_CAPTURE_H
#define XRL_LIB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>
#include "xrl_common.h"
#include "xrl_capture.h"

/*
 * The claim (xrl_cap_ctl.owner): the lease's end in CLOCK_MONOTONIC_COARSE
 * ms above, the capturer's pid below, in one word that a compare-and-swap
 * takes or renews whole. A claim whose lease has ended is free to take.
 */
#define XRL_CAP_PID_BITS 22 /* the kernel's PID_MAX_LIMIT, 4M */
#define XRL_CAP_OWNER(ms, pid) (((__u64)(ms) << XRL_CAP_PID_BITS) | ((__u64)(pid) & ((1U << XRL_CAP_PID_BITS) - 1)))
#define XRL_CAP_OWNER_MS(o) ((o) >> XRL_CAP_PID_BITS)
#define XRL_CAP_OWNER_PID(o) ((__u32)((o) & ((1U << XRL_CAP_PID_BITS) - 1)))

struct xrl_capture {
	int ctl_fd, cpu_fd, ring_fd;
	struct xrl_cap_ctl *ctl; /* the control block, mmapped */
	__u64 owner;		 /* our claim, as last taken or renewed */
	__u64 session;
	__u64 renewed_ms; /* when the claim was last renewed */
	int ncpus;
	struct ring_buffer *rb;
	void *percpu; /* room to read xrl_cap_cpu */
};

/* What became of the frames that matched, summed over the CPUs (xrl_cap_cpu). */
struct xrl_cap_counts {
	__u64 matched, captured, lost_rate, lost_full;
};

/*
 * Opens the capture maps of the instance pinned in dir (iface names it in
 * messages): -ENOENT and err when the instance was loaded by a build
 * without capture (a load upgrades it in place).
 */
int xrl_capture_open(struct xrl_capture *c, const char *dir, const char *iface, char *err, size_t len);
void xrl_capture_close(struct xrl_capture *c);

/*
 * Claims the instance's capture and turns it on with want's verdicts,
 * filters, snaplen and budget (its session, deadline and owner are set
 * here). -EBUSY with err naming the other capture's pid when another holds
 * it. Records left in the ring by an earlier capture are dropped first.
 * fn gets every record of this capture (xrl_capture_poll).
 */
int xrl_capture_start(struct xrl_capture *c, const struct xrl_cap_ctl *want, ring_buffer_sample_fn fn, void *ctx,
		      const char *iface, char *err, size_t len);

/*
 * Renews the lease when XRL_CAP_RENEW_MS have passed since the last time:
 * 0 when it is not time yet, 1 when renewed; 2 when it had lapsed meanwhile
 * (this process was stopped longer than the lease: the program had turned
 * the capture off) and was turned on again; -EOWNERDEAD when another capture
 * took the claim meanwhile.
 */
int xrl_capture_renew(struct xrl_capture *c);

/* Changes the capture's --rule filter: the rule's id + 1 (xrl_cap_ctl.rule_id). */
void xrl_capture_rule(struct xrl_capture *c, __u32 rule_id);

/* Hands fn the records in the ring: how many, or -errno. */
int xrl_capture_poll(struct xrl_capture *c);

/*
 * Turns the capture off, waits until no program can still be writing, hands
 * fn what is left in the ring, and lets the claim go.
 */
void xrl_capture_stop(struct xrl_capture *c);

/* This capture's counters, summed over the CPUs. */
int xrl_capture_counts(struct xrl_capture *c, struct xrl_cap_counts *out);

/* CLOCK_MONOTONIC_COARSE in ms: the clock of the claim's lease. */
__u64 xrl_capture_now_ms(void);

/*
 * The capture running on the instance in dir: its capturer's pid (0 when
 * none runs), and how long ago it started (ns).
 */
int xrl_capture_running(const char *dir, __u32 *pid, __u64 *since_ns);

/* The kernel's bytes for the capture maps in dir (their memlock); 0 when it has none. */
__u64 xrl_capture_memlock(const char *dir);

#endif /* XRL_LIB_CAPTURE_H */
