/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Files replaced whole: what save and metrics --textfile write. */
#ifndef XRL_ATOMIC_H
#define XRL_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Writes len bytes of body to path: a temporary file beside its target
 * (.NAME.PID.XXXXXX: no reader of *.prom or *.conf takes it), fsync'd,
 * renamed over the target, the folder fsync'd. A reader sees the old file or
 * the new one, whole. A symlink at path is written through (its target is
 * replaced, the link kept). Temporary files that a killed writer left there
 * (their PID gone) are removed first. 0, or -errno with a sentence in err
 * (the file is then as it was).
 */
int xrl_write_atomic(const char *path, const void *body, size_t len, mode_t mode, char *err, size_t errlen);

#endif /* XRL_ATOMIC_H */
