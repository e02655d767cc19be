/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Saved configurations: an interface's load options (a load line) and its rule
 * set in one rules file, that 'load IFACE --config FILE' restores and 'apply'
 * reads too. The grammar is rules/.
 */
#ifndef XRL_CONFIG_H
#define XRL_CONFIG_H

#include <stdio.h>
#include "rules/rule.h"

/* Where 'save IFACE' writes and the systemd unit reads: XRL_CONFIG_DIR/IFACE.conf. */
#define XRL_CONFIG_DIR "/etc/xdp-ratelimit"

/* The load line of an instance loaded with ctl and max_prefixes (0: not known): every option it was loaded with. */
void xrl_load_line_of(const struct xrl_ctl *ctl, __u32 max_prefixes, struct xrl_load_line *l);

/*
 * Whether a file's load line asks for what an instance was loaded with (ctl),
 * option by option as far as the line goes: 0 when it does; 1 when not, with
 * the file's line and the instance's, for those options, in want and have.
 */
int xrl_load_line_differs(const struct xrl_load_line *l, const struct xrl_ctl *ctl, __u32 max_prefixes, char *want,
			  char *have, size_t len);

/*
 * Prints a configuration: a comment naming iface, the load line, its sets
 * (every one inline when inline_, else a set read from a file as its path),
 * one rule a line.
 */
int xrl_config_fprint(FILE *f, const char *iface, const struct xrl_load_line *l, const struct xrl_ruleset *set,
		      bool inline_);

/*
 * Whether every set that a configuration would name by its file (none when
 * inline_) can be read there as load --config reads it: 0, or -errno with a
 * sentence in err naming the set, its file and the fix (save --inline).
 */
int xrl_config_check_sets(const char *iface, const struct xrl_ruleset *set, bool inline_, char *err, size_t len);

/*
 * Writes the configuration to path atomically (a temporary file beside it,
 * then rename): readers see the old file or the new one, whole. Mode 0644;
 * XRL_CONFIG_DIR is made when it is missing, any other folder must exist.
 * -errno and a sentence in err.
 */
int xrl_config_save(const char *path, const char *iface, const struct xrl_load_line *l, const struct xrl_ruleset *set,
		    bool inline_, char *err, size_t len);

#endif /* XRL_CONFIG_H */
