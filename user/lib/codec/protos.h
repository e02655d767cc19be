/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Protocol rules in their array (see XRL_PROTO_IDX in xrl_common.h), by map fd. */
#ifndef XRL_PROTOS_H
#define XRL_PROTOS_H

#include <stddef.h>
#include "xrl_common.h"

/* Writes rule r for selector sel into set. */
int xrl_proto_put(int fd, __u8 set, __u16 sel, const struct xrl_rule *r);

/* The protocol rules of set, in selector order, into out (room for XRL_SELS); *n of them. */
int xrl_protos_read(int fd, __u8 set, struct xrl_proto_rule *out, size_t *n);

/* Removes every protocol rule of set. */
int xrl_protos_clear(int fd, __u8 set);

#endif /* XRL_PROTOS_H */
