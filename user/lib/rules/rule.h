/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The rule grammar: parsing and printing rules and rules files. No BPF here. */
#ifndef XRL_RULE_H
#define XRL_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "base/err.h"
#include "xrl_common.h"
#include "rules/match.h"

/*
 * Rules in one set, every kind together: half the counter slots, which the
 * set in force and the next share, so that any set can replace any other
 * (16,384: as many rules of several fields as a set holds, XRL_MATCH_MAX).
 */
#define XRL_MAX_SET_RULES (XRL_MAX_RULE_IDS / 2)
/* Bytes of a rules file at most: 16,384 rules of 1 KB. */
#define XRL_MAX_RULES_FILE (16 << 20)
/* Bytes of a set file at most: 16M prefixes of 64 bytes a line. */
#define XRL_MAX_SET_FILE (1ULL << 30)

enum xrl_kind {
	XRL_KIND_PORT = 1,
	XRL_KIND_PREFIX = 2,
	XRL_KIND_PROTO = 3, /* proto NAME|N [type N], fragments: see XRL_PROTO_IDX */
	XRL_KIND_DST = 4,   /* dst ADDR/LEN: see struct xrl_dst_key */
	XRL_KIND_MATCH = 5, /* fields combined ("proto udp sport 53 ..."): struct xrl_match, rules/match.h */
};

/* The most a rule takes printed, its NUL included: a line of a rules file. */
#define XRL_RULE_TEXT 1024

/* One rule as a user wrote it, and the data-plane value it becomes. */
struct xrl_spec {
	int kind;
	__u8 proto; /* port rules */
	__u16 port; /* port rules, host order */
	/*
	 * A prefix rule's source prefix, a dst rule's destination, or the
	 * destination a port rule is narrowed to (family 0: not narrowed).
	 */
	__u8 family;
	__u8 plen;
	__u8 addr[16];
	__u16 sel;		    /* protocol rules: XRL_SEL_* or a protocol number */
	struct xrl_rule r;	    /* id and gen are set when the rule is applied */
	int line;		    /* where it came from, for messages; 0 if not from a file */
	char set[XRL_SET_NAME_MAX]; /* a prefix or dst rule of a named set ('prefix @NAME'): family 0 then */
	/*
	 * What it counts by beyond r.flags' XRL_F_PER_SOURCE: XRL_PER_DST (then
	 * without XRL_F_PER_SOURCE), XRL_PER_DPORT; 0 for per-source and
	 * aggregate. Here, not in struct xrl_rule (whose flags have room),
	 * until the program counts by them.
	 */
	__u8 per;
	struct xrl_match m; /* a match rule's fields; zero for the other kinds */
	/*
	 * A rule of several windows ('rate 20/s rate 600/min'): its next nw
	 * windows, in the order written, each one rate over its own window
	 * (struct xrl_rule in xrl_windows: id, gen and next set when applied;
	 * XRL_F_NO_PKT_RATE for a byte rate). r is the first.
	 */
	__u8 nw;
	struct xrl_rule w[XRL_MAX_WINDOWS - 1];
};

/* Whether any window of rule s counts bytes. */
static inline bool xrl_spec_has_bytes(const struct xrl_spec *s)
{
	int i;

	if (s->r.byte_threshold)
		return true;
	for (i = 0; i < s->nw; i++)
		if (s->w[i].byte_threshold)
			return true;
	return false;
}

/* Window k of rule s (0: the rule's own, which holds a packet rate and a byte rate of one shape). */
static inline const struct xrl_rule *xrl_spec_window(const struct xrl_spec *s, int k)
{
	return k ? &s->w[k - 1] : &s->r;
}

/* One prefix of a set. */
struct xrl_pfx {
	__u8 addr[16];
	__u8 family;
	__u8 plen;
};

/* What a named set holds (xrl_pset.kind): prefixes, or ports ('set NAME ports ...'). */
enum xrl_set_kind {
	XRL_PSET_PREFIXES = 0,
	XRL_PSET_PORTS = 1,
	XRL_PSET_ANY = 2, /* xrl_set_read only: as the file's first word says (set update) */
};

/*
 * A named set, 'set NAME file PATH' or 'set NAME { PREFIX, ... }': its
 * prefixes sorted (by family, address, length) and each once; or a port
 * set, 'set NAME ports file PATH' or 'set NAME ports { 80, 8000-8999 }':
 * its ranges sorted, merged where they overlap or touch.
 */
struct xrl_pset {
	char name[XRL_SET_NAME_MAX];
	char path[XRL_SET_PATH_MAX]; /* the file's absolute path; "" for a set written inline */
	int line;		     /* where it is defined, for messages */
	struct xrl_pfx *v;
	size_t n, cap;
	int *lines; /* each prefix's line in its file, for messages; NULL when read from the maps */
	int kind;   /* enum xrl_set_kind */
	size_t nports;
	struct xrl_vrange ports[XRL_PORTSET_RANGES];
};

/*
 * A rules file's load line: the options 'load IFACE --config FILE' attaches
 * with, as 'save' writes them ("load mode native clock precise max-keys 65536
 * new-keys 65536 sketch-width 65536 malformed pass"). Any of them may be left out (load's default
 * then); apply reads past it: load options apply at load only.
 */
/* What load accepts: window states (--max-keys) and new ones a second (--new-keys). */
#define XRL_KEYS_MIN 16
#define XRL_KEYS_MAX 16777216
#define XRL_NEW_KEYS_MAX 100000000

enum xrl_load_field {
	XRL_LOAD_MODE = 1 << 0,
	XRL_LOAD_CLOCK = 1 << 1,
	XRL_LOAD_MAX_KEYS = 1 << 2,
	XRL_LOAD_NEW_KEYS = 1 << 3,
	XRL_LOAD_MALFORMED = 1 << 4,
	XRL_LOAD_SKETCH_WIDTH = 1 << 5,
	XRL_LOAD_MAX_PREFIXES = 1 << 6,
	XRL_LOAD_CELLS = 1 << 7,    /* not load options: apply growing the rings (xrl_ruleset_cells), */
	XRL_LOAD_RULE_IDS = 1 << 8, /* ... and the rules' counter slots (xrl_rule_ids_for) */
	XRL_LOAD_MATCH = 1 << 9,    /* ... and the classifier's bitmaps (codec/match_maps.h) */
};

struct xrl_load_line {
	int line;	  /* where it is in its file; 0: the file has none */
	unsigned int set; /* enum xrl_load_field: what it gives */
	__u32 generic;	  /* mode: 0 native, 1 generic */
	__u32 clock;	  /* XRL_CLOCK_PRECISE or XRL_CLOCK_COARSE */
	__u32 max_keys, new_keys;
	__u32 malformed;    /* enum xrl_mal_policy */
	__u32 sketch_width; /* a power of 2: checked by load (xrl_sketch_width_check) */
	__u32 max_prefixes; /* of the prefix and dst rules, sets included (xrl_lpm.h) */
};

struct xrl_ruleset_ix;
struct xrl_ruleset {
	struct xrl_spec *v;
	size_t n, cap;
	struct xrl_pset *sets; /* the named sets the rules use */
	size_t nsets;
	struct xrl_load_line load; /* from a file's load line, if it has one */
	/*
	 * xrl_ruleset_add's index of v by match, so that a set of 16,384 rules
	 * is not read in quadratic time: made again when v or n is not what it
	 * indexed (a rule deleted by hand changes n).
	 */
	struct xrl_ruleset_ix *ix;
};

/* "100/s", "10k/s", "6000/min": count packets per unit. */
int xrl_parse_rate(const char *s, __u64 *count, __u32 *unit_ms, char *err, size_t len);
/*
 * "100Mbit/s", "12MB/s", "500Kbit/min": bits (bit, Kbit, Mbit, Gbit) or bytes
 * (B, KB, MB, GB), SI prefixes. 0 with the count, unit (XRL_BU_*) and time
 * unit; 1 when s is not written as a byte rate (a packet rate, or not a rate:
 * xrl_parse_rate says which); -EINVAL for a unit it refuses, like Mbps.
 */
int xrl_parse_byte_rate(const char *s, __u64 *count, __u8 *unit, __u32 *unit_ms, char *err, size_t len);
/* "1s", "500ms", "2m": a duration in ns, at least 1 ms. */
int xrl_parse_duration(const char *s, __u64 *ns, char *err, size_t len);
/* "10.0.0.0/8", "2001:db8::/32", "192.0.2.1" (a host). */
int xrl_parse_prefix(const char *s, __u8 *family, __u8 *addr, __u8 *plen, char *err, size_t len);
/* A prefix a rule or a set matches: xrl_parse_prefix's, less the IPv4-mapped ones no packet carries. */
int xrl_parse_match_prefix(const char *word, const char *s, __u8 *family, __u8 *addr, __u8 *plen, char *err,
			   size_t len);

/* Parses the words of one rule. 0 on success; -EINVAL with a message in err. */
int xrl_spec_parse(int argc, char **argv, struct xrl_spec *out, char *err, size_t len);
/*
 * Parses the match part only ("port 53/udp", "port 53/udp dst 192.0.2.0/24",
 * "prefix 10.0.0.0/8", "dst 192.0.2.1", "proto icmp type 8", "fragments"), as
 * rule del takes.
 */
int xrl_spec_parse_match(int argc, char **argv, struct xrl_spec *out, char *err, size_t len);
/* As xrl_spec_parse_match: the words the match takes (the rest is not read), or -EINVAL. */
int xrl_spec_match_words(int argc, char **argv, struct xrl_spec *out, char *err, size_t len);
/* Prints a rule in the grammar it is parsed from; dump | apply round-trips. */
int xrl_spec_format(const struct xrl_spec *s, char *buf, size_t len);
/* A rule's byte rate as the grammar spells it ("10Mbit/s"); "" when it has none. */
/* Window r's packet rate as the grammar spells it ("600/min", "10k/s"). */
int xrl_rate_format(const struct xrl_rule *r, char *buf, size_t len);
/* Window r of a rule of several, for people: "600/min over 1m in 2 buckets" (its byte rate if it has no packet rate). */
int xrl_window_format(const struct xrl_rule *r, char *buf, size_t len);
int xrl_byte_rate_format(const struct xrl_rule *r, char *buf, size_t len);
/* Prints the match part only. */
int xrl_spec_format_match(const struct xrl_spec *s, char *buf, size_t len);
bool xrl_spec_same_match(const struct xrl_spec *a, const struct xrl_spec *b);

/* Parses the words of a load line after "load". 0, or -EINVAL with a message in err. */
int xrl_load_line_parse(int argc, char **argv, struct xrl_load_line *out, char *err, size_t len);
/* Prints a load line, "load" and every option it gives, as xrl_load_line_parse reads it. */
int xrl_load_line_format(const struct xrl_load_line *l, char *buf, size_t len);

/*
 * Parses a rules file: one rule a line, '#' starts a comment, and at most one
 * load line (set->load; it is not a rule). Nothing is
 * returned unless every line is good; err names the file, line and word.
 */
int xrl_ruleset_parse(FILE *f, const char *name, struct xrl_ruleset *set, char *err, size_t len);
int xrl_ruleset_add(struct xrl_ruleset *set, const struct xrl_spec *s, char *err, size_t len);
/*
 * Parses a set's definition, the words after "set" ('NAME file PATH', or
 * 'NAME {' and the prefixes to '}', read on from f when the line ends
 * before it), into set->sets; file is the rules file's name (a relative PATH
 * is beside it). The messages name the file, line and word.
 */
int xrl_set_parse(int argc, char **argv, FILE *f, const char *file, int *lineno, struct xrl_ruleset *set, char *err,
		  size_t len);
/*
 * A set file: one prefix a line, '#' a comment; a regular file (see
 * xrl_open_input). xrl_set_read reads f (standard input), name its name in
 * messages. A word that could not be a prefix is not quoted in err.
 */
int xrl_set_read_file(struct xrl_pset *ps, const char *path, char *err, size_t len);
int xrl_set_read(struct xrl_pset *ps, FILE *f, const char *name, char *err, size_t len);
/* Adds ports lo to hi to a port set, merged: -E2BIG past XRL_PORTSET_RANGES ranges. */
int xrl_pset_add_ports(struct xrl_pset *ps, __u32 lo, __u32 hi);
/* The port set named name, or NULL (none, or a prefix set). */
const struct xrl_pset *xrl_ruleset_port_set(const struct xrl_ruleset *set, const char *name);
/* Sorts a set's prefixes and drops repeats. */
void xrl_pset_sort(struct xrl_pset *ps);
int xrl_pset_add(struct xrl_pset *ps, const struct xrl_pfx *p, int line);
/* Whether name can be a set's: a letter, then letters, digits, '_', '-' or '.'. -EINVAL and why otherwise. */
int xrl_set_name_check(const char *name, char *err, size_t len);
/* The set named name, or NULL. */
struct xrl_pset *xrl_ruleset_set(const struct xrl_ruleset *set, const char *name);
/*
 * What a rule set with sets must be, once every line is read: each set
 * rule's set defined, each set used, no set used by two rules of a kind,
 * and no prefix in two sets whose rules are of a kind (which rule would
 * hold it is ambiguous; a single prefix rule of the same prefix is not:
 * it holds it, see the README).
 */
int xrl_ruleset_check_sets(struct xrl_ruleset *set, const char *file, char *err, size_t len);
/*
 * What is wrong with the sets rule s names, into err after at (where s was
 * read): one not defined, or of the other kind (a port set as an address, a
 * prefix set as ports).
 */
int xrl_ruleset_spec_sets(const struct xrl_ruleset *set, const struct xrl_spec *s, const char *at, char *err,
			  size_t len);
/* Prints a set as 'set NAME file PATH', or inline ('set NAME { ... }') when inline or it has no file. */
int xrl_pset_fprint(FILE *f, const struct xrl_pset *ps, bool inline_);
/* Prefixes the rules hold in all, a set's counted for each rule that uses it (what --max-prefixes bounds). */
size_t xrl_ruleset_prefixes(const struct xrl_ruleset *set);
int xrl_ruleset_find(const struct xrl_ruleset *set, const struct xrl_spec *match);
void xrl_ruleset_free(struct xrl_ruleset *set);

const char *xrl_proto_name(__u8 proto);
/* A kind as JSON names it: "port", "proto", "prefix" or "dst". */
const char *xrl_kind_name(int kind);
/* Whether the rule lives in the dst trie (xrl_dsts): a dst rule, or a port rule narrowed to a destination. */
bool xrl_spec_in_dsts(const struct xrl_spec *s);
/* A protocol rule's selector as the grammar spells it after "proto" ("tcp-syn", "icmp type 8", "47"). */
int xrl_sel_format(__u16 sel, char *buf, size_t len);
int xrl_format_addr(__u8 family, const __u8 *addr, char *buf, size_t len);
/* What a rule counts by, XRL_PER_*: r.flags' XRL_F_PER_SOURCE and s->per's other keys. */
__u8 xrl_spec_per(const struct xrl_spec *s);
/* A key as scope prints it: "per-source", "aggregate", else what follows "per " ("src,dport"). */
const char *xrl_per_name(__u8 per);
/* TCP flags as a match rule spells them ("syn,ack", "none"); a protocol ("udp", "47"). */
int xrl_tcp_flags_format(__u8 v, char *buf, size_t len);
int xrl_mproto_format(__u8 proto, char *buf, size_t len);

/*
 * The fields a rule has (XRL_MF_*), as a match rule would write them: a port
 * rule has PROTO and DPORT (and DST narrowed), 'proto tcp-syn' PROTO and
 * TCPFLAGS, 'fragments' FRAG, a prefix rule SRC.
 */
__u32 xrl_spec_fields(const struct xrl_spec *s);
/*
 * Which of s's fields packet p matches, field by field (XRL_MF_* bits of
 * xrl_spec_fields(s)): s matches p when they are all there. A set's
 * addresses are looked up in set (NULL: a set matches nothing). The
 * reference the classifier is tested against, and what explain shows.
 */
__u32 xrl_spec_eval(const struct xrl_spec *s, const struct xrl_ruleset *set, const struct xrl_match_pkt *p);

/*
 * The values classifier field f (XRL_LBVS_*) of match rule s accepts, as
 * disjoint ascending ranges in out (XRL_MATCH_FIELD_RANGES): their count (0:
 * none, the rule matches no packet), or -1 when the rule leaves f free. With
 * what its fields imply: a field of the transport header, no later fragment.
 * A named port set's ranges are looked up in set (NULL, or none: no port).
 */
int xrl_match_field_ranges(const struct xrl_spec *s, const struct xrl_ruleset *set, int f, struct xrl_vrange *out);

/* What lint warns about: a rule no packet reaches, or one another makes redundant. */
struct xrl_lint_warn {
	int line;    /* the rule's line; 0 if not from a file */
	size_t rule; /* its index in the set */
	char msg[XRL_ERRLEN];
};
/*
 * The warnings of a rule set, into a new array *out (free it): their
 * count, or -ENOMEM.
 */
int xrl_ruleset_lint(const struct xrl_ruleset *set, struct xrl_lint_warn **out);

/*
 * A set this build cannot judge yet, so that apply and load --config refuse
 * it whole (-EOPNOTSUPP, a message in err): a shorthand rule that counts by
 * another key than its source or nothing. 0 otherwise. (Rules of several
 * fields count by any key: a shorthand written as one does too.)
 */
int xrl_ruleset_not_judged_yet(const struct xrl_ruleset *set, char *err, size_t len);

#endif /* XRL_RULE_H */
