// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Usage lines and help, in text and JSON, from the command and option tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CLI_WIDTH 100 /* usage lines wrap here */

/* What the usage line shows for an option's value: its arg, or an enum's names. */
static void opt_arg(const struct cli_opt *o, char *buf, size_t len)
{
	const struct cli_enum *e;
	size_t n = 0;

	buf[0] = '\0';
	if (o->type != CLI_OPT_ENUM) {
		snprintf(buf, len, "%s", o->type == CLI_OPT_FLAG ? "" : o->arg);
		return;
	}
	for (e = o->values; e->name && n < len; e++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", e == o->values ? "" : "|", e->name);
}

/* Appends one word of a usage line, wrapping at CLI_WIDTH with an indent. */
static void usage_word(FILE *f, size_t *col, size_t indent, const char *word)
{
	size_t n = strlen(word);

	if (*col + 1 + n > CLI_WIDTH && *col > indent) {
		fprintf(f, "\n%*s", (int)indent, "");
		*col = indent;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(word, f);
	*col += n;
}

/* The command's arguments and options, from its tables, starting at column col. */
static void usage_args(FILE *f, const struct cli_cmd *cmd, size_t col, size_t indent)
{
	const struct cli_opt *o;
	char word[160], arg[96];
	size_t i;

	if (cmd->subs) {
		for (i = 0; cmd->subs[i]; i++) {
			snprintf(word, sizeof(word), "%s%s %s", i ? "| " : "", cmd->subs[i]->name, cmd->subs[i]->args);
			usage_word(f, &col, indent, word);
		}
		return;
	}
	if (cmd->args && cmd->args[0])
		usage_word(f, &col, indent, cmd->args);
	for (o = cmd->opts; o && o->name; o++) {
		opt_arg(o, arg, sizeof(arg));
		snprintf(word, sizeof(word), o->required ? "--%s%s%s" : "[--%s%s%s]", o->name, arg[0] ? " " : "", arg);
		usage_word(f, &col, indent, word);
	}
}

char *cli_usage_string(const struct cli_cmd *cmd)
{
	char *buf = NULL;
	size_t len = 0, col;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	col = (size_t)fprintf(f, "xdp-ratelimit %s%s%s", cmd->parent ? cmd->parent : "", cmd->parent ? " " : "",
			      cmd->name);
	usage_args(f, cmd, col, (size_t)-1 / 2); /* one line: never wraps */
	fclose(f);
	return buf;
}

/* A command in JSON: its name, usage line, summary and options. */
static json_t *cmd_json(const struct cli_cmd *cmd)
{
	char *usage = cli_usage_string(cmd);
	json_t *opts = json_array();
	const struct cli_opt *o;
	char arg[96];

	for (o = cmd->opts; o && o->name; o++) {
		json_t *j = json_pack("{s:s,s:s}", "name", o->name, "help", o->help);

		opt_arg(o, arg, sizeof(arg));
		if (arg[0]) /* flags take none */
			json_object_set_new(j, "value", json_string(arg));
		json_array_append_new(opts, j);
	}
	json_t *v = json_pack("{s:s,s:s,s:s,s:o}", "command", cmd->name, "usage", usage ? usage : "", "summary",
			      cmd->summary, "options", opts);
	free(usage);
	if (cmd->subs) { /* what completion and the man page list */
		json_t *subs = json_array();

		for (const struct cli_cmd *const *c = cmd->subs; *c; c++)
			json_array_append_new(subs, cmd_json(*c));
		json_object_set_new(v, "subcommands", subs);
	}
	return v;
}

static void usage_all_json(void)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; cli_commands[i]; i++)
		json_array_append_new(arr, cmd_json(cli_commands[i]));
	cli_json(json_pack("{s:o}", "commands", arr));
}

static void usage_all_plain(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: xdp-ratelimit [-j] [-v] COMMAND [ARGS]\n\n"
		   "A sliding-window packet-rate limiter in XDP, per destination port and per source prefix.\n\n"
		   "Commands:\n");
	for (i = 0; cli_commands[i]; i++) {
		const struct cli_cmd *c = cli_commands[i];

		fprintf(f, "  %-*s", (c->args && c->args[0]) || c->opts || c->subs ? 7 : 0, c->name);
		usage_args(f, c, 9, 10);
		fputc('\n', f);
	}
	fprintf(f, "\nOptions (before or after the command): -j/--json  -v/--verbose  -h/--help  -V/--version\n"
		   "'xdp-ratelimit help COMMAND' shows a command's options.\n");
}

void cli_usage_all(FILE *f)
{
	if (cli.json)
		usage_all_json();
	else
		usage_all_plain(f);
}

/* One option's line of help: its names in a column, then its help, continuation lines indented. */
static void help_line(char short_name, const char *name, const char *arg, const char *help)
{
	char names[64];
	const char *nl;

	snprintf(names, sizeof(names), "%s%c%s--%s%s%s", short_name ? "-" : "", short_name ? short_name : ' ',
		 short_name ? ", " : "  ", name, arg[0] ? " " : "", arg);
	printf("  %-22s %.*s\n", names, (int)strcspn(help, "\n"), help);
	for (nl = strchr(help, '\n'); nl; nl = strchr(nl + 1, '\n'))
		printf("  %-22s %.*s\n", "", (int)strcspn(nl + 1, "\n"), nl + 1);
}

static void help_plain(const struct cli_cmd *cmd)
{
	const struct cli_opt *o;
	size_t i, col;

	col = (size_t)printf("Usage: xdp-ratelimit %s%s%s", cmd->parent ? cmd->parent : "", cmd->parent ? " " : "",
			     cmd->name);
	usage_args(stdout, cmd, col, 8);
	printf("\n\n%s\n\nOptions:\n", cmd->summary);
	for (o = cmd->opts; o && o->name; o++)
		help_line(o->short_name, o->name, o->type == CLI_OPT_UINT || o->type == CLI_OPT_STRING ? o->arg : "",
			  o->help);
	for (i = 0; i < CLI_COMMON_OPTS; i++)
		help_line(cli_common_opts[i].short_name, cli_common_opts[i].name, "", cli_common_opts[i].help);
}

void cli_help(const struct cli_cmd *cmd)
{
	if (cli.json)
		cli_json(cmd_json(cmd));
	else
		help_plain(cmd);
}

void cli_usage_line(FILE *f, const struct cli_cmd *cmd)
{
	size_t col = (size_t)fprintf(f, "usage: xdp-ratelimit %s%s%s", cmd->parent ? cmd->parent : "",
				     cmd->parent ? " " : "", cmd->name);

	usage_args(f, cmd, col, 8);
	fputc('\n', f);
}
