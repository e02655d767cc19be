/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the commands share: options every command takes, output, errors, exit codes. */
#ifndef XRL_CLI_H
#define XRL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <jansson.h>
#include "err.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

struct xrl_cli {
	bool json;
	int verbose;
};
extern struct xrl_cli cli;

struct xrl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage; /* after the command name */
	const char *help;  /* one line, then option lines */
};

/* Finds a command by name or unambiguous prefix; NULL and a message otherwise. */
const struct xrl_cmd *cli_find(const struct xrl_cmd *table, const char *name, const char *what);

/*
 * getopt_long with -j/--json, -v/--verbose and -h/--help added. Returns the
 * option, -1 at the end, or EXIT_USAGE + 1000 when the command must exit with
 * the code in *exit_code (help printed, or a usage error reported).
 */
#define CLI_EXIT 1000
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const struct xrl_cmd *cmd, int *exit_code);
void cli_help(const struct xrl_cmd *cmd);

/* Reports an error (JSON on stdout with -j) and returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error: the message, then the command's usage line. Returns EXIT_USAGE. */
int cli_usage(const struct xrl_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a JSON value and drops it. */
void cli_json(json_t *v);
/* Makes libbpf's own log visible with -v. */
void cli_libbpf_log(void);

struct xrl_maps;
/* Prints an interface's figures (stats), with the top K keys when top > 0. Returns an exit code. */
int xrl_stats_print(const char *iface, const struct xrl_maps *m, size_t top);

/* Commands. */
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_rule(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_demo(int argc, char **argv);
extern const struct xrl_cmd xrl_commands[];
/* A command of xrl_commands by its exact name. */
const struct xrl_cmd *cli_cmd(const char *name);

#endif /* XRL_CLI_H */
