/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A loaded instance's program replaced in place: the loader's path for a load on a served interface. */
#ifndef XRL_REPLACE_H
#define XRL_REPLACE_H

#include "life/program.h"

/*
 * Loads this build's program with o's settings (those not in o->given stay
 * as the instance has them) on the instance's maps in dir, carried over
 * where they must change (carry.h), and swaps it in with one
 * bpf_link_update. It carries o->features and the rule set in force's
 * (specialise.h), which o->features gets. On failure the running program
 * stays, untouched. Called with the pin root locked; takes the instance's.
 */
int xrl_replace(struct xrl_load_opts *o, const char *dir, char *err, size_t len);

/*
 * The same with the instance's lock held by the caller (apply), for a
 * program that carries exactly o->features.
 */
int xrl_replace_locked(struct xrl_load_opts *o, const char *dir, char *err, size_t len);

#endif /* XRL_REPLACE_H */
