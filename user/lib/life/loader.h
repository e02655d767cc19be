/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Loading, attaching and pinning the program per interface; unloading. */
#ifndef XRL_LOADER_H
#define XRL_LOADER_H

#include <net/if.h>
#include <stdbool.h>
#include "base/err.h"
#include "base/maps.h"
#include "life/program.h"

/*
 * Attaches and pins under xrl_pin_dir's folder; leaves nothing behind on
 * failure. On an interface it serves already, replaces its program in place
 * (replace.h), and then fills o with the settings in force.
 */
int xrl_load(struct xrl_load_opts *o, char *err, size_t len);

/* Detaches and removes everything xrl_load made. */
int xrl_unload(const char *iface, char *err, size_t len);

#endif /* XRL_LOADER_H */
