/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pinned maps of one interface: finding, checking and opening them. */
#ifndef XRL_LIB_MAPS_H
#define XRL_LIB_MAPS_H

#include <limits.h>
#include <stddef.h>
#include "xrl_common.h"

struct xrl_maps {
	char dir[PATH_MAX];
	int port_idx, port_rules, prefixes, state, rule_stats, counters, ctl, latches, scratch;
	int lock; /* the pin folder, flocked while rules change */
	int ncpus;
};

/* XRL_PIN_ROOT/<iface>, checked to fit. */
int xrl_pin_dir(const char *iface, char *buf, size_t len);

/*
 * Checks what every command that touches the kernel needs: root (or
 * CAP_BPF + CAP_NET_ADMIN), and bpffs mounted at /sys/fs/bpf. On failure err
 * holds one sentence that says what to do.
 */
int xrl_check_env(char *err, size_t len);

/* Opens the maps pinned for iface; err says what is wrong and what to do. */
int xrl_maps_open(const char *iface, struct xrl_maps *m, char *err, size_t len);
void xrl_maps_close(struct xrl_maps *m);

/* Serializes rule changes on one interface (flock on the pin folder). */
int xrl_maps_lock(struct xrl_maps *m);

int xrl_ctl_read(const struct xrl_maps *m, struct xrl_ctl *ctl);
int xrl_ctl_write(const struct xrl_maps *m, const struct xrl_ctl *ctl);

/* A buffer for one per-CPU value of size sz, for every possible CPU. */
void *xrl_percpu_alloc(int ncpus, size_t sz);
size_t xrl_percpu_stride(size_t sz);

#endif /* XRL_LIB_MAPS_H */
