/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Rules of several windows: their next windows in xrl_windows, at counter slots of their own. */
#ifndef XRL_WINDOWS_H
#define XRL_WINDOWS_H

#include "rules/rule.h"

/* The counter slots the rules of set take: one a rule and one a next window. */
__u32 xrl_ruleset_slots(const struct xrl_ruleset *set);

/* Whether a rule of set has more than one window. */
bool xrl_ruleset_windows(const struct xrl_ruleset *set);

/*
 * Rule s's windows linked (next) by the ids given them: the first's next
 * names the second, and so on, each next window the rule's flags as the
 * program reads them (flags, the first's) and its own rate; the first
 * XRL_F_NO_LEASE when a next window counts bytes.
 */
void xrl_windows_link(struct xrl_spec *s, __u16 flags);

/* Writes the next windows of every rule of set into xrl_windows (fd), at their ids. */
int xrl_windows_write(int fd, const struct xrl_ruleset *set);

/* Reads back the next windows of every rule of set (by their next) from xrl_windows (fd). */
int xrl_windows_read(int fd, struct xrl_ruleset *set);

#endif /* XRL_WINDOWS_H */
