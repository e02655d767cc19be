/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the grammar's pieces share: not part of the library's interface. */
#ifndef XRL_RULES_INTERNAL_H
#define XRL_RULES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "xrl_common.h"

#define NS_PER_MS 1000000ULL
#define MAX_COUNT 1000000000000ULL /* 10^12 packets per unit: beyond any NIC */
#define MAX_WINDOW_MS 3600000ULL   /* one hour */

#define fail(err, len, ...) xrl_fail(-EINVAL, err, len, __VA_ARGS__)

/* "s", "min", "h": a rate's time unit. */
const char *xrl_time_unit_name(__u32 unit_ms);
/* Bits in one XRL_BU_* unit, and its name ("Mbit", "KB"). */
__u64 xrl_byte_unit_bits(__u8 unit);
const char *xrl_byte_unit_name(__u8 unit);
/* A duration ("1s", "500ms"); what names it in messages ("window", "warmup"). */
int xrl_parse_duration_of(const char *s, const char *what, __u64 *ns, char *err, size_t len);
int xrl_format_rate(__u64 count, __u32 unit_ms, char *buf, size_t len);
int xrl_format_duration(__u64 ns, char *buf, size_t len);
#define XRL_MAX_LINE 1022 /* characters a line, its newline aside */

/*
 * Reads one line into buf (XRL_MAX_LINE + 2 bytes), NUL-terminated, its
 * newline kept: its length, 0 at the end of the file. Refuses a line as soon
 * as it passes XRL_MAX_LINE (-E2BIG), a NUL byte (-EILSEQ, *col its column)
 * and a file past max bytes (-EFBIG), so that no input, not even /dev/zero,
 * is read further than that.
 */
int xrl_read_line(FILE *f, char *buf, size_t *total, int *col, unsigned long long max);

/* What a rule kind is called in messages ("protocol", "port"). */
const char *xrl_kind_word(int kind);

struct xrl_spec;
struct xrl_match;
/* 'port PORT/PROTO''s value into out; "proto NAME|N [type N]": the words it takes (2 or 4). -EINVAL otherwise. */
int xrl_shorthand_port(const char *s, struct xrl_spec *out, char *err, size_t len);
int xrl_shorthand_proto(int argc, char **argv, struct xrl_spec *out, char *err, size_t len);

/* 'per KEY': XRL_PER_* bits. */
int xrl_per_parse(const char *v, __u8 *per, char *err, size_t len);
/* Whether every packet the rule matches has ports (tcp or udp, not a later fragment). */
bool xrl_spec_has_ports(const struct xrl_spec *s);

/* Match rules (match_words.c, match_format.c). */
/* Whether w is a word of a match rule's fields ("sport", "ttl", "src", ...). */
bool xrl_is_match_word(const char *w);
/* The match words from argv[0] as a match rule into out->m (kind XRL_KIND_MATCH): their count, or -EINVAL. */
int xrl_match_parse(int argc, char **argv, struct xrl_spec *out, char *err, size_t len);
int xrl_match_format(const struct xrl_spec *s, char *buf, size_t len);
bool xrl_match_same(const struct xrl_match *a, const struct xrl_match *b);
/* The family a rule's addresses fix (XRL_FAMILY_V4 or V6), 0 when they fix none. */
__u8 xrl_spec_family(const struct xrl_spec *s);
/* An ICMP (v6: ICMPv6) type's name, a TCP flag's: the value, or -1. */
int xrl_icmp_type_value(const char *name, bool v6);
int xrl_tcp_flag_value(const char *name);
/* DSCP and fragment-state names, ICMP and ICMPv6 type names: the value, or -1. */
int xrl_dscp_value(const char *name);
const char *xrl_dscp_name(unsigned int v);
int xrl_frag_value(const char *name);
const char *xrl_frag_name(unsigned int v);

#endif /* XRL_RULES_INTERNAL_H */
