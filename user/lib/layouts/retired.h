/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The retired map layouts this build still takes over in place, each in a
 * file of its own (layout8.c, layout9.c) behind one table of hooks: what its maps hold
 * otherwise than the current layout's, which maps it lacks or has besides.
 * The rest of the library knows only the current layout (XRL_LAYOUT_VERSION)
 * and asks here about an instance of another. Retiring a layout is deleting
 * its file and its line in retired.c.
 */
#ifndef XRL_LAYOUTS_RETIRED_H
#define XRL_LAYOUTS_RETIRED_H

#include <stdbool.h>
#include <stddef.h>
#include "xrl_common.h"
#include "base/maps.h"

struct xrl_retired {
	/* The instance's xrl_ctl.layout and xrl_ctl.latch_slots that say it is this one. */
	__u32 layout;
	__u8 latch_slots;
	/* Its control block as the current layout's: the fields it kept as padding given the value they stood for. */
	void (*ctl_read)(struct xrl_ctl *ctl);
	/* The maps it has not (the capture's aside, never part of a layout): made empty. NULL: none. */
	const char *const *lacks;
	/* Maps of the same key and entries whose value the current program reads otherwise and that hold nothing between packets: made empty. */
	const char *const *emptied;
	/* Every ring's buckets are in other cells or words than the current layout puts them: moved, whatever the count. */
	bool rings_moved;
	/* Its xrl_state value, as looked up into s, made the current struct in place (its ring's cells cells); NULL: the current value. */
	void (*state_read)(struct xrl_state *s, __u32 cells);
	/* The cells of xrl_rule_stats' ring in its value of vsz bytes (0: not its); NULL: the current value. */
	__u32 (*rule_stats_cells)(__u32 vsz);
	/* One CPU's xrl_rule_stats value of it (its ring's cells cells) as the current struct, the buckets in the cells they were. */
	void (*rule_stats_read)(const void *old, __u32 cells, struct xrl_rule_stats *n);
	/* Where its program placed key k's latch; NULL: as the current one (xrl_key_hash). */
	__u32 (*latch_slot)(const struct xrl_key *k);
	/*
	 * Rule set half's rules it keeps in maps the current layout has not,
	 * written into nm (a replace's new maps, before the swap). NULL: none.
	 */
	int (*carry_rules)(const char *dir, const struct xrl_maps *nm, __u8 half, char *err, size_t len);
	/* Its pins the current layout has not: removed once the new program runs (and by unload). */
	const char *const *gone;
};

/* The retired layout of an instance whose control block says layout and latch_slots; NULL: the current one, or none taken over. */
const struct xrl_retired *xrl_retired_of(__u32 layout, __u8 latch_slots);
/* The oldest layout this build takes over (XRL_LAYOUT_VERSION when it takes over none older). */
__u32 xrl_retired_oldest(void);
/* Whether name is a pin of a retired layout: one that a replace, or an unload, removes. */
bool xrl_retired_pin(const char *name);
/* Removes the pins of every retired layout under dir. */
void xrl_retired_pins_remove(const char *dir);

#endif /* XRL_LAYOUTS_RETIRED_H */
