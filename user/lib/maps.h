/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pinned maps of one interface: finding, checking and opening them. */
#ifndef XRL_LIB_MAPS_H
#define XRL_LIB_MAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "xrl_common.h"

#define XRL_BPFFS "/sys/fs/bpf"

struct xrl_maps {
	char dir[PATH_MAX];
	int port_idx, port_rules, proto_rules, lpm_rules, lpm_dir, lpm_ranges, sets, set_items, dsts, state, rule_stats,
		counters, ctl, latches, scratch, sketch, fleet, then;
	int lock; /* the pin folder, flocked while rules change */
	int ncpus;
	__u32 cells;	 /* the cells of every ring (xrl_state's, xrl_rule_stats'), as loaded */
	__u32 rule_ids;	 /* the rules' counter slots (xrl_rule_stats' entries), as loaded */
	bool latches_v0; /* the program running is a build's before XRL_LATCH_SLOTS: its latches at xrl_key_slot_v0 */
};

/*
 * Whether iface can be an interface's name, as the kernel's dev_valid_name
 * decides (non-empty, shorter than IFNAMSIZ, not "." or "..", no '/', ':' or
 * white space), and has no control characters: only then is it safe to build
 * a path from. -EINVAL and a sentence in err otherwise.
 */
int xrl_iface_check(const char *iface, char *err, size_t len);

/*
 * A loaded instance is keyed by what identifies its device, not by a name: the
 * network namespace (its cookie, never reused) and the ifindex in it. Its pins
 * are under XRL_PIN_ROOT/net<cookie>-if<ifindex>/, so that every namespace can
 * have its own eth0, and a renamed interface keeps its instance.
 */
struct xrl_ifid {
	__u64 netns;
	__u32 ifindex;
};

/* This process's network namespace. */
int xrl_netns_cookie(__u64 *cookie);
/* The folder's name of an instance, and back (-EINVAL: not an instance's folder). */
void xrl_ifid_name(const struct xrl_ifid *id, char *buf, size_t len);
int xrl_ifid_parse(const char *name, struct xrl_ifid *id);

/*
 * The pin folder of iface, a name in this network namespace: checked with
 * xrl_iface_check (-EINVAL), then resolved (-ENODEV when there is no such
 * interface here). err says which; id, when not NULL, gets the key.
 */
int xrl_pin_dir(const char *iface, char *buf, size_t len, struct xrl_ifid *id, char *err, size_t errlen);

/* What a replace pins beside the pin it replaces until it renames it over (replace.h). */
#define XRL_PIN_NEW "-new" /* bpffs refuses names with a dot */
/* A replace's journal, from before its swap until it has ended (journal.h). */
#define XRL_PIN_JOURNAL "xrl_journal"

/* Whether a pin of this name is a capture's map (the loader makes them; older builds did not). */
bool xrl_capture_pin(const char *name);
/* Whether name is one of the pins xrl_load or a replace makes in an interface's folder. */
bool xrl_pin_is_ours(const char *name);

/*
 * Removes an interface's pin folder: only when it is a folder holding nothing
 * but the pins xrl_load makes, and then only those. -ENOTEMPTY (nothing
 * removed) and err naming the stranger otherwise.
 */
int xrl_pins_remove(const char *dir, char *err, size_t len);

/*
 * Checks what every command that touches the kernel needs: root (or
 * CAP_BPF + CAP_NET_ADMIN), and the host's bpffs at /sys/fs/bpf, mounted
 * there when missing in the host's mount namespace (as bpftool does). In a
 * mount namespace of its own (ip netns exec) it refuses, unless /sys/fs/bpf
 * is the host's bpffs: pins anywhere else vanish with that namespace, and the
 * program detaches with them. On failure err holds one sentence that says
 * what to do.
 */
int xrl_check_env(char *err, size_t len);

/* Opens the maps pinned for iface; err says what is wrong and what to do. */
int xrl_maps_open(const char *iface, struct xrl_maps *m, char *err, size_t len);
/* The same for a pin folder, named label in messages. */
int xrl_maps_open_dir(const char *dir, const char *label, struct xrl_maps *m, char *err, size_t len);
void xrl_maps_close(struct xrl_maps *m);
/* The maps pinned in m->dir opened again (a replace made some anew), m's lock kept. */
int xrl_maps_reopen(struct xrl_maps *m, char *err, size_t len);

/*
 * Serializes changes on one interface (flock on the pin folder): exclusive for
 * apply, rule and unload, shared for the readers, so that they never see a rule
 * set half written. -ENOENT when the folder was unloaded (or replaced) while
 * waiting for the lock. xrl_maps_unlock lets it go.
 */
int xrl_maps_lock(struct xrl_maps *m);
int xrl_maps_lock_shared(struct xrl_maps *m);
void xrl_maps_unlock(struct xrl_maps *m);

/* The control map's one entry, by its descriptor (any layout whose xrl_ctl is this size). */
int xrl_ctl_get(int fd, struct xrl_ctl *ctl);
int xrl_ctl_put(int fd, const struct xrl_ctl *ctl);
int xrl_ctl_read(const struct xrl_maps *m, struct xrl_ctl *ctl);
int xrl_ctl_write(const struct xrl_maps *m, const struct xrl_ctl *ctl);

/* A buffer for one per-CPU value of size sz, for every possible CPU. */
void *xrl_percpu_alloc(int ncpus, size_t sz);
size_t xrl_percpu_stride(size_t sz);

#endif /* XRL_LIB_MAPS_H */
