/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where an instance lives: its interface, its key, its pin folder, and what every command needs of the host. */
#ifndef XRL_LIB_PINS_H
#define XRL_LIB_PINS_H

#include <stddef.h>
#include "xrl_common.h"

#define XRL_BPFFS "/sys/fs/bpf"

/*
 * Whether iface can be an interface's name, as the kernel's dev_valid_name
 * decides (non-empty, shorter than IFNAMSIZ, not "." or "..", no '/', ':' or
 * white space), and has no control characters: only then is it safe to build
 * a path from. -EINVAL and a sentence in err otherwise.
 */
int xrl_iface_check(const char *iface, char *err, size_t len);

/*
 * A loaded instance is keyed by what identifies its device, not by a name: the
 * network namespace (its cookie, never reused) and the ifindex in it. Its pins
 * are under XRL_PIN_ROOT/net<cookie>-if<ifindex>/, so that every namespace can
 * have its own eth0, and a renamed interface keeps its instance.
 */
struct xrl_ifid {
	__u64 netns;
	__u32 ifindex;
};

/* This process's network namespace. */
int xrl_netns_cookie(__u64 *cookie);
/* The folder's name of an instance, and back (-EINVAL: not an instance's folder). */
void xrl_ifid_name(const struct xrl_ifid *id, char *buf, size_t len);
int xrl_ifid_parse(const char *name, struct xrl_ifid *id);

/*
 * The pin folder of iface, a name in this network namespace: checked with
 * xrl_iface_check (-EINVAL), then resolved (-ENODEV when there is no such
 * interface here). err says which; id, when not NULL, gets the key.
 */
int xrl_pin_dir(const char *iface, char *buf, size_t len, struct xrl_ifid *id, char *err, size_t errlen);

/*
 * Checks what every command that touches the kernel needs: root (or
 * CAP_BPF + CAP_NET_ADMIN), and the host's bpffs at /sys/fs/bpf, mounted
 * there when missing in the host's mount namespace (as bpftool does). In a
 * mount namespace of its own (ip netns exec) it refuses, unless /sys/fs/bpf
 * is the host's bpffs: pins anywhere else vanish with that namespace, and the
 * program detaches with them. On failure err holds one sentence that says
 * what to do.
 */
int xrl_check_env(char *err, size_t len);

#endif /* XRL_LIB_PINS_H */
