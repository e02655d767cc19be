// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Replacing a loaded instance's program in place: the new program is loaded
 * on the instance's own maps and swapped in with one bpf_link_update, so the
 * interface is never without a program and no rule, window or counter starts
 * over. A map the new program wants otherwise (another size, or a retired
 * layout's value) is made anew, filled from the old one before the swap, and
 * given what the old program counted in between once it has stopped
 * (carry.c). What a retired layout holds otherwise: layouts/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/critical.h"
#include "codec/windows.h"
#include "codec/rules_read.h"
#include "life/carry.h"
#include "codec/chain.h"
#include "codec/lpm_set.h"
#include "codec/match_maps.h"
#include "life/journal.h"
#include "base/objinfo.h"
#include "life/replace.h"
#include "codec/specialise.h"
#include "xdp_ratelimit.skel.h"
#include "base/err.h"

/* The entries of the map pinned as name in dir; XRL_MAX_RULE_IDS when it cannot be read. */
static __u32 pinned_entries(const char *dir, const char *name)
{
	struct bpf_map_info info;

	return xrl_pin_info(dir, name, &info, sizeof(info)) ? XRL_MAX_RULE_IDS : info.max_entries;
}

/*
 * The classifier's bitmaps and the rules' maps: as the instance has them,
 * or as apply asked (XRL_LOAD_MATCH), and at least what the new rules need.
 */
static int match_sizes(struct xrl_load_opts *o, const char *dir, char *err, size_t len)
{
	struct xrl_match_built mb;
	struct bpf_map_info info;
	int ret;

	if (!(o->given & XRL_LOAD_MATCH) && !xrl_pin_info(dir, XRL_MAP_LBVS_BITS, &info, sizeof(info))) {
		o->match_stride = info.value_size / 8;
		o->match_entries = info.max_entries;
		o->match_slots = xrl_pin_info(dir, XRL_MAP_MATCH_RULES, &info, sizeof(info)) ? 0 : info.max_entries;
	}
	if (!o->rules)
		return 0;
	ret = xrl_match_build(o->rules, &mb, err, len);
	if (ret)
		return ret;
	if (o->match_stride < xrl_match_stride_for(&mb))
		o->match_stride = xrl_match_stride_for(&mb);
	if (o->match_entries < xrl_match_entries_for(&mb))
		o->match_entries = xrl_match_entries_for(&mb);
	if (o->match_slots < xrl_match_slots_for(&mb))
		o->match_slots = xrl_match_slots_for(&mb);
	xrl_match_built_free(&mb);
	return 0;
}

/* The settings not given take the running instance's: a replace changes what it is told to only. */
static int settle_opts(struct xrl_load_opts *o, const char *dir, const struct xrl_ctl *ctl, __u32 rule_ids,
		       __u32 max_prefixes, char *err, size_t len)
{
	bool generic = ctl->xdp_flags & XDP_FLAGS_SKB_MODE;

	if (!(o->given & XRL_LOAD_MODE))
		o->generic = generic;
	else if (o->generic != generic)
		return xrl_fail(
			-EOPNOTSUPP, err, len,
			"%s runs in %s mode: the mode cannot change in place (the kernel holds one program per mode and a switch leaves a moment with none); nothing was changed: 'xdp-ratelimit unload %s' and load again to switch",
			o->iface, generic ? "generic" : "native", o->iface);
	if (!(o->given & XRL_LOAD_CLOCK))
		o->clock = ctl->clock;
	if (!(o->given & XRL_LOAD_MAX_KEYS))
		o->max_keys = ctl->max_keys;
	/* The cap follows --max-keys when it was the default (the table may turn over once a second). */
	if (!(o->given & XRL_LOAD_NEW_KEYS))
		o->new_keys = ctl->new_keys == ctl->max_keys ? o->max_keys : ctl->new_keys;
	if (!(o->given & XRL_LOAD_SKETCH_WIDTH))
		o->sketch_width = ctl->sketch_width;
	if (!(o->given & XRL_LOAD_MALFORMED))
		o->malformed = ctl->malformed;
	if (!(o->given & XRL_LOAD_CELLS))
		o->cells = ctl->cells;
	if (o->rules && o->cells < xrl_ruleset_cells(o->rules))
		o->cells = xrl_ruleset_cells(o->rules);
	if (!(o->given & XRL_LOAD_RULE_IDS))
		o->rule_ids = rule_ids;
	if (o->rules && o->rule_ids < xrl_rule_ids_for(xrl_ruleset_slots(o->rules)))
		o->rule_ids = xrl_rule_ids_for(xrl_ruleset_slots(o->rules));
	if (!(o->given & XRL_LOAD_MAX_PREFIXES))
		o->max_prefixes = max_prefixes;
	return match_sizes(o, dir, err, len);
}

/*
 * What the rule set in force needs the program to carry; every feature when
 * it cannot be read (a retired layout's maps, say): never less than it needs.
 */
static __u32 active_features(const char *dir, const char *iface)
{
	struct xrl_ruleset set = {};
	char err[XRL_ERRLEN];
	struct xrl_maps m;
	__u32 f = XRL_FEAT_ALL;

	if (xrl_maps_open_dir(dir, iface, &m, err, sizeof(err)))
		return f;
	if (!xrl_rules_read(&m, &set))
		f = xrl_features_for(&set);
	xrl_ruleset_free(&set);
	xrl_maps_close(&m);
	return f;
}

/* The --max-prefixes of the instance pinned in dir; 0 (the default) when it has no range structure. */
static __u32 running_max_prefixes(const char *dir)
{
	struct bpf_map_info info;

	return xrl_pin_info(dir, XRL_MAP_LPM_RANGES, &info, sizeof(info)) ? 0 : xrl_lpm_max_prefixes(info.max_entries);
}

/* The rules in force that a retired layout keeps in maps of its own, into the new program's. */
static int carry_rules(const struct xrl_carry *c, struct xdp_ratelimit_bpf *skel, const struct xrl_ctl *ctl, char *err,
		       size_t len)
{
	struct xrl_maps nm = {
		.lpm_rules = bpf_map__fd(skel->maps.xrl_lpm_rules),
		.lpm_dir = bpf_map__fd(skel->maps.xrl_lpm_dir),
		.lpm_ranges = bpf_map__fd(skel->maps.xrl_lpm_ranges),
		.sets = bpf_map__fd(skel->maps.xrl_sets),
		.set_items = bpf_map__fd(skel->maps.xrl_set_items),
	};

	if (!c->retired || !c->retired->carry_rules)
		return 0;
	return c->retired->carry_rules(c->dir, &nm, ctl->active_set & 1, err, len);
}

int xrl_replace(struct xrl_load_opts *o, const char *dir, char *err, size_t len)
{
	struct xrl_maps m = { .lock = -1 };
	int ret;

	/* No apply, rule change or reader meanwhile: they wait, then see the new maps. */
	snprintf(m.dir, sizeof(m.dir), "%s", dir);
	ret = xrl_maps_lock(&m);
	if (ret)
		return xrl_fail(ret, err, len, "cannot lock %s: %s", dir, strerror(-ret));
	/* A replace stopped midway is finished or undone first: the rules in force are read from what runs. */
	ret = xrl_recover_locked(dir, o->iface, o->recovered, sizeof(o->recovered), err, len);
	if (ret) {
		close(m.lock);
		return ret;
	}
	o->features |= active_features(dir, o->iface);
	ret = xrl_replace_locked(o, dir, err, len);
	close(m.lock);
	return ret;
}

int xrl_replace_locked(struct xrl_load_opts *o, const char *dir, char *err, size_t len)
{
	LIBBPF_OPTS(bpf_link_update_opts, uopts);
	struct xdp_ratelimit_bpf *skel = NULL;
	struct xrl_carry c = { .ctl = -1 };
	struct xrl_ctl ctl, next;
	struct bpf_link_info linfo;
	struct utsname u;
	int link = -1, old_prog = -1, ret;
	sigset_t sigs;

	/* A Ctrl-C or a SIGTERM waits for the replace's end; a SIGKILL leaves the journal (journal.h). */
	xrl_signals_hold(&sigs);
	ret = xrl_recover_locked(dir, o->iface, NULL, 0, err, len);
	if (!ret)
		ret = xrl_carry_open(&c, dir, o->iface, err, len);
	if (ret) {
		xrl_carry_close(&c);
		xrl_signals_release(&sigs);
		return ret;
	}
	ret = xrl_carry_ctl(&c, &ctl);
	if (!ret)
		ret = settle_opts(o, dir, &ctl, pinned_entries(dir, XRL_MAP_RULE_STATS), running_max_prefixes(dir), err,
				  len);
	if (ret)
		goto out;
	link = xrl_pin_get(dir, "link", &linfo, sizeof(linfo));
	if (link < 0 || !linfo.xdp.ifindex) {
		ret = xrl_fail(
			-ENOLINK, err, len,
			"the program on %s is no longer attached (its link under %s is gone or detached): 'xdp-ratelimit unload %s' and load again",
			o->iface, dir, o->iface);
		goto out;
	}
	skel = xrl_skel_open(o, err, len);
	if (!skel) {
		ret = -EINVAL;
		goto out;
	}
	ret = xrl_carry_plan(&c, skel->obj, err, len);
	if (ret)
		goto out;
	ret = xdp_ratelimit_bpf__load(skel);
	if (ret) {
		xrl_load_refused(ret, uname(&u) ? "" : u.release, err, len);
		snprintf(err + strlen(err), len - strlen(err), "; the running program was left in place");
		goto out;
	}
	/* The old program goes on counting into the old maps until the swap: carried again after it. */
	ret = xrl_carry_fill(&c, err, len);
	if (!ret)
		ret = xrl_carry_arm(&c, err, len);
	if (!ret)
		ret = carry_rules(&c, skel, &ctl, err, len);
	if (!ret)
		ret = xrl_carry_pin(&c, bpf_program__fd(skel->progs.xdp_ratelimit), err, len);
	if (ret)
		goto out;
	xrl_fault_point("pinned");
	next = ctl;
	next.layout = XRL_LAYOUT_VERSION;
	next.clock = o->clock;
	next.malformed = o->malformed;
	next.max_keys = o->max_keys;
	next.new_keys = o->new_keys;
	next.sketch_width = o->sketch_width;
	next.cells = (__u8)o->cells;
	next.latch_slots = XRL_LATCH_SLOTS;
	/* What the old program counted since the fill, in now: the journal keeps this read. */
	xrl_carry_refresh(&c);
	ret = xrl_journal_write(&c, xrl_prog_id(bpf_program__fd(skel->progs.xdp_ratelimit)), &next, err, len);
	if (ret)
		goto out;
	xrl_fault_point("journal");
	uopts.old_prog_fd = old_prog = bpf_prog_get_fd_by_id(linfo.prog_id);
	uopts.flags = old_prog >= 0 ? BPF_F_REPLACE : 0;
	if (bpf_link_update(link, bpf_program__fd(skel->progs.xdp_ratelimit), &uopts)) {
		ret = xrl_fail(-errno, err, len,
			       "cannot swap the program on %s: %s; the running program was left in place", o->iface,
			       strerror(errno));
		goto out;
	}
	o->replaced = true;
	o->old_layout = ctl.layout;
	o->prog_id = xrl_prog_id(bpf_program__fd(skel->progs.xdp_ratelimit));
	xrl_fault_point("swapped");
	xrl_wait_programs();
	xrl_carry_finish(&c);
	xrl_journal_merged(dir);
	xrl_fault_point("merged");
	ret = xrl_carry_commit(&c, err, len);
	if (ret)
		goto out;
	xrl_fault_point("renamed");
	if (c.retired) /* what its program had beside the maps carried, gone with it */
		xrl_retired_pins_remove(dir);
	ret = xrl_carry_ctl_write(&c, &next);
	if (ret)
		xrl_fail(ret, err, len, "cannot write the control map under %s: %s", dir, strerror(-ret));
	else
		xrl_journal_remove(dir);
out:
	/* Not swapped: undone here. Swapped, then failed: the journal stays for the next command to finish. */
	if (ret && !o->replaced) {
		xrl_carry_abandon(&c);
		xrl_journal_remove(dir);
	}
	xrl_carry_close(&c);
	if (old_prog >= 0)
		close(old_prog);
	if (link >= 0)
		close(link);
	xdp_ratelimit_bpf__destroy(skel);
	xrl_signals_release(&sigs);
	return ret;
}
