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
 * Whether the program fd (named what, for messages) may follow the instance
 * whose xrl_then is then_fd and whose program is self: not when it leads back
 * to that instance, itself or through the program arrays of what it can
 * tail-call (another limiter's xrl_then among them), for every frame would
 * then be judged again at each pass. 0, or -ELOOP with err naming the way
 * back, or the bound the walk reached before it could tell.
 */
int xrl_chain_check(int then_fd, int fd, const char *what, __u32 self, char *err, size_t len);

/*
 * Sets the next program of the instance whose xrl_then is then_fd; what NULL
 * or "none" removes it. self: the instance's own program id; a program that
 * leads back to the instance is refused (xrl_chain_check). The kernel checks
 * the program can be called from ours.
 */
int xrl_chain_set(int then_fd, const char *what, __u32 self, char *err, size_t len);

/* The next program's id and name; 0 when there is none. */
__u32 xrl_chain_get(int then_fd, char *name, size_t len);

#endif /* XRL_CHAIN_H */
