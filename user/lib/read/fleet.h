/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A global rule's fleet entry (xrl_fleet), as the program sees it: what the
 * sync agent (fleet/agent.h) last wrote of it, lapsed when the agent fell silent.
 */
#ifndef XRL_READ_FLEET_H
#define XRL_READ_FLEET_H

#include "base/maps.h"
#include "rules/rule.h"

/* The program's coarse clock (bpf_ktime_get_coarse_ns): what xrl_fleet.expires_ns is read against. */
__u64 xrl_fleet_now(void);

/*
 * When f's allowance has lapsed (its agent silent past expires_ns), makes f
 * say what the program enforces now: the fallback and its policy. 1 if so.
 */
int xrl_fleet_lapse(struct xrl_fleet *f, __u64 threshold);
/*
 * The fleet entry of a rule, when it is global and an agent wrote one for its
 * gen, as the program sees it now (xrl_fleet_lapse): 0, else -ENOENT.
 */
int xrl_fleet_read(const struct xrl_maps *m, const struct xrl_spec *s, struct xrl_fleet *f);

/* The packets a window of the rule may pass on this node, as the program judges: its allowance, else its threshold. */
__u64 xrl_fleet_threshold(const struct xrl_maps *m, const struct xrl_spec *s);

#endif /* XRL_READ_FLEET_H */
