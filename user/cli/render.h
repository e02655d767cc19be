/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What more than one command shows, shown one way: a rule, a set, the
 * program's features, the global counters and a global rule's fleet view.
 * Commands build their report and print it through these, in text or JSON.
 */
#ifndef XRL_RENDER_H
#define XRL_RENDER_H

#include <stddef.h>
#include <jansson.h>
#include "base/maps.h"
#include "rules/rule.h"

/* A rule in JSON, as every command shows one: its line in the grammar, and its parts. */
json_t *cli_rule_json(const struct xrl_spec *s);
/* Window k of a rule of several windows (its rate, threshold, shape), in JSON. */
json_t *cli_window_json(const struct xrl_spec *s, int k);
/* Every window of a rule of several, each with the blocks it decided (stats). */
json_t *cli_windows_json(const struct xrl_spec *s, const __u64 *blocked);
/* The same in a line: "windows: 20/s over 1s in 2 buckets: 3 blocked; ...". */
void cli_windows_text(const struct xrl_spec *s, const __u64 *blocked, char *buf, size_t len);
/* The names of features (XRL_HAS_*, XRL_FEAT_*: specialise.h), as a JSON array. */
json_t *cli_features_json(__u32 f);
/* A named set in JSON: its name, its file (or null) and its prefix count. */
json_t *cli_set_json(const struct xrl_pset *ps);

/* The global counters in JSON, as stats and metrics show them. */
json_t *cli_counters_json(const struct xrl_counters *c);

/* A global rule's fleet view (xrl_fleet, or NULL when no agent wrote one), in JSON and in one line. */
json_t *cli_fleet_json(const struct xrl_spec *s, const struct xrl_fleet *f);
void cli_fleet_text(const struct xrl_spec *s, const struct xrl_fleet *f, char *buf, size_t len);

/* A clock's name, as load and status show it: precise, coarse or test. */
const char *cli_clock_name(__u32 c);

#endif /* XRL_RENDER_H */
