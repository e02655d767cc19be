/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Files a user names: written whole (save, metrics --textfile), read as a
 * set file (set update, 'set NAME file PATH'), streamed to (capture -w).
 */
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

/*
 * Opens path, a file to read whole (a set file): a descriptor of a regular
 * file, or -errno with a sentence in err naming what (e.g. "set file") and
 * path. A FIFO, a device or a folder is refused before it is opened (opening
 * a FIFO waits for a writer, a device may act on open, either may never
 * end), and the file opened is checked again (a FIFO put in its place in
 * between is refused too). A symlink is followed: its target is checked.
 */
int xrl_open_input(const char *path, const char *what, char *err, size_t errlen);

/*
 * Opens path for a writer that streams to it (capture -w), as tcpdump -w
 * does (created mode 0666 less the umask, a file there emptied, a FIFO or a
 * device written as it is), but never through a symlink (O_NOFOLLOW: one
 * planted at the name would have its target emptied) nor into a regular
 * file with another name (a hard link). The descriptor, or -errno with a
 * sentence in err.
 */
int xrl_open_output(const char *path, char *err, size_t errlen);

#endif /* XRL_ATOMIC_H */
