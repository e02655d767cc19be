/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Carrying a loaded instance's maps over to a new program (replace.c): each
 * map is taken over as it is, or made anew and filled from the old one
 * (carry.c: the plan, the fill, the pins; carry_sketch.c: the sketch's
 * columns; carry_finish.c: what the old program counted after the fill).
 */
#ifndef XRL_CARRY_H
#define XRL_CARRY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>
#include "xrl_carry.h"
#include "layouts/retired.h"

struct xrl_carry_prog;

enum xrl_carry_how {
	XRL_CARRY_KEEP,	      /* the old map itself */
	XRL_CARRY_EMPTY,      /* a map the old layout has not: starts empty */
	XRL_CARRY_ENTRIES,    /* the window states: another size (--max-keys), other cells, or both */
	XRL_CARRY_SKETCH,     /* another width (--sketch-width): columns copied or folded */
	XRL_CARRY_RULE_STATS, /* other cells, or a retired layout's value (layouts/) */
	XRL_CARRY_LATCHES,    /* the window states move to other cells: new ones; the old ones' blocks to the states */
	XRL_CARRY_ARRAY,      /* an array grown (the classifier's bitmaps): entries copied, values zero-padded */
};

struct xrl_carry_map {
	char name[BPF_OBJ_NAME_LEN];
	int old;		  /* the pinned map; -1: none */
	struct bpf_map_info info; /* ... its shape */
	struct bpf_map *map;	  /* the new object's (NULL in a recovery: journal.h) */
	int nfd;		  /* ... its descriptor, size and entries, from the fill on */
	__u32 nvsz, nmax;
	enum xrl_carry_how how;
	__u32 ocells, ncells;		   /* the rings' cells, old and new: the window states and the rule stats */
	const struct xrl_retired *retired; /* the retired layout of the old instance; NULL: the current one */
	void *snap;			   /* what the fill read */
	size_t nsnap;
};

#define XRL_CARRY_MAPS 32

struct xrl_carry {
	const char *iface;
	char dir[PATH_MAX]; /* its pins */
	int ncpus;
	__u32 layout;			   /* the old instance's */
	__u8 latch_slots;		   /* ... and its xrl_ctl.latch_slots: how its latches are placed */
	const struct xrl_retired *retired; /* ... the retired layout they make; NULL: the current one */
	int ctl;			   /* the old control map (kept in every layout) */
	struct xrl_carry_map v[XRL_CARRY_MAPS];
	size_t n;
	struct xrl_carry_prog *prog; /* the carrier on the new maps, once armed */
};

/* Opens the instance pinned in dir and checks its layout is this one or a retired one it takes over. */
int xrl_carry_open(struct xrl_carry *c, const char *dir, const char *iface, char *err, size_t len);
int xrl_carry_ctl(const struct xrl_carry *c, struct xrl_ctl *ctl);
int xrl_carry_ctl_write(const struct xrl_carry *c, const struct xrl_ctl *ctl);
/* Before the new object's load: how each of its maps is had; the kept ones are set to reuse. */
int xrl_carry_plan(struct xrl_carry *c, struct bpf_object *obj, char *err, size_t len);
/* After the load: the new maps filled from the old (the old program still runs). */
int xrl_carry_fill(struct xrl_carry *c, char *err, size_t len);
/*
 * The new program and maps pinned beside the old as NAME-new (XRL_PIN_NEW);
 * after the swap renamed over them, or removed when there is none.
 */
int xrl_carry_pin(struct xrl_carry *c, int prog, char *err, size_t len);
int xrl_carry_commit(struct xrl_carry *c, char *err, size_t len);
void xrl_carry_abandon(struct xrl_carry *c);
/*
 * Before the swap (or a recovery's finish): the carrier loaded on the new
 * maps, when any takes counts after the swap. An error leaves nothing changed.
 */
int xrl_carry_arm(struct xrl_carry *c, char *err, size_t len);
/*
 * Just before the journal and the swap: what the old program counted since
 * the fill, added into the new maps, and the fill's read taken again, so
 * that what the new program lacks from its first frame to the finish's adds
 * is only what the old one counted in the replace's last moments. (A fill
 * long before the swap, on a busy machine, left it the passes of that whole
 * time: a window then let them through once more.)
 */
void xrl_carry_refresh(struct xrl_carry *c);
/*
 * After the swap, once the old program has stopped: what it counted since
 * the fill, and left in its latches, added by the carrier as the new program
 * runs (carry_prog.h).
 */
void xrl_carry_finish(struct xrl_carry *c);
/* The bytes of what the fill read of cm (cm->snap), for the journal. */
size_t xrl_carry_snap_bytes(const struct xrl_carry *c, const struct xrl_carry_map *cm);
void xrl_carry_close(struct xrl_carry *c);

/*
 * The arithmetic, for the tests too. Ring o of ocells cells as one of ncells
 * (n): each bucket moved to its cell there (full epoch mod ncells), the
 * newest kept where two meet (a window of fewer buckets than ncells never
 * reads the older).
 */
void xrl_ring_recell(const struct xrl_ring *o, __u32 ocells, struct xrl_ring *n, __u32 ncells);
/*
 * What the old program counted into one ring (of ocells cells) from snap (the
 * fill's read; NULL: none) to now, bucket by bucket, into out (XRL_MAX_CELLS
 * of them): how many. The carrier adds them (xrl_carry_add).
 */
__u32 xrl_ring_delta(const struct xrl_ring *now, const struct xrl_ring *snap, __u32 ocells, struct xrl_carry_cell *out);

#endif /* XRL_CARRY_H */
