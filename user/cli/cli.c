// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every command shares: the global options, JSON out, the time, libbpf's log (cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "cli.h"

struct xrl_cli cli;

const struct cli_common_opt cli_common_opts[CLI_COMMON_OPTS] = {
	{ "json", 'j', "print JSON, errors included" },
	{ "verbose", 'v', "show libbpf's log" },
	{ "help", 'h', "this help" },
};

volatile sig_atomic_t cli_stopped;

void cli_on_stop(int sig)
{
	cli_stopped = sig;
}

void cli_timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", s, ts.tv_nsec / 1000000);
}

void cli_json(json_t *v)
{
	if (!v)
		return;
	json_dumpf(v, stdout, (cli.ndjson ? JSON_COMPACT : JSON_INDENT(2)) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(v);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && cli.verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void cli_libbpf_log(void)
{
	libbpf_set_print(cli.verbose ? print_libbpf : quiet_libbpf);
}
