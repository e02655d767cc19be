/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pinned maps of one interface: finding, checking and opening them. */
#ifndef XRL_LIB_MAPS_H
#define XRL_LIB_MAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "xrl_common.h"
#include "base/pins.h"

struct xrl_maps {
	char dir[PATH_MAX];
	int port_idx, port_rules, proto_rules, lpm_rules, lpm_dir, lpm_ranges, sets, set_items, dsts, state, rule_stats,
		counters, ctl, latches, scratch, sketch, fleet, then;
	/* The rules of several fields' (xrl_match.h): -1 on an instance a build before them made. */
	int lbvs_cls, lbvs_bits, match_cfgs, match_rules, match_specs, match_tmp, match_sets;
	int windows;	    /* rules' next windows (xrl_windows): -1 on an instance a build before them made */
	int pctx;	    /* the packet's context (xrl_pctx), the program's alone: the same */
	__u32 lbvs_stride;  /* words a value of xrl_lbvs_bits, as loaded */
	__u32 lbvs_entries; /* its entries: both sets' classes, interleaved (XRL_MATCH_BITS_IX) */
	__u32 match_slots;  /* the entries of xrl_match_rules and _specs, as loaded (XRL_MATCH_SLOT) */
	int lock;	    /* the pin folder, flocked while rules change */
	int ncpus;
	__u32 cells;	   /* the cells of every ring (xrl_state's, xrl_rule_stats'), as loaded */
	__u32 rule_ids;	   /* the rules' counter slots (xrl_rule_stats' entries), as loaded */
	__u32 latch_count; /* the latches per CPU, as loaded (0: XRL_LATCHES) */
};

/* What a replace pins beside the pin it replaces until it renames it over (replace.h). */
#define XRL_PIN_NEW "-new" /* bpffs refuses names with a dot */
/* A replace's journal, from before its swap until it has ended (journal.h). */
#define XRL_PIN_JOURNAL "xrl_journal"

/* Whether a pin of this name is a capture's map (the loader makes them; older builds did not). */
bool xrl_capture_pin(const char *name);
/* Whether a pin of this name is a map of the rules of several fields (0.6.0's builds before them lack them). */
bool xrl_match_pin(const char *name);
/* Whether name is one of the pins xrl_load or a replace makes in an interface's folder. */
bool xrl_pin_is_ours(const char *name);

/*
 * Removes an interface's pin folder: only when it is a folder holding nothing
 * but the pins xrl_load makes, and those that also names (an older layout's,
 * say; NULL: none), and then only those. -ENOTEMPTY (nothing removed) and err
 * naming the stranger otherwise.
 */
int xrl_pins_remove(const char *dir, bool (*also)(const char *name), char *err, size_t len);

/* Opens the maps pinned for iface; err says what is wrong and what to do. */
int xrl_maps_open(const char *iface, struct xrl_maps *m, char *err, size_t len);
/* The same for a pin folder, named label in messages. */
int xrl_maps_open_dir(const char *dir, const char *label, struct xrl_maps *m, char *err, size_t len);
void xrl_maps_close(struct xrl_maps *m);
/* What the kernel charges for every map of m that is open (their memlock), the capture's apart. */
__u64 xrl_maps_memlock(const struct xrl_maps *m);
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
