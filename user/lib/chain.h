/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The program a frame the limiter passes goes on to: slot 0 of the
 * instance's xrl_then, a program array the XDP program tail-calls into.
 */
#ifndef XRL_CHAIN_H
#define XRL_CHAIN_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Opens what names a program: its id (digits), or the path of its pin
 * (absolute, under /sys/fs/bpf/, no '..'). Only an XDP program will do.
 * Returns the descriptor, or -errno and err naming the problem and the fix.
 */
int xrl_chain_open(const char *what, char *err, size_t len);

/*
 * Sets the next program of the instance whose xrl_then is then_fd; what NULL
 * or "none" removes it. self: the instance's own program id, which may not
 * follow itself. The kernel checks the program can be called from ours.
 */
int xrl_chain_set(int then_fd, const char *what, __u32 self, char *err, size_t len);

/* The next program's id and name; 0 when there is none. */
__u32 xrl_chain_get(int then_fd, char *name, size_t len);

#endif /* XRL_CHAIN_H */
