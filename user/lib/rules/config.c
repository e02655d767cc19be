// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Saved configurations: a load line and the rules, written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/if_link.h>
#include "base/atomic.h"
#include "rules/config.h"
#include "base/err.h"
#include "xrl_version.h"

_Static_assert(XRL_CLOCK_PRECISE == 0 && XRL_CLOCK_COARSE == 1, "a load line's clock is 0 precise, 1 coarse");

void xrl_load_line_of(const struct xrl_ctl *ctl, __u32 max_prefixes, struct xrl_load_line *l)
{
	memset(l, 0, sizeof(*l));
	l->set = XRL_LOAD_MODE | XRL_LOAD_CLOCK | XRL_LOAD_MAX_KEYS | XRL_LOAD_NEW_KEYS | XRL_LOAD_SKETCH_WIDTH |
		 XRL_LOAD_MALFORMED | (max_prefixes ? XRL_LOAD_MAX_PREFIXES : 0);
	l->max_prefixes = max_prefixes;
	l->generic = !!(ctl->xdp_flags & XDP_FLAGS_SKB_MODE);
	l->clock = ctl->clock;
	l->max_keys = ctl->max_keys;
	l->new_keys = ctl->new_keys;
	l->sketch_width = ctl->sketch_width;
	l->malformed = ctl->malformed;
}

int xrl_load_line_differs(const struct xrl_load_line *l, const struct xrl_ctl *ctl, __u32 max_prefixes, char *want,
			  char *have, size_t len)
{
	struct xrl_load_line loaded;

	xrl_load_line_of(ctl, max_prefixes, &loaded);
	loaded.set = l->set;
	if (xrl_load_line_format(l, want, len) || xrl_load_line_format(&loaded, have, len))
		return 1;
	return strcmp(want, have) != 0;
}

int xrl_config_fprint(FILE *f, const char *iface, const struct xrl_load_line *l, const struct xrl_ruleset *set,
		      bool inline_)
{
	char line[300];
	size_t i;

	fprintf(f,
		"# %s, saved by xdp-ratelimit %s: 'xdp-ratelimit load %s --config FILE' restores it,\n"
		"# 'xdp-ratelimit apply %s FILE' its rules (apply reads past the load line).\n",
		iface, XRL_VERSION, iface, iface);
	if (xrl_load_line_format(l, line, sizeof(line)))
		return -ENOSPC;
	fprintf(f, "%s\n", line);
	for (i = 0; i < set->nsets; i++)
		if (xrl_pset_fprint(f, &set->sets[i], inline_))
			return -EIO;
	for (i = 0; i < set->n; i++) {
		if (xrl_spec_format(&set->v[i], line, sizeof(line)) < 0)
			return -ENOSPC;
		fprintf(f, "%s\n", line);
	}
	return ferror(f) ? -EIO : 0;
}

int xrl_config_check_sets(const char *iface, const struct xrl_ruleset *set, bool inline_, char *err, size_t len)
{
	char why[XRL_ERRLEN];
	size_t i;
	int fd;

	for (i = 0; i < set->nsets && !inline_; i++) {
		const struct xrl_pset *ps = &set->sets[i];

		if (!ps->path[0])
			continue;
		fd = xrl_open_input(ps->path, "set file", why, sizeof(why));
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (fd == -ENOENT)
			snprintf(why, sizeof(why), "is gone");
		else if (fd == -EINVAL)
			snprintf(why, sizeof(why), "is not a regular file any more");
		else
			snprintf(why, sizeof(why), "cannot be read (%s)", strerror(-fd));
		return xrl_fail(
			fd, err, len,
			"set %s's file %s %s, so 'load --config' of the saved file would fail: 'xdp-ratelimit save %s --inline' writes the prefixes in force into it instead (or put the file back); nothing was saved",
			ps->name, ps->path, why, iface);
	}
	return 0;
}

int xrl_config_save(const char *path, const char *iface, const struct xrl_load_line *l, const struct xrl_ruleset *set,
		    bool inline_, char *err, size_t len)
{
	char dir[PATH_MAX], *slash, *body = NULL;
	struct stat st;
	size_t blen = 0;
	int ret;
	FILE *f;

	if (!*path || strlen(path) + 8 >= sizeof(dir))
		return xrl_fail(-EINVAL, err, len, "'%s' cannot be a file's name: give a path like %s/%s.conf", path,
				XRL_CONFIG_DIR, iface);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return xrl_fail(-EINVAL, err, len, "'%s' is not a regular file: give a file's path like %s/%s.conf",
				path, XRL_CONFIG_DIR, iface);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (!strcmp(dir, XRL_CONFIG_DIR) && mkdir(dir, 0755) && errno != EEXIST)
		return xrl_fail(-errno, err, len, "cannot make %s: %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return xrl_fail(-ENOENT, err, len, "cannot save to %s: there is no folder %s; make it first", path,
				dir);
	f = open_memstream(&body, &blen);
	if (!f)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	ret = xrl_config_fprint(f, iface, l, set, inline_);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		ret = xrl_write_atomic(path, body, blen, 0644, err, len);
	else
		xrl_fail(ret, err, len, "cannot write %s: %s; the file is as it was", path, strerror(-ret));
	free(body);
	return ret;
}
