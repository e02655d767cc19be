/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XRL_ERR_H
#define XRL_ERR_H

#include <stddef.h>

/* Room for any message the library writes into an err buffer. */
#define XRL_ERRLEN 512

/* Writes a message for the user into err and returns ret (a negative errno). */
int xrl_fail(int ret, char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif /* XRL_ERR_H */
