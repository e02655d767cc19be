// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "base/objinfo.h"
#include "codec/specialise.h"

__u8 xrl_ruleset_kinds(const struct xrl_ruleset *set)
{
	__u8 kinds = 0;
	size_t i;

	for (i = 0; set && i < set->n; i++)
		kinds |= set->v[i].kind == XRL_KIND_MATCH ? 0 : /* their own maps: xrl_match_cfgs says */
				 set->v[i].kind == XRL_KIND_DST ? XRL_HAS_DSTS :
			 xrl_spec_in_dsts(&set->v[i])		? XRL_HAS_PORT_DSTS :
			 set->v[i].kind == XRL_KIND_PORT	? XRL_HAS_PORTS :
			 set->v[i].kind == XRL_KIND_PROTO	? XRL_HAS_PROTOS :
								  XRL_HAS_PREFIXES;
	return kinds;
}

__u32 xrl_features_for(const struct xrl_ruleset *set)
{
	const char *env = getenv("XDP_RATELIMIT_FEATURES");
	__u32 f = xrl_ruleset_kinds(set);
	size_t i;

	for (i = 0; set && i < set->n; i++) {
		const struct xrl_rule *r = &set->v[i].r;

		if (r->byte_threshold || (r->flags & XRL_F_NO_PKT_RATE))
			f |= XRL_FEAT_BYTES;
		if (r->warmup_ms)
			f |= XRL_FEAT_WARMUP;
		if (r->flags & XRL_F_GLOBAL)
			f |= XRL_FEAT_GLOBAL;
		if (set->v[i].kind == XRL_KIND_MATCH)
			f |= XRL_FEAT_MATCH;
		if (set->v[i].nw)
			f |= XRL_FEAT_WINDOWS;
		if (xrl_spec_has_bytes(&set->v[i]))
			f |= XRL_FEAT_BYTES;
	}
	if (env && !strcmp(env, "all"))
		f |= XRL_FEAT_ALL;
	return f;
}

/* Where xrl_cfg sits in the rodata map of BTF id btf_id, value type vtype; -ENOENT: not that map. */
static int cfg_offset(__u32 btf_id, __u32 vtype, __u32 *off, __u32 *size)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	int ret = -ENOENT, i;

	if (!btf)
		return -errno;
	t = btf__type_by_id(btf, vtype);
	if (t && btf_is_datasec(t)) {
		vs = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);

			if (v && btf_is_var(v) && !strcmp(btf__name_by_offset(btf, v->name_off), "xrl_cfg")) {
				*off = vs->offset;
				*size = vs->size;
				ret = 0;
				break;
			}
		}
	}
	btf__free(btf);
	return ret;
}

int xrl_features_of_prog(int prog_fd, __u32 *features)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info), ids[64], i, nmaps;
	int ret = -ENOENT;

	/* Not xrl_obj_info, which clears what it is given: the kernel fills the ids asked for here. */
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &ilen))
		return -errno;
	nmaps = info.nr_map_ids < 64 ? info.nr_map_ids : 64;
	for (i = 0; i < nmaps && ret == -ENOENT; i++) {
		struct bpf_map_info mi;
		__u32 off = 0, size = 0, zero = 0;
		struct xrl_config cfg = {};
		void *val;
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (xrl_obj_info(fd, &mi, sizeof(mi)) || mi.type != BPF_MAP_TYPE_ARRAY || !mi.btf_id ||
		    !strstr(mi.name, ".rodata") || cfg_offset(mi.btf_id, mi.btf_value_type_id, &off, &size) ||
		    off + size > mi.value_size) {
			close(fd);
			continue;
		}
		val = calloc(1, mi.value_size);
		ret = !val ? -ENOMEM : bpf_map_lookup_elem(fd, &zero, val) ? -errno : 0;
		if (!ret) {
			memcpy(&cfg, (char *)val + off, size < sizeof(cfg) ? size : sizeof(cfg));
			/* A build before the features carried every one of its time: not rules of several fields. */
			*features = size >= offsetof(struct xrl_config, features) + sizeof(cfg.features) ?
					    cfg.features :
					    XRL_FEAT_ALL & ~XRL_FEAT_MATCH & ~XRL_FEAT_WINDOWS;
		}
		free(val);
		close(fd);
	}
	return ret;
}

int xrl_features_running(const char *dir, __u32 *features, __u32 *prog_id)
{
	struct bpf_link_info info;
	int prog, ret;

	ret = xrl_pin_info(dir, "link", &info, sizeof(info));
	if (ret)
		return ret;
	prog = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog < 0)
		return -errno;
	ret = xrl_features_of_prog(prog, features);
	close(prog);
	if (!ret && prog_id)
		*prog_id = info.prog_id;
	return ret;
}

static const char *const names[XRL_FEATURE_BITS] = {
	"ports", "prefixes", "protos", "dsts", "port-dsts", "bytes", "warmup", "global", "match", "windows",
};
_Static_assert(XRL_HAS_PORTS == 1 << 0 && XRL_HAS_PREFIXES == 1 << 1 && XRL_HAS_PROTOS == 1 << 2 &&
		       XRL_HAS_DSTS == 1 << 3 && XRL_HAS_PORT_DSTS == 1 << 4 && XRL_FEAT_BYTES == 1 << 5 &&
		       XRL_FEAT_WARMUP == 1 << 6 && XRL_FEAT_GLOBAL == 1 << 7 && XRL_FEAT_MATCH == 1 << 8 &&
		       XRL_FEAT_WINDOWS == 1 << 9 && XRL_FEAT_ALL == 0x3ff,
	       "the names follow the bits");

const char *xrl_feature_name(unsigned int bit)
{
	return bit < XRL_FEATURE_BITS ? names[bit] : NULL;
}

const char *xrl_features_format(__u32 f, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int b;

	buf[0] = '\0';
	for (b = 0; b < XRL_FEATURE_BITS && off < len; b++)
		if (f & (1U << b))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "", names[b]);
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}
