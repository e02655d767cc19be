// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "base/critical.h"
#include "life/journal.h"
#include "base/maps.h"
#include "base/objinfo.h"
#include "base/err.h"

#define JOURNAL_MAGIC 0x4a4c5258 /* "XRLJ" */
/*
 * The fill's reads are the layout's values (struct xrl_state, the rule stats): a journal another
 * layout's build left is another format, and its replace is mended by the program's id alone
 * (a layout 9 build's read as layout 10's values would be merged into the wrong words).
 */
#define JOURNAL_FORMAT (XRL_LAYOUT_VERSION << 8 | 1)
/* The journal is an array of chunks: the head in the first, the fill's reads after it. */
#define JOURNAL_CHUNK 65536

enum journal_phase {
	JOURNAL_SWAPPING = 1, /* the new maps pinned as NAME-new; the swap done or not */
	JOURNAL_MERGED = 2,   /* swapped and merged: the renames and the control block left */
};

struct journal_map {
	char name[BPF_OBJ_NAME_LEN];
	__u32 how, ocells, ncells, retired; /* retired: the old map's values are a retired layout's */
	__u64 nsnap, bytes;		    /* what the fill read: its entries and bytes, in the chunks in this order */
};

struct journal_head {
	__u32 magic, format, phase, ncpus;
	__u32 new_prog, layout; /* the new program's id; the old instance's layout */
	__u8 latch_slots, pad[7];
	struct xrl_ctl next; /* the fields a replace sets (set_fields) */
	__u32 n, pad2;
	struct journal_map v[XRL_CARRY_MAPS];
};
_Static_assert(sizeof(struct journal_head) <= JOURNAL_CHUNK, "the journal's head fits its chunk");

static int write_chunk(int fd, __u32 i, const void *v)
{
	return bpf_map_update_elem(fd, &i, v, BPF_ANY) ? -errno : 0;
}

int xrl_journal_write(const struct xrl_carry *c, __u32 new_prog, const struct xrl_ctl *next, char *err, size_t len)
{
	char path[PATH_MAX + 32], *chunk = calloc(1, JOURNAL_CHUNK);
	struct journal_head *h = (void *)chunk;
	size_t total = 0, fill = 0, i;
	__u32 at = 1;
	int fd = -1, ret = 0;

	if (!chunk)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	for (i = 0; i < c->n; i++)
		total += xrl_carry_snap_bytes(c, &c->v[i]);
	snprintf(path, sizeof(path), "%s/" XRL_PIN_JOURNAL, c->dir);
	unlink(path); /* a replace's that was undone or finished without its removal */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, XRL_PIN_JOURNAL, sizeof(__u32), JOURNAL_CHUNK,
			    (__u32)(1 + (total + JOURNAL_CHUNK - 1) / JOURNAL_CHUNK), NULL);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	h->magic = JOURNAL_MAGIC;
	h->format = JOURNAL_FORMAT;
	h->phase = JOURNAL_SWAPPING;
	h->ncpus = (__u32)c->ncpus;
	h->new_prog = new_prog;
	h->layout = c->layout;
	h->latch_slots = c->latch_slots;
	h->next = *next;
	h->n = (__u32)c->n;
	for (i = 0; i < c->n; i++) {
		const struct xrl_carry_map *cm = &c->v[i];
		struct journal_map *jm = &h->v[i];

		snprintf(jm->name, sizeof(jm->name), "%s", cm->name);
		jm->how = cm->how;
		jm->ocells = cm->ocells;
		jm->ncells = cm->ncells;
		jm->retired = cm->retired != NULL;
		jm->nsnap = cm->nsnap;
		jm->bytes = xrl_carry_snap_bytes(c, cm);
	}
	ret = write_chunk(fd, 0, chunk);
	/* The fill's reads, one after the other, cut into chunks. */
	memset(chunk, 0, JOURNAL_CHUNK);
	for (i = 0; i < c->n && !ret; i++) {
		const char *p = c->v[i].snap;
		size_t left = xrl_carry_snap_bytes(c, &c->v[i]);

		while (left && !ret) {
			size_t take = JOURNAL_CHUNK - fill < left ? JOURNAL_CHUNK - fill : left;

			memcpy(chunk + fill, p, take);
			fill += take;
			p += take;
			left -= take;
			if (fill == JOURNAL_CHUNK) {
				ret = write_chunk(fd, at++, chunk);
				fill = 0;
			}
		}
	}
	if (!ret && fill)
		ret = write_chunk(fd, at, chunk);
	if (!ret && bpf_obj_pin(fd, path))
		ret = -errno;
out:
	if (ret)
		xrl_fail(ret, err, len,
			 "cannot write the replace's journal %s: %s; the running program was left in place", path,
			 strerror(-ret));
	if (fd >= 0)
		close(fd);
	free(chunk);
	return ret;
}

/* The journal's head into h (a chunk's room): 0, or -errno (none, or another format). */
static int read_head(int fd, struct journal_head *h)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, h))
		return -errno;
	return h->magic == JOURNAL_MAGIC && h->format == JOURNAL_FORMAT && h->n <= XRL_CARRY_MAPS ? 0 : -EPROTO;
}

int xrl_journal_merged(const char *dir)
{
	struct journal_head *h = calloc(1, JOURNAL_CHUNK);
	int fd = xrl_pin_open(dir, XRL_PIN_JOURNAL), ret;

	ret = !h ? -ENOMEM : fd < 0 ? -errno : read_head(fd, h);
	if (!ret) {
		h->phase = JOURNAL_MERGED;
		ret = write_chunk(fd, 0, h);
	}
	if (fd >= 0)
		close(fd);
	free(h);
	return ret;
}

void xrl_journal_remove(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" XRL_PIN_JOURNAL, dir);
	unlink(path);
}

/* Whether name is a NAME-new pin. */
static bool is_new_pin(const char *name)
{
	size_t n = strlen(name), s = strlen(XRL_PIN_NEW);

	return n > s && !strcmp(name + n - s, XRL_PIN_NEW);
}

/*
 * Every NAME-new pin in dir renamed over NAME (forward), or removed; the
 * program's last, so that prog names the new program only once its maps are
 * all in place. The count of such pins, or -errno.
 */
static int settle_new_pins(const char *dir, bool forward, char *err, size_t len)
{
	char from[PATH_MAX + 300], to[PATH_MAX + 300];
	struct dirent *e;
	int n = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		DIR *d = opendir(dir);

		if (!d)
			return xrl_fail(-errno, err, len, "cannot read %s: %s", dir, strerror(errno));
		while ((e = readdir(d))) {
			bool prog = !strcmp(e->d_name, "prog" XRL_PIN_NEW);

			if (!is_new_pin(e->d_name) || prog != (pass == 1))
				continue;
			snprintf(from, sizeof(from), "%s/%s", dir, e->d_name);
			snprintf(to, sizeof(to), "%s/%.*s", dir, (int)(strlen(e->d_name) - strlen(XRL_PIN_NEW)),
				 e->d_name);
			if (forward ? rename(from, to) : unlink(from)) {
				int ret = -errno;

				closedir(d);
				return xrl_fail(ret, err, len, "cannot %s %s: %s", forward ? "rename" : "remove", from,
						strerror(-ret));
			}
			n++;
		}
		closedir(d);
	}
	return n;
}

/* The fields of the control block a replace sets, from next. */
static void set_fields(struct xrl_ctl *ctl, const struct xrl_ctl *next)
{
	ctl->layout = next->layout;
	ctl->clock = next->clock;
	ctl->malformed = next->malformed;
	ctl->max_keys = next->max_keys;
	ctl->new_keys = next->new_keys;
	ctl->sketch_width = next->sketch_width;
	ctl->cells = next->cells;
	ctl->latch_slots = next->latch_slots;
}

/*
 * The carry the journal h describes, its maps opened (the old by NAME, the
 * new by NAME-new, or NAME for a map kept) and the fill's reads back from the
 * journal fd: as the stopped replace had it at its swap.
 */
static int carry_from_journal(struct xrl_carry *c, const char *dir, const char *iface, int fd,
			      const struct journal_head *h)
{
	char *chunk = malloc(JOURNAL_CHUNK), name[BPF_OBJ_NAME_LEN + 8];
	size_t fill = JOURNAL_CHUNK, i;
	__u32 at = 1;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->iface = iface;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->ncpus = libbpf_num_possible_cpus();
	c->layout = h->layout;
	c->latch_slots = h->latch_slots;
	c->retired = xrl_retired_of(h->layout, h->latch_slots);
	c->ctl = xrl_pin_open(dir, XRL_MAP_CTL);
	if (!chunk || c->ctl < 0 || c->ncpus != (int)h->ncpus)
		ret = !chunk ? -ENOMEM : c->ctl < 0 ? -errno : -EPROTO;
	for (i = 0; i < h->n && !ret; i++) {
		struct xrl_carry_map *cm = &c->v[c->n++];
		const struct journal_map *jm = &h->v[i];
		struct bpf_map_info ni;
		size_t left = jm->bytes;
		char *p;

		memcpy(cm->name, jm->name, sizeof(cm->name));
		cm->name[sizeof(cm->name) - 1] = '\0';
		cm->how = jm->how;
		cm->ocells = jm->ocells;
		cm->ncells = jm->ncells;
		cm->retired = jm->retired ? c->retired : NULL;
		cm->nsnap = jm->nsnap;
		cm->old = xrl_pin_open(dir, cm->name);
		snprintf(name, sizeof(name), "%s%s", cm->name, cm->how == XRL_CARRY_KEEP ? "" : XRL_PIN_NEW);
		cm->nfd = xrl_pin_get(dir, name, &ni, sizeof(ni));
		cm->nvsz = ni.value_size;
		cm->nmax = ni.max_entries;
		if (cm->old >= 0)
			xrl_obj_info(cm->old, &cm->info, sizeof(cm->info));
		cm->snap = p = left ? malloc(left) : NULL;
		if (left && !p)
			ret = -ENOMEM;
		while (left && !ret) {
			size_t take;

			if (fill == JOURNAL_CHUNK) {
				if (bpf_map_lookup_elem(fd, &at, chunk)) {
					ret = -errno;
					break;
				}
				at++;
				fill = 0;
			}
			take = JOURNAL_CHUNK - fill < left ? JOURNAL_CHUNK - fill : left;
			memcpy(p, chunk + fill, take);
			fill += take;
			p += take;
			left -= take;
		}
	}
	free(chunk);
	return ret;
}

static void carry_release(struct xrl_carry *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].nfd >= 0)
			close(c->v[i].nfd);
	xrl_carry_close(c);
}

/* Whether a carried map of the journal lacks what the merge needs (its old map, its new one). */
static bool carry_incomplete(const struct xrl_carry *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct xrl_carry_map *cm = &c->v[i];
		bool merged = cm->how == XRL_CARRY_ENTRIES || cm->how == XRL_CARRY_RULE_STATS ||
			      cm->how == XRL_CARRY_LATCHES;

		if ((merged && cm->old < 0) || cm->nfd < 0)
			return true;
	}
	return false;
}

/* The pin's program id; 0 when there is none. */
static __u32 pinned_prog(const char *dir, const char *name)
{
	struct bpf_prog_info info;

	return xrl_pin_info(dir, name, &info, sizeof(info)) ? 0 : info.id;
}

int xrl_recover_locked(const char *dir, const char *iface, char *note, size_t nlen, char *err, size_t len)
{
	struct journal_head *h = NULL;
	struct bpf_link_info link;
	struct xrl_carry c = { .ctl = -1 };
	__u32 running, fresh;
	bool have_journal, merge = false, lost = false;
	int jfd, ret = 0, n;
	sigset_t old;

	if (note && nlen)
		note[0] = '\0';
	jfd = xrl_pin_open(dir, XRL_PIN_JOURNAL);
	have_journal = jfd >= 0;
	fresh = pinned_prog(dir, "prog" XRL_PIN_NEW);
	if (!have_journal && !fresh) {
		/* Nothing stopped after the pins began (the program's is the first): a map's alone is a leftover. */
		n = settle_new_pins(dir, false, err, len);
		return n < 0 ? n : 0;
	}
	xrl_signals_hold(&old);
	running = xrl_pin_info(dir, "link", &link, sizeof(link)) ? 0 : link.prog_id;
	h = calloc(1, JOURNAL_CHUNK);
	if (!h) {
		ret = xrl_fail(-ENOMEM, err, len, "out of memory");
		goto out;
	}
	if (have_journal && read_head(jfd, h))
		h->magic = 0; /* another build's journal: decided by the program's id alone */
	if (h->magic && h->phase == JOURNAL_MERGED) {
		/* Swapped and merged: the renames and the control block are what was left. */
	} else if (fresh && running == fresh) {
		merge = h->magic != 0;
		lost = !merge;
	} else {
		/* Stopped before its swap: the program running is the one the pins name. */
		n = settle_new_pins(dir, false, err, len);
		if (n < 0) {
			ret = n;
			goto out;
		}
		xrl_journal_remove(dir);
		if (note)
			snprintf(
				note, nlen,
				"a replace of the program on %s was stopped before its swap: its new maps were removed, the program that ran runs on",
				iface);
		goto out;
	}
	if (merge) {
		ret = carry_from_journal(&c, dir, iface, jfd, h);
		if (!ret && carry_incomplete(&c))
			ret = -ENOENT;
		if (!ret)
			ret = xrl_carry_arm(&c, NULL, 0);
		if (ret) {
			xrl_fail(
				ret, err, len,
				"a replace of the program on %s was stopped after its swap, and its journal under %s cannot be read back (%s): 'xdp-ratelimit unload %s' and load again",
				iface, dir, strerror(-ret), iface);
			goto out;
		}
		xrl_wait_programs(); /* the old program is off the interface since the swap: none still runs */
		xrl_carry_finish(&c);
		xrl_journal_merged(dir);
	}
	n = settle_new_pins(dir, true, err, len);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (h->magic) {
		struct xrl_ctl ctl;

		ret = xrl_ctl_get(c.ctl >= 0 ? c.ctl : (c.ctl = xrl_pin_open(dir, XRL_MAP_CTL)), &ctl);
		if (!ret) {
			set_fields(&ctl, &h->next);
			ret = xrl_ctl_put(c.ctl, &ctl);
		}
		if (ret) {
			xrl_fail(ret, err, len, "cannot write the control map under %s: %s", dir, strerror(-ret));
			goto out;
		}
	}
	/* What a retired layout's instance had and the new program has not, as a replace removes it. */
	xrl_retired_pins_remove(dir);
	xrl_journal_remove(dir);
	if (note)
		snprintf(
			note, nlen,
			"a replace of the program on %s was stopped after its swap: it was finished (%s), the pins name the program that runs",
			iface,
			lost ? "without its journal: what the old program counted in its last moments is lost" :
			       "what the old program counted after the fill merged");
out:
	carry_release(&c);
	if (jfd >= 0)
		close(jfd);
	free(h);
	xrl_signals_release(&old);
	return ret;
}

int xrl_recover(const char *dir, const char *iface, char *err, size_t len)
{
	struct xrl_maps m = { .lock = -1 };
	char path[PATH_MAX + 32];
	int ret;

	snprintf(path, sizeof(path), "%s/" XRL_PIN_JOURNAL, dir);
	if (access(path, F_OK)) {
		snprintf(path, sizeof(path), "%s/prog" XRL_PIN_NEW, dir);
		if (access(path, F_OK))
			return 0; /* the common case: two failed lookups, no lock */
	}
	snprintf(m.dir, sizeof(m.dir), "%s", dir);
	ret = xrl_maps_lock(&m);
	if (ret == -ENOENT)
		return 0; /* unloaded meanwhile: nothing to mend, and the caller says so */
	if (ret)
		return xrl_fail(ret, err, len, "cannot lock %s: %s", dir, strerror(-ret));
	ret = xrl_recover_locked(dir, iface, NULL, 0, err, len);
	xrl_maps_close(&m);
	return ret;
}

int xrl_maps_open_mended(const char *iface, struct xrl_maps *m, char *err, size_t len)
{
	char dir[PATH_MAX];
	int ret = xrl_check_env(err, len);

	if (!ret)
		ret = xrl_pin_dir(iface, dir, sizeof(dir), NULL, err, len);
	if (!ret && !access(dir, F_OK))
		ret = xrl_recover(dir, iface, err, len);
	return ret ? ret : xrl_maps_open(iface, m, err, len);
}
