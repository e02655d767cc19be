/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Port rules in their two arrays (see XRL_PORT_IDX in xrl_common.h), by map fd. */
#ifndef XRL_PORTS_H
#define XRL_PORTS_H

#include <stddef.h>
#include "xrl_common.h"

/* Writes rule r for proto/port into slot i of set: the slot first, then the index entry. */
int xrl_port_put(int idx_fd, int rules_fd, __u8 set, __u32 i, __u8 proto, __u16 port, const struct xrl_rule *r);

/* The port rules of set, in slot order, into out (room for XRL_MAX_RULES); *n of them. */
int xrl_ports_read(int rules_fd, __u8 set, struct xrl_port_rule *out, size_t *n);

/* Removes every port rule of set: the index entry first, so no packet finds a freed slot. */
int xrl_ports_clear(int idx_fd, int rules_fd, __u8 set);

#endif /* XRL_PORTS_H */
