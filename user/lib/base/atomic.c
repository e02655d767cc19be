// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/atomic.h"
#include "base/err.h"

/* Removes .BASE.PID.XXXXXX files in dir whose PID is no process: what a killed writer left. */
static void sweep(const char *dir, const char *base)
{
	size_t bl = strlen(base);
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		char *end, path[PATH_MAX];
		long pid;

		if (p[0] != '.' || strncmp(p + 1, base, bl) || p[1 + bl] != '.')
			continue;
		errno = 0;
		pid = strtol(p + 2 + bl, &end, 10);
		if (errno || pid <= 0 || *end != '.' || strlen(end + 1) != 6)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, p);
		unlink(path);
	}
	closedir(d);
}

int xrl_write_atomic(const char *path, const void *body, size_t len, mode_t mode, char *err, size_t errlen)
{
	char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 32], *slash;
	const char *base;
	struct stat st;
	int fd, dfd, ret = 0;

	if (strlen(path) >= sizeof(target))
		return xrl_fail(-ENAMETOOLONG, err, errlen, "cannot write %s: the path is too long", path);
	/* Through a symlink: the file it names is replaced, not the link by a file. */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (!realpath(path, target))
			return xrl_fail(
				-errno, err, errlen,
				"cannot write %s: it is a symlink to nothing there (%s); point it at a file or remove it",
				path, strerror(errno));
	} else {
		snprintf(target, sizeof(target), "%s", path);
	}
	snprintf(dir, sizeof(dir), "%s", target);
	slash = strrchr(dir, '/');
	if (!slash) {
		strcpy(dir, ".");
		base = target;
	} else {
		base = target + (slash - dir) + 1;
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	sweep(dir, base);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.%d.XXXXXX", dir, base, (int)getpid()) >= sizeof(tmp))
		return xrl_fail(-ENAMETOOLONG, err, errlen, "cannot write %s: the path is too long", target);
	fd = mkstemp(tmp);
	if (fd < 0)
		return xrl_fail(-errno, err, errlen, "cannot write next to %s: %s%s", target, strerror(errno),
				errno == ENOENT ? ": create its folder first" : "");
	if (fchmod(fd, mode) || (len && write(fd, body, len) != (ssize_t)len) || fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, target))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return xrl_fail(ret, err, errlen, "cannot write %s: %s; the file is as it was", target, strerror(-ret));
	}
	/* The rename itself survives a crash once the folder is on disk. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISDIR(m))
		return "a folder";
	return S_ISSOCK(m) ? "a socket" : "a special file";
}

int xrl_open_input(const char *path, const char *what, char *err, size_t errlen)
{
	struct stat st, got;
	int fd;

	if (stat(path, &st))
		return xrl_fail(-errno, err, errlen, "cannot read %s %s: %s", what, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return xrl_fail(-EINVAL, err, errlen, "%s %s is %s, not a regular file: give a file's path", what, path,
				kind_of(st.st_mode));
	/* O_NONBLOCK: a FIFO swapped in since the stat is opened without waiting, and refused below. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return xrl_fail(-errno, err, errlen, "cannot read %s %s: %s", what, path, strerror(errno));
	if (fstat(fd, &got) || fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return xrl_fail(-errno, err, errlen, "cannot read %s %s: %s", what, path, strerror(errno));
	}
	if (!S_ISREG(got.st_mode)) {
		close(fd);
		return xrl_fail(-EINVAL, err, errlen, "%s %s is %s, not a regular file: give a file's path", what, path,
				kind_of(got.st_mode));
	}
	return fd;
}

int xrl_open_output(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd < 0 && errno == ELOOP)
		return xrl_fail(
			-ELOOP, err, errlen,
			"'%s' is a symlink: it is not written through (its target would be emptied); give the file's own path, or remove the link",
			path);
	if (fd < 0)
		return xrl_fail(-errno, err, errlen, "cannot write '%s': %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		close(fd);
		return xrl_fail(-errno, err, errlen, "cannot write '%s': %s", path, strerror(errno));
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		close(fd);
		return xrl_fail(
			-EMLINK, err, errlen,
			"'%s' has %lu hard links: it is not emptied (the other names' file would be); give a new path, or remove it first",
			path, (unsigned long)st.st_nlink);
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		close(fd);
		return xrl_fail(-errno, err, errlen, "cannot write '%s': %s", path, strerror(errno));
	}
	return fd;
}
