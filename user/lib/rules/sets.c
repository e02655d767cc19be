// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Named prefix sets: 'set NAME file PATH', 'set NAME { ... }', their files, and what a rule set of them must be. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rules/rule.h"
#include "rules/internal.h"
#include "base/atomic.h"
#include "base/err.h"
#include "xrl_lpm.h"

struct xrl_pset *xrl_ruleset_set(const struct xrl_ruleset *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->nsets; i++)
		if (!strcmp(set->sets[i].name, name))
			return &set->sets[i];
	return NULL;
}

const struct xrl_pset *xrl_ruleset_port_set(const struct xrl_ruleset *set, const char *name)
{
	const struct xrl_pset *ps = xrl_ruleset_set(set, name);

	return ps && ps->kind == XRL_PSET_PORTS ? ps : NULL;
}

int xrl_pset_add_ports(struct xrl_pset *ps, __u32 lo, __u32 hi)
{
	struct xrl_vrange *r = ps->ports;
	size_t i = 0, j, k;

	/* r stays sorted, its ranges apart: those lo-hi overlaps or touches become one. */
	while (i < ps->nports && r[i].hi + 1 < lo)
		i++;
	for (j = i; j < ps->nports && r[j].lo <= hi + 1; j++) {
		lo = r[j].lo < lo ? r[j].lo : lo;
		hi = r[j].hi > hi ? r[j].hi : hi;
	}
	if (j == i && ps->nports == XRL_PORTSET_RANGES)
		return -E2BIG;
	if (j == i) {
		memmove(r + i + 1, r + i, (ps->nports - i) * sizeof(*r));
		ps->nports++;
	} else if (j > i + 1) {
		k = j - i - 1;
		memmove(r + i + 1, r + j, (ps->nports - j) * sizeof(*r));
		ps->nports -= k;
	}
	r[i] = (struct xrl_vrange){ lo, hi };
	return 0;
}

int xrl_pset_add(struct xrl_pset *ps, const struct xrl_pfx *p, int line)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct xrl_pfx *v = realloc(ps->v, cap * sizeof(*v));
		int *l = line ? realloc(ps->lines, cap * sizeof(*l)) : ps->lines;

		if (!v || (line && !l)) {
			free(v == ps->v ? NULL : v);
			return -ENOMEM;
		}
		ps->v = v;
		ps->lines = l;
		ps->cap = cap;
	}
	if (ps->lines)
		ps->lines[ps->n] = line;
	ps->v[ps->n++] = *p;
	return 0;
}

static int pfx_cmp(const struct xrl_pfx *a, const struct xrl_pfx *b)
{
	int c = (int)a->family - (int)b->family;

	if (!c)
		c = memcmp(a->addr, b->addr, 16);
	return c ? c : (int)a->plen - (int)b->plen;
}

/* Sorted with each prefix's line beside it: an index sort. */
static const struct xrl_pset *sort_ps;

static int ix_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = pfx_cmp(&sort_ps->v[i], &sort_ps->v[j]);

	return c ? c : (i > j) - (i < j);
}

static int plain_cmp(const void *a, const void *b)
{
	return pfx_cmp(a, b);
}

void xrl_pset_sort(struct xrl_pset *ps)
{
	size_t i, m = 0, *ix;

	if (!ps->n)
		return; /* v may be NULL: an empty file, a port set */
	if (!ps->lines) {
		qsort(ps->v, ps->n, sizeof(*ps->v), plain_cmp);
	} else if ((ix = malloc(ps->n * sizeof(*ix)))) {
		struct xrl_pfx *v = malloc(ps->n * sizeof(*v));
		int *l = malloc(ps->n * sizeof(*l));

		for (i = 0; i < ps->n; i++)
			ix[i] = i;
		sort_ps = ps;
		qsort(ix, ps->n, sizeof(*ix), ix_cmp);
		for (i = 0; v && l && i < ps->n; i++) {
			v[i] = ps->v[ix[i]];
			l[i] = ps->lines[ix[i]];
		}
		if (v && l) {
			free(ps->v);
			free(ps->lines);
			ps->v = v;
			ps->lines = l;
		} else {
			free(v);
			free(l);
			qsort(ps->v, ps->n, sizeof(*ps->v), plain_cmp);
			free(ps->lines);
			ps->lines = NULL;
		}
		free(ix);
	}
	/* A set holds a prefix once, however often its file lists it (feeds repeat lines). */
	for (i = 0; i < ps->n; i++)
		if (!m || pfx_cmp(&ps->v[m - 1], &ps->v[i])) {
			if (ps->lines)
				ps->lines[m] = ps->lines[i];
			ps->v[m++] = ps->v[i];
		}
	ps->n = m;
}

/* Whether w is written as a port or a range, "80" or "8000-8999": what a port set holds. */
static bool port_word(const char *w)
{
	return w[0] && strspn(w, "0123456789-") == strlen(w);
}

/* A port or a range of a port set. */
static int add_port_word(struct xrl_pset *ps, const char *w, char *err, size_t len)
{
	unsigned long lo, hi;
	char *end;

	errno = 0;
	lo = strtoul(w, &end, 10);
	hi = lo;
	if (end != w && *end == '-' && end[1] >= '0' && end[1] <= '9')
		hi = strtoul(end + 1, &end, 10);
	if (end == w || *end || !(w[0] >= '0' && w[0] <= '9') || errno)
		return fail(err, len, "'%s' is not a port: a port set holds ports (0 to 65535) and ranges lo-hi", w);
	if (lo > 65535 || hi > 65535)
		return fail(err, len, "'%s' is out of range: a port is 0 to 65535", w);
	if (lo > hi)
		return fail(err, len, "range %lu-%lu is reversed: write %lu-%lu", lo, hi, hi, lo);
	if (xrl_pset_add_ports(ps, (__u32)lo, (__u32)hi))
		return fail(
			err, len,
			"more than %d ranges of ports (once those that touch are merged): a port set holds at most that many: merge ranges, or split the set between two rules",
			XRL_PORTSET_RANGES);
	return 0;
}

/* One prefix of a set, or a port set's port or range, from a file or written inline; what is wrong with it in err. */
static int add_word(struct xrl_pset *ps, const char *w, int line, char *err, size_t len)
{
	struct xrl_pfx p = {};

	if (ps->kind == XRL_PSET_ANY)
		ps->kind = port_word(w) ? XRL_PSET_PORTS : XRL_PSET_PREFIXES;
	if (ps->kind == XRL_PSET_PORTS)
		return add_port_word(ps, w, err, len);
	if (port_word(w))
		return fail(err, len, "'%s' is a port, not a prefix: a set of ports is 'set NAME ports { 80, 443 }'",
			    w);

	if (xrl_parse_match_prefix("", w, &p.family, p.addr, &p.plen, err, len))
		return -EINVAL;
	if (ps->n >= XRL_PREFIXES_MAX)
		return fail(err, len, "more than %d prefixes: a set holds at most that many (load --max-prefixes)",
			    XRL_PREFIXES_MAX);
	return xrl_pset_add(ps, &p, line) ? fail(err, len, "out of memory") : 0;
}

/*
 * Whether a word of a set file that is not a prefix may be quoted in a
 * message: only one that could be a mistyped prefix (hex digits, '.', ':',
 * '/', no longer than the longest prefix). A set file is often a feed from
 * elsewhere, and a path given to a command that runs as root may name any
 * file (a symlink to /etc/shadow): a word of other characters is neither
 * echoed to a terminal (escape sequences) nor into a log (a secret's line).
 */
static bool quotable(const char *w)
{
	size_t n = strspn(w, "0123456789abcdefABCDEF.:/-");

	return !w[n] && n <= sizeof("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128") - 1;
}

int xrl_set_read(struct xrl_pset *ps, FILE *f, const char *name, char *err, size_t len)
{
	char line[XRL_MAX_LINE + 2], msg[XRL_ERRLEN];
	size_t total = 0;
	int lineno = 0, got, col = 0;

	while ((got = xrl_read_line(f, line, &total, &col, XRL_MAX_SET_FILE)) > 0) {
		char *save = NULL, *w, *extra, *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		w = strtok_r(line, " \t\r\n", &save);
		if (!w)
			continue;
		extra = strtok_r(NULL, " \t\r\n", &save);
		if (ps->kind == XRL_PSET_PORTS || (ps->kind == XRL_PSET_ANY && port_word(w))) {
			if (extra && quotable(extra))
				return fail(err, len,
					    "%s:%d: '%s' after '%s': a port set's file holds one port or range a line",
					    name, lineno, extra, w);
			if (extra || !quotable(w))
				return fail(
					err, len,
					"%s:%d: not a port, and not shown: it holds characters no port has (a port set's file holds one port or range lo-hi a line, '#' a comment)",
					name, lineno);
		}
		if (extra && quotable(w) && quotable(extra))
			return fail(err, len, "%s:%d: '%s' after the prefix '%s': a set file holds one prefix a line",
				    name, lineno, extra, w);
		if (extra || !quotable(w))
			return fail(
				err, len,
				"%s:%d: not a prefix, and not shown: it holds characters no prefix has (a set file holds one prefix a line, '#' a comment)",
				name, lineno);
		if (add_word(ps, w, lineno, msg, sizeof(msg)))
			return fail(err, len, "%s:%d: %s", name, lineno, msg);
	}
	if (got == -EILSEQ)
		return fail(err, len, "%s:%d: a NUL byte at column %d: a set file is text", name, lineno + 1, col);
	if (got == -E2BIG)
		return fail(err, len, "%s:%d: line is too long (at most %d characters)", name, lineno + 1,
			    XRL_MAX_LINE);
	if (got < 0)
		return fail(err, len, "%s: larger than %llu MiB", name, XRL_MAX_SET_FILE >> 20);
	if (ferror(f))
		return fail(err, len, "cannot read set file %s: %s", name, strerror(errno));
	xrl_pset_sort(ps);
	return 0;
}

int xrl_set_read_file(struct xrl_pset *ps, const char *path, char *err, size_t len)
{
	int ret, fd = xrl_open_input(path, "set file", err, len);
	FILE *f;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return fail(err, len, "cannot read set file %s: %s", path, strerror(errno));
	}
	ret = xrl_set_read(ps, f, path, err, len);
	fclose(f);
	return ret;
}

/* PATH as the rules file file names it: beside that file when relative, then resolved. */
static int set_path(const char *path, const char *file, char *out, char *err, size_t len)
{
	char joined[PATH_MAX * 2], dir[PATH_MAX];
	const char *slash = strrchr(file, '/');

	if (path[0] == '/' || !strcmp(file, "<stdin>") || !slash)
		snprintf(joined, sizeof(joined), "%s", path);
	else
		snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - file), file, path);
	if (!realpath(joined, dir))
		return fail(err, len, "cannot read set file %s: %s", joined, strerror(errno));
	if (strlen(dir) >= XRL_SET_PATH_MAX)
		return fail(err, len, "set file %s: its path is longer than %d bytes", dir, XRL_SET_PATH_MAX - 1);
	strcpy(out, dir);
	return 0;
}

/* The words of an inline set, '{' and '}' and ',' apart; *closed once '}' is met. */
static int inline_words(struct xrl_pset *ps, int argc, char **argv, int line, bool *closed, char *err, size_t len)
{
	int i;

	for (i = 0; i < argc && !*closed; i++) {
		char *save = NULL, *w;

		for (w = strtok_r(argv[i], ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			char *close = strchr(w, '}');

			if (close) {
				*close = '\0';
				*closed = true;
				if (close[1] || i + 1 < argc)
					return fail(err, len, "'%s' after '}': a set ends there",
						    close[1] ? close + 1 : argv[i + 1]);
			}
			if (*w && add_word(ps, w, line, err, len))
				return -EINVAL;
			if (*closed)
				break;
		}
	}
	return 0;
}

int xrl_set_parse(int argc, char **argv, FILE *f, const char *file, int *lineno, struct xrl_ruleset *set, char *err,
		  size_t len)
{
	struct xrl_pset ps = { .line = *lineno }, *tmp;
	char msg[XRL_ERRLEN], buf[XRL_MAX_LINE + 2];
	bool closed = false;
	size_t total = 0;
	int col = 0, got;
	const char *ports = "";

	if (argc >= 2 && !strcmp(argv[1], "ports")) {
		/* 'set NAME ports { ... }': the words after "ports" as a prefix set's after its name. */
		argv[1] = argv[0];
		argv++;
		argc--;
		ps.kind = XRL_PSET_PORTS;
		ports = " ports";
	}
	if (argc < 2 && ps.kind == XRL_PSET_PORTS)
		return fail(
			err, len,
			"%s:%d: a port set needs its ports: 'set NAME ports file PATH' or 'set NAME ports { 80, 443, 8000-8999 }'",
			file, *lineno);
	if (argc < 2)
		return fail(
			err, len,
			"%s:%d: a set needs a name and its prefixes: 'set NAME file PATH' or 'set NAME { PREFIX, ... }'",
			file, *lineno);
	if (xrl_set_name_check(argv[0], msg, sizeof(msg)))
		return fail(err, len, "%s:%d: %s", file, *lineno, msg);
	if (xrl_ruleset_set(set, argv[0]))
		return fail(err, len, "%s:%d: set '%s' is defined twice (line %d): give each set once", file, *lineno,
			    argv[0], xrl_ruleset_set(set, argv[0])->line);
	if (set->nsets >= XRL_MAX_SETS)
		return fail(err, len, "%s:%d: more than %d sets", file, *lineno, XRL_MAX_SETS);
	strcpy(ps.name, argv[0]);
	if (!strcmp(argv[1], "file")) {
		if (argc != 3)
			return fail(err, len, "%s:%d: 'set %s%s file' takes one path, with no space in it", file,
				    *lineno, ps.name, ports);
		if (set_path(argv[2], file, ps.path, msg, sizeof(msg)) ||
		    xrl_set_read_file(&ps, ps.path, msg, sizeof(msg))) {
			free(ps.v);
			free(ps.lines);
			return fail(err, len, "%s:%d: set %s: %s", file, *lineno, ps.name, msg);
		}
	} else if (argv[1][0] == '{') {
		/* 'set NAME {' ... '}': the prefixes follow, on this line and the next ones. */
		argv[1]++;
		ps.lines = calloc(1, sizeof(int)); /* each prefix's line kept */
		got = inline_words(&ps, argc - 1, argv + 1, *lineno, &closed, msg, sizeof(msg));
		/* As large as a set file may be: 'save --inline' writes a set's file here. */
		while (!got && !closed && (got = xrl_read_line(f, buf, &total, &col, XRL_MAX_SET_FILE)) > 0) {
			char *words[64], *save = NULL, *w, *hash = strchr(buf, '#');
			int n = 0;

			(*lineno)++;
			if (hash)
				*hash = '\0';
			for (w = strtok_r(buf, " \t\r\n", &save); w && n < 64; w = strtok_r(NULL, " \t\r\n", &save))
				words[n++] = w;
			got = inline_words(&ps, n, words, *lineno, &closed, msg, sizeof(msg));
		}
		if (got || !closed) {
			free(ps.v);
			free(ps.lines);
			if (got == -EINVAL)
				return fail(err, len, "%s:%d: set %s: %s", file, *lineno, ps.name, msg);
			if (got == -EFBIG)
				return fail(err, len, "%s:%d: set %s is larger than %llu MiB", file, *lineno + 1,
					    ps.name, XRL_MAX_SET_FILE >> 20);
			if (got < 0)
				return fail(err, len, "%s:%d: set %s: a line too long or with a NUL byte", file,
					    *lineno + 1, ps.name);
			return fail(err, len, "%s:%d: set %s has no '}': the file ends inside it", file, *lineno,
				    ps.name);
		}
		xrl_pset_sort(&ps);
	} else {
		return fail(err, len, "%s:%d: 'set %s%s %s': expected 'file PATH' or '{ %s, ... }'%s", file, *lineno,
			    ps.name, ports, argv[1], ps.kind == XRL_PSET_PORTS ? "PORT" : "PREFIX",
			    ps.kind == XRL_PSET_PORTS ? "" : " (a set of ports is 'set NAME ports { 80, 443 }')");
	}
	tmp = realloc(set->sets, (set->nsets + 1) * sizeof(*tmp));
	if (!tmp) {
		free(ps.v);
		free(ps.lines);
		return fail(err, len, "out of memory");
	}
	set->sets = tmp;
	set->sets[set->nsets++] = ps;
	return 0;
}

static bool uses(const struct xrl_maddr *a, const char *name)
{
	return a->set[0] && !strcmp(a->set, name);
}

size_t xrl_ruleset_prefixes(const struct xrl_ruleset *set)
{
	size_t i, n = 0;

	for (i = 0; i < set->n; i++) {
		const struct xrl_pset *ps = set->v[i].set[0] ? xrl_ruleset_set(set, set->v[i].set) : NULL;

		if (set->v[i].kind == XRL_KIND_PREFIX || set->v[i].kind == XRL_KIND_DST)
			n += set->v[i].set[0] ? (ps ? ps->n : 0) : 1;
	}
	/* A set match rules use as an address: once a direction (one structure serves them all). */
	for (i = 0; i < set->nsets; i++) {
		bool src = false, dst = false;
		size_t j;

		for (j = 0; j < set->n; j++)
			if (set->v[j].kind == XRL_KIND_MATCH) {
				src |= uses(&set->v[j].m.src, set->sets[i].name);
				dst |= uses(&set->v[j].m.dst, set->sets[i].name);
			}
		n += ((size_t)src + (size_t)dst) * set->sets[i].n;
	}
	return n;
}

/* One prefix of a set rule, for the check across sets: its rule's kind, its set, where it is. */
struct held {
	struct xrl_pfx p;
	int kind;
	__u32 set, at;
};

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	int c = x->kind - y->kind;

	return c ? c : pfx_cmp(&x->p, &y->p);
}

/* Where prefix at of set ps is, for a message: its file and line, or the rules file's line. */
static void where(const struct xrl_pset *ps, __u32 at, const char *file, char *buf, size_t len)
{
	int line = ps->lines ? ps->lines[at] : 0;

	if (ps->path[0])
		snprintf(buf, len, "%s:%d", ps->path, line);
	else
		snprintf(buf, len, "%s:%d", file, line ? line : ps->line);
}

static bool uses_ports(const struct xrl_spec *s, const char *name)
{
	return s->kind == XRL_KIND_MATCH && (!strcmp(s->m.sport_set, name) || !strcmp(s->m.dport_set, name));
}

int xrl_ruleset_spec_sets(const struct xrl_ruleset *set, const struct xrl_spec *s, const char *at, char *err,
			  size_t len)
{
	const char *addr[3] = { s->set, s->kind == XRL_KIND_MATCH ? s->m.src.set : "",
				s->kind == XRL_KIND_MATCH ? s->m.dst.set : "" };
	const char *aword[3] = { s->kind == XRL_KIND_DST ? "dst" : "prefix", "src", "dst" };
	const char *port[2] = { s->kind == XRL_KIND_MATCH ? s->m.sport_set : "",
				s->kind == XRL_KIND_MATCH ? s->m.dport_set : "" };
	const char *pword[2] = { "sport", "dport" };
	const struct xrl_pset *ps;
	char line[24];
	int k;

	for (k = 0; k < 3; k++) {
		if (!addr[k][0])
			continue;
		ps = xrl_ruleset_set(set, addr[k]);
		if (!ps)
			return fail(err, len, "%s: set @%s is not defined: add 'set %s file PATH' or 'set %s { ... }'",
				    at, addr[k], addr[k], addr[k]);
		line[0] = 0;
		if (ps->line)
			snprintf(line, sizeof(line), " (line %d)", ps->line);
		if (ps->kind == XRL_PSET_PORTS)
			return fail(
				err, len,
				"%s: '%s @%s': set %s holds ports%s, and '%s' takes a set of prefixes: match its ports with 'dport @%s' or 'sport @%s' in a rule of several fields (with 'proto tcp' or 'proto udp'), or define a prefix set 'set NAME { PREFIX, ... }'",
				at, aword[k], addr[k], addr[k], line, aword[k], addr[k], addr[k]);
	}
	for (k = 0; k < 2; k++) {
		if (!port[k][0])
			continue;
		ps = xrl_ruleset_set(set, port[k]);
		if (!ps)
			return fail(
				err, len,
				"%s: set @%s is not defined: add 'set %s ports { 80, 443, 8000-8999 }' or 'set %s ports file PATH'",
				at, port[k], port[k], port[k]);
		line[0] = 0;
		if (ps->line)
			snprintf(line, sizeof(line), " (line %d)", ps->line);
		if (ps->kind != XRL_PSET_PORTS)
			return fail(
				err, len,
				"%s: '%s @%s': set %s holds prefixes%s, and '%s' takes a set of ports: match its prefixes with 'src @%s' or 'dst @%s', or define a port set 'set NAME ports { 80, 443 }'",
				at, pword[k], port[k], port[k], line, pword[k], port[k], port[k]);
	}
	return 0;
}

int xrl_ruleset_check_sets(struct xrl_ruleset *set, const char *file, char *err, size_t len)
{
	struct held *h;
	size_t i, j, n = 0;
	int ret = 0;

	for (i = 0; i < set->n; i++) {
		const struct xrl_spec *s = &set->v[i];
		char at[PATH_MAX + 16];

		snprintf(at, sizeof(at), "%s:%d", file, s->line);
		if (xrl_ruleset_spec_sets(set, s, at, err, len))
			return -EINVAL;
		if (!s->set[0])
			continue;
		for (j = 0; j < i; j++)
			if (set->v[j].kind == s->kind && !strcmp(set->v[j].set, s->set))
				return fail(
					err, len,
					"%s:%d: set @%s already has a %s rule (line %d): which would hold its prefixes is ambiguous",
					file, s->line, s->set, xrl_kind_word(s->kind), set->v[j].line);
	}
	for (i = 0; i < set->nsets; i++) {
		for (j = 0; j < set->n && strcmp(set->v[j].set, set->sets[i].name) &&
			    !uses(&set->v[j].m.src, set->sets[i].name) && !uses(&set->v[j].m.dst, set->sets[i].name) &&
			    !uses_ports(&set->v[j], set->sets[i].name);
		     j++)
			;
		if (j == set->n && set->sets[i].kind == XRL_PSET_PORTS)
			return fail(
				err, len,
				"%s:%d: port set %s is defined but no rule uses it: add one ('proto tcp dport @%s ...' or 'sport @%s' in a rule of several fields), or drop the set",
				file, set->sets[i].line, set->sets[i].name, set->sets[i].name, set->sets[i].name);
		if (j == set->n)
			return fail(
				err, len,
				"%s:%d: set %s is defined but no rule uses it: add one ('prefix @%s ...', 'dst @%s ...' or 'src @NAME' in a rule of several fields), or drop the set",
				file, set->sets[i].line, set->sets[i].name, set->sets[i].name, set->sets[i].name);
		n += set->sets[i].n * 2;
	}
	if (!n)
		return 0;
	h = malloc(n * sizeof(*h));
	if (!h)
		return fail(err, len, "out of memory");
	n = 0;
	for (i = 0; i < set->n; i++) {
		const struct xrl_pset *ps = set->v[i].set[0] ? xrl_ruleset_set(set, set->v[i].set) : NULL;

		for (j = 0; ps && j < ps->n; j++)
			h[n++] = (struct held){ ps->v[j], set->v[i].kind, (__u32)(ps - set->sets), (__u32)j };
	}
	qsort(h, n, sizeof(*h), held_cmp);
	for (i = 1; i < n && !ret; i++) {
		char a[INET6_ADDRSTRLEN], w1[PATH_MAX + 16], w2[PATH_MAX + 16];
		const struct xrl_pset *p1, *p2;

		if (held_cmp(&h[i - 1], &h[i]))
			continue;
		p1 = &set->sets[h[i - 1].set];
		p2 = &set->sets[h[i].set];
		xrl_format_addr(h[i].p.family, h[i].p.addr, a, sizeof(a));
		where(p1, h[i - 1].at, file, w1, sizeof(w1));
		where(p2, h[i].at, file, w2, sizeof(w2));
		ret = fail(
			err, len,
			"%s:%d: %s/%u is in set %s (%s) and in set %s (%s), both of %s rules: which rule holds it is ambiguous; keep it in one",
			file, p2->line, a, h[i].p.plen, p1->name, w1, p2->name, w2, xrl_kind_word(h[i].kind));
	}
	free(h);
	return ret;
}

int xrl_pset_fprint(FILE *f, const struct xrl_pset *ps, bool inline_)
{
	char a[INET6_ADDRSTRLEN];
	size_t i;

	if (ps->path[0] && !inline_) {
		fprintf(f, "set %s%s file %s\n", ps->name, ps->kind == XRL_PSET_PORTS ? " ports" : "", ps->path);
		return ferror(f) ? -EIO : 0;
	}
	if (ps->kind == XRL_PSET_PORTS) {
		fprintf(f, "set %s ports {", ps->name);
		for (i = 0; i < ps->nports; i++) {
			fprintf(f, "%s%u", ps->nports > 16 && !(i % 16) ? "\n\t" : " ", ps->ports[i].lo);
			if (ps->ports[i].hi != ps->ports[i].lo)
				fprintf(f, "-%u", ps->ports[i].hi);
			fprintf(f, "%s", i + 1 < ps->nports ? "," : "");
		}
		fprintf(f, "%s}\n", ps->nports > 16 ? "\n" : " ");
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "set %s {", ps->name);
	for (i = 0; i < ps->n; i++) {
		xrl_format_addr(ps->v[i].family, ps->v[i].addr, a, sizeof(a));
		fprintf(f, "%s%s/%u%s", ps->n > 4 ? "\n\t" : " ", a, ps->v[i].plen, i + 1 < ps->n ? "," : "");
	}
	fprintf(f, "%s}\n", ps->n > 4 ? "\n" : " ");
	return ferror(f) ? -EIO : 0;
}
