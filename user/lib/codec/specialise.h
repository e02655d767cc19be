/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A program specialised to its rule set (xrl_config.features): what a set
 * needs its program to carry, what a loaded program carries, and their names.
 */
#ifndef XRL_SPECIALISE_H
#define XRL_SPECIALISE_H

#include <stddef.h>
#include "xrl_common.h"
#include "rules/rule.h"

/* The maps a set has rules in (xrl_ctl.kinds: XRL_HAS_*). */
__u8 xrl_ruleset_kinds(const struct xrl_ruleset *set);

/*
 * What a program must carry to judge set (NULL: no rules): its kinds, and
 * XRL_FEAT_* for what its rules ask. XDP_RATELIMIT_FEATURES=all in the
 * environment adds every feature (for measuring what they cost).
 */
__u32 xrl_features_for(const struct xrl_ruleset *set);

/*
 * What the program prog_fd carries, read from its rodata (the kernel's copy
 * of its xrl_config, found by BTF): XRL_FEAT_ALL for a build that predates
 * the features, which carried everything.
 */
int xrl_features_of_prog(int prog_fd, __u32 *features);

/* The same for the program on the link pinned in dir (-ENOENT: none); prog_id, when not NULL, gets its id. */
int xrl_features_running(const char *dir, __u32 *features, __u32 *prog_id);

/* Each feature's name, by bit (XRL_HAS_* and XRL_FEAT_*); NULL past the last. */
const char *xrl_feature_name(unsigned int bit);
#define XRL_FEATURE_BITS 10

/* The names of f, space-separated ("none" for 0), into buf. */
const char *xrl_features_format(__u32 f, char *buf, size_t len);

#endif /* XRL_SPECIALISE_H */
