/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A replace that any interruption leaves whole. From just before its swap
 * until it has ended, a replace keeps a journal pinned beside the instance's
 * maps (XRL_PIN_JOURNAL): the new program's id, what the fill read of the
 * maps carried over, and the control block to write. A replace stopped by a
 * SIGKILL or a crash is then finished or undone by the next command that
 * opens the instance, by what runs on the interface:
 *   - the old program (stopped before the swap): the new pins are removed;
 *   - the new one (after the swap): what the old program counted since the
 *     fill is merged as the replace would have, and the new pins renamed
 *     over the old, the control block written.
 * Without a journal (stopped before it was written, or an older build's
 * replace), the same choice by the program's id, and after the swap the old
 * program's last counts are lost (said in the note).
 */
#ifndef XRL_JOURNAL_H
#define XRL_JOURNAL_H

#include <stddef.h>
#include <linux/types.h>
#include "life/carry.h"
#include "base/maps.h"

/*
 * Pins the journal of the carry c, before the swap to the program new_prog:
 * next is the control block to write after it. 0, or -errno with err.
 */
int xrl_journal_write(const struct xrl_carry *c, __u32 new_prog, const struct xrl_ctl *next, char *err, size_t len);
/* After the merge: what is left to do is the renames and the control block. */
int xrl_journal_merged(const char *dir);
void xrl_journal_remove(const char *dir);

/*
 * Finishes or undoes what a replace stopped midway left under dir, the
 * instance's lock held: 0 when nothing was left or it was mended (note, when
 * not NULL, says which; empty when nothing was left), -errno with err.
 */
int xrl_recover_locked(const char *dir, const char *iface, char *note, size_t nlen, char *err, size_t len);
/* The same, taking the instance's lock when there is anything to mend: for commands that only read. */
int xrl_recover(const char *dir, const char *iface, char *err, size_t len);

/* xrl_maps_open (maps.h), once what a replace stopped midway left on iface is mended: for every command. */
int xrl_maps_open_mended(const char *iface, struct xrl_maps *m, char *err, size_t len);

#endif /* XRL_JOURNAL_H */
