// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The program's object, opened and sized for a load's options (declared in program.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include "life/program.h"
#include "read/stats.h"
#include "xdp_ratelimit.skel.h"
#include "xrl_lpm.h"
#include "xrl_match.h"
#include "xrl_sketch.h"

int xrl_iface_mtu(const char *iface)
{
	struct ifreq ifr = {};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = -1;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/* The ELF of XDP_RATELIMIT_BPF_OBJECT, kept for the object that reads it. */
static void *alt_elf;

static struct xdp_ratelimit_bpf *open_alt(const char *path, char *err, size_t len)
{
	struct xdp_ratelimit_bpf *skel = calloc(1, sizeof(*skel));
	FILE *f = fopen(path, "rb");
	long n = -1;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		free(alt_elf);
		alt_elf = malloc((size_t)n);
		if (alt_elf && fread(alt_elf, 1, (size_t)n, f) != (size_t)n)
			n = -1;
	}
	if (f)
		fclose(f);
	if (!skel || !alt_elf || n <= 0 || xdp_ratelimit_bpf__create_skeleton(skel)) {
		xrl_fail(-EINVAL, err, len, "cannot read the BPF object %s (XDP_RATELIMIT_BPF_OBJECT)", path);
		free(skel);
		return NULL;
	}
	skel->skeleton->data = alt_elf;
	skel->skeleton->data_sz = (size_t)n;
	if (bpf_object__open_skeleton(skel->skeleton, NULL)) {
		xrl_fail(-EINVAL, err, len, "%s (XDP_RATELIMIT_BPF_OBJECT) is not a build of this program", path);
		xdp_ratelimit_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

struct xdp_ratelimit_bpf *xrl_skel_open(const struct xrl_load_opts *o, char *err, size_t len)
{
	const char *alt = getenv("XDP_RATELIMIT_BPF_OBJECT");
	struct xdp_ratelimit_bpf *skel = alt && *alt ? open_alt(alt, err, len) : xdp_ratelimit_bpf__open();
	int ncpus = libbpf_num_possible_cpus();

	if (!skel) {
		if (!alt || !*alt)
			xrl_fail(-errno, err, len, "cannot open the BPF object: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->xrl_cfg.clock = o->clock;
	skel->rodata->xrl_cfg.malformed = o->malformed;
	skel->rodata->xrl_cfg.features = o->features;
	/* Generic mode counts a super-packet as its segments (xrl_gso_segs): the MTU they are cut to. */
	if (o->generic) {
		int mtu = xrl_iface_mtu(o->iface);

		skel->rodata->xrl_cfg.gso_mtu = mtu > 0 ? (__u32)mtu : 1500;
	}
	skel->rodata->xrl_cfg.new_keys_cpu = xrl_new_keys_cpu(o->new_keys, ncpus > 0 ? ncpus : 1);
	bpf_map__set_max_entries(skel->maps.xrl_state, o->max_keys);
	/* Latches for a flood from as many sources as the table holds, up to a cap (a set of ways each: xrl_latch_find). */
	skel->rodata->xrl_cfg.latch_bits = xrl_latch_bits_for(o->max_keys, ncpus);
	bpf_map__set_max_entries(skel->maps.xrl_latches, 1U << skel->rodata->xrl_cfg.latch_bits);
	skel->rodata->xrl_cfg.sketch_width = o->sketch_width ?: XRL_SKETCH_DEFAULT_WIDTH;
	bpf_map__set_max_entries(skel->maps.xrl_sketch, XRL_SKETCH_DEPTH * skel->rodata->xrl_cfg.sketch_width);
	/*
	 * The rings' values sized for their cells: a key of a 2-bucket window
	 * takes 80 bytes, not 304. The BTF of the values describes the longest
	 * ring, so libbpf makes these maps without it (they hold no spin lock
	 * or timer, which would need it).
	 */
	skel->rodata->xrl_cfg.cells = o->cells ?: XRL_SHORT_CELLS;
	bpf_map__set_max_entries(skel->maps.xrl_rule_stats, o->rule_ids ?: XRL_MAX_RULE_IDS);
	bpf_map__set_max_entries(skel->maps.xrl_fleet, o->rule_ids ?: XRL_MAX_RULE_IDS);
	bpf_map__set_max_entries(skel->maps.xrl_windows, o->rule_ids ?: XRL_MAX_RULE_IDS);
	bpf_map__set_value_size(skel->maps.xrl_state, xrl_state_size(skel->rodata->xrl_cfg.cells));
	bpf_map__set_value_size(skel->maps.xrl_rule_stats, xrl_rule_stats_size(skel->rodata->xrl_cfg.cells));
	bpf_map__set_value_size(skel->maps.xrl_scratch, xrl_scratch_size(skel->rodata->xrl_cfg.cells));
	/* The classifier's bitmaps, for the rules of several fields the sets hold (apply grows them: swap_program). */
	skel->rodata->xrl_lbvs_stride = o->match_stride ?: 2;
	bpf_map__set_value_size(skel->maps.xrl_lbvs_bits, skel->rodata->xrl_lbvs_stride * 8);
	bpf_map__set_max_entries(skel->maps.xrl_lbvs_bits, o->match_entries ?: 64);
	bpf_map__set_max_entries(skel->maps.xrl_match_rules, o->match_slots ?: XRL_MATCH_SLOTS_MIN);
	bpf_map__set_max_entries(skel->maps.xrl_match_specs, o->match_slots ?: XRL_MATCH_SLOTS_MIN);
	/* The range structure for the worst case of max_prefixes, each rule set's half (xrl_lpm.h). */
	bpf_map__set_max_entries(skel->maps.xrl_lpm_ranges,
				 (__u32)(2 * xrl_lpm_words(o->max_prefixes ?: XRL_PREFIXES_DEFAULT)));
	bpf_map__set_max_entries(skel->maps.xrl_set_items,
				 (__u32)(2 * XRL_SET_ITEM_WORDS(o->max_prefixes ?: XRL_PREFIXES_DEFAULT)));
	return skel;
}

int xrl_load_refused(int ret, const char *release, char *err, size_t len)
{
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2 || major < 5 || (major == 5 && minor < 12))
		return xrl_fail(
			ret, err, len,
			"the kernel refused the program: %s; xdp-ratelimit needs Linux 5.12 or later with BTF%s%s "
			"(run with -v for the verifier's log)",
			strerror(-ret), *release ? ", this is " : "", release);
	if (ret == -E2BIG)
		return xrl_fail(ret, err, len,
				"the kernel's verifier refused the program as too large (E2BIG: past the 1M "
				"instructions it walks) on Linux %s: a bug of this build, not of your setup; please "
				"report it with the log of 'xdp-ratelimit -v load ...'",
				release);
	return xrl_fail(ret, err, len,
			"the kernel refused the program: %s, on Linux %s (new enough); run with -v for the "
			"verifier's log, and if it names no missing feature, please report it with that log",
			strerror(-ret), release);
}
