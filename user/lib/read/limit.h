/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A rule's effective limit on this node, as status, stats, explain, metrics
 * and the sync agent's lines show it (tests/unit/test_limit.c).
 */
#ifndef XRL_LIMIT_H
#define XRL_LIMIT_H

#include <stddef.h>
#include "xrl_common.h"

/*
 * The packets a window rule r lets through on this node: the allowance the
 * fleet's agent last wrote (f, or NULL when none did), else the rule's own
 * threshold (an allowance of 0 means the threshold too).
 */
__u64 xrl_limit(const struct xrl_rule *r, const struct xrl_fleet *f);

#endif /* XRL_LIMIT_H */
