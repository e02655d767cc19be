/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the commands share: a command is declared once, as a struct cli_cmd
 * with its arguments and a table of its options; the usage lines, --help and
 * the option parsing all come from it (after xdp-tools' lib/util/params.h).
 * Output, errors and exit codes.
 */
#ifndef XRL_CLI_H
#define XRL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <jansson.h>
#include "base/err.h"
#include "base/maps.h"
#include "rules/rule.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

struct xrl_cli {
	bool json;
	bool ndjson; /* a stream of documents (stats --watch): one a line */
	int verbose;
};
extern struct xrl_cli cli;

enum cli_opt_type {
	CLI_OPT_FLAG,	/* bool, set when given */
	CLI_OPT_UINT,	/* __u32, a decimal number from min to max */
	CLI_OPT_ENUM,	/* __u32, the value of one of names */
	CLI_OPT_STRING, /* const char *, as given */
};

struct cli_enum {
	const char *name;
	__u32 value;
};

struct cli_opt {
	const char *name; /* --name */
	char short_name;  /* -c, or 0 */
	enum cli_opt_type type;
	size_t off, size;	       /* where the value goes in the command's option struct */
	const char *arg;	       /* what the usage line calls the value (enums list their names) */
	const char *help;	       /* one line, or lines split by \n: help indents them */
	const char *what;	       /* UINT and ENUM: "a key count", for "--name 'x' is not a key count" */
	__u32 min, max;		       /* UINT */
	const struct cli_enum *values; /* ENUM: ends with { NULL } */
	bool required;
	size_t given_off; /* optional: a bool set when the option is given (+1, so 0 is none) */
};

/* An option of the command's option struct type T, field F. */
#define CLI_OPT(T, F, NAME, TYPE, ...)                                                                                \
	{                                                                                                             \
		.name = NAME, .type = CLI_OPT_##TYPE, .off = offsetof(T, F), .size = sizeof(((T *)0)->F), __VA_ARGS__ \
	}
#define CLI_GIVEN(T, F) .given_off = offsetof(T, F) + 1

enum cli_cmd_flags {
	CLI_IFACE = 1 << 0, /* the first argument is an interface: ctx->iface */
	CLI_MAPS = 1 << 1,  /* ... whose maps are opened before run, closed after: ctx->maps */
	CLI_READS = 1 << 2, /* ... and read under the interface's shared lock, never while rules change */
};

/* The usual arguments: one interface, whose maps are opened with CLI_MAPS. */
#define CLI_ONE_IFACE(FLAGS) \
	.args = "IFACE", .min_args = 1, .max_args = 1, .missing = "missing interface", .flags = (FLAGS)

struct cli_ctx;

struct cli_cmd {
	const char *name;
	const char *args;	    /* positional arguments, for the usage line */
	const char *summary;	    /* what it does, for --help */
	int min_args, max_args;	    /* positional arguments; max -1: any number */
	const char *missing;	    /* the message when fewer than min_args: "missing interface" */
	unsigned int flags;	    /* enum cli_cmd_flags */
	const struct cli_opt *opts; /* ends with {} */
	size_t opts_size;	    /* the option struct's */
	const void *defaults;	    /* its values before parsing, or NULL for zeros */
	/* Before the maps are opened: checks and parses positional arguments; an exit code. */
	int (*prepare)(struct cli_ctx *ctx);
	int (*run)(struct cli_ctx *ctx); /* an exit code */
	/* Frees what prepare made: called after prepare, whether it failed, run ran, or the maps could not open. */
	void (*done)(struct cli_ctx *ctx);
	/* Subcommands: the first argument names one; they share this command's option struct. */
	const struct cli_cmd *const *subs;
	const char *parent; /* a subcommand's command, for its usage line */
};

struct cli_ctx {
	const struct cli_cmd *cmd;
	void *opts; /* the command's option struct, parsed */
	int argc;   /* positional arguments, after the interface */
	char **argv;
	const char *iface;    /* CLI_IFACE */
	struct xrl_maps maps; /* CLI_MAPS */
};

/* The commands, in the order help lists them; ends with NULL. */
extern const struct cli_cmd *const cli_commands[];

/*
 * Checks a command's declaration (and its subcommands'): option fields of the
 * right size inside the option struct, names unique, what each type needs.
 * cli_run checks before parsing; the unit tests check every command.
 */
int cli_check(const struct cli_cmd *cmd, char *err, size_t len);
/* Parses argv (argv[0] is the command's name) and runs the command: an exit code. */
int cli_run(const struct cli_cmd *cmd, int argc, char **argv);
/* Finds a command by name or unambiguous prefix; NULL and a message otherwise. */
const struct cli_cmd *cli_find(const struct cli_cmd *const *table, const char *name, const char *what);
/* The top-level usage (all commands), and one command's help. */
void cli_usage_all(FILE *f);
void cli_help(const struct cli_cmd *cmd);
/* A command's usage line, from its tables, as one string (malloc'd; NULL when out of memory). */
char *cli_usage_string(const struct cli_cmd *cmd);
/* "usage: xdp-ratelimit CMD ARGS...", wrapped, as a usage error ends. */
void cli_usage_line(FILE *f, const struct cli_cmd *cmd);

/* Options every command takes besides its own: -j, -v, -h. */
#define CLI_COMMON_OPTS 3
struct cli_common_opt {
	const char *name;
	char short_name;
	const char *help;
};
extern const struct cli_common_opt cli_common_opts[CLI_COMMON_OPTS];

/* Reports an error (JSON on stdout with -j) and returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error: the message, then the command's usage line. Returns EXIT_USAGE. */
int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes the interface's lock, shared (readers) or not: 0, or an exit code with the message printed. */
int cli_lock(struct cli_ctx *ctx, bool shared);
/* The time now, UTC, as RFC 3339 with milliseconds: what every stream's document carries. */
void cli_timestamp(char *buf, size_t len);
/* Prints a JSON value and drops it: indented, or on one line with cli.ndjson. */
void cli_json(json_t *v);
/* Makes libbpf's own log visible with -v. */
void cli_libbpf_log(void);
/* The signal that asked a command's loop to stop (stats --watch, sync, capture); 0 until one came. */
extern volatile sig_atomic_t cli_stopped;
/* The handler that notes it, which those commands install: their loop ends at its next round. */
void cli_on_stop(int sig);

/* The commands' declarations, in their files. */
extern const struct cli_cmd cmd_load, cmd_unload, cmd_status, cmd_rule, cmd_apply, cmd_dump, cmd_stats, cmd_explain,
	cmd_memory, cmd_metrics, cmd_demo, cmd_lint, cmd_save, cmd_sync, cmd_chain, cmd_set, cmd_capture;

#endif /* XRL_CLI_H */
