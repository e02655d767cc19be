// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metrics: the figures in Prometheus's text exposition format, on stdout, in
 * a file for the node exporter's textfile collector, or served over HTTP.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "life/journal.h"
#include "cli.h"
#include "base/atomic.h"
#include "http.h"
#include "http_socket.h"
#include "read/metrics.h"
#include "metrics_render.h"

#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_opts {
	const char *textfile, *listen;
	bool systemd_socket;
	struct sockaddr_storage addr;
	socklen_t addr_len;
};

static const struct cli_opt metrics_opts[] = {
	CLI_OPT(struct metrics_opts, textfile, "textfile", STRING, .short_name = 'o', .arg = "PATH",
		.help = "write them to PATH (a .prom file) atomically, for the node exporter's textfile collector"),
	CLI_OPT(struct metrics_opts, listen, "listen", STRING, .short_name = 'l', .arg = "ADDR:PORT",
		.help = "serve them at http://ADDR:PORT/metrics until SIGTERM or SIGINT (port 0: any free one)"),
	CLI_OPT(struct metrics_opts, systemd_socket, "systemd-socket", FLAG,
		.help = "serve them on the socket systemd passes (socket activation), as --listen does"),
	{},
};

/* The interfaces asked for, for the HTTP page callback. */
static char *const *want;
static size_t nwant;

/* The server's page: a fresh reading of the interfaces asked for. */
static int exposition(char **body, size_t *blen, const char **type, char *err, size_t len)
{
	struct xrl_instance_metrics *v;
	size_t n;
	int ret;

	ret = xrl_metrics_read(want, nwant, xrl_recover, &v, &n, err, len);
	if (ret)
		return ret;
	ret = metrics_text_buf(v, n, body, blen, err, len);
	xrl_metrics_free(v, n);
	*type = PROM_TYPE;
	return ret;
}

static int metrics_prepare(struct cli_ctx *ctx)
{
	struct metrics_opts *mo = ctx->opts;
	char err[XRL_ERRLEN];
	const char *t = mo->textfile, *c;
	size_t tl;
	int i;

	for (i = 0; i < ctx->argc; i++)
		if (xrl_iface_check(ctx->argv[i], err, sizeof(err)))
			return cli_usage(ctx->cmd, "%s", err);
	if ((t != NULL) + (mo->listen != NULL) + mo->systemd_socket > 1)
		return cli_usage(
			ctx->cmd,
			"--textfile, --listen and --systemd-socket: give one of them (a timer writes the file, or a scrape reads the server)");
	if (mo->listen && http_addr_parse(mo->listen, &mo->addr, &mo->addr_len, err, sizeof(err)))
		return cli_usage(ctx->cmd, "--listen %s", err);
	if (!t)
		return EXIT_OK;
	tl = strlen(t);
	for (c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return cli_usage(ctx->cmd, "--textfile: the path has a control character at %zu",
					 (size_t)(c - t) + 1);
	if (tl <= 5 || strcmp(t + tl - 5, ".prom") || t[tl - 6] == '/')
		return cli_usage(
			ctx->cmd,
			"--textfile '%s' does not end in NAME.prom: the node exporter's textfile collector reads *.prom files only, e.g. /var/lib/prometheus/node-exporter/xdp-ratelimit.prom",
			t);
	if (tl >= PATH_MAX - 16)
		return cli_usage(ctx->cmd, "--textfile: the path is too long");
	return EXIT_OK;
}

/* Where the server listens, said once it does. */
static void listening_json(const char *name)
{
	cli.ndjson = true;
	cli_json(json_pack("{s:s,s:s}", "listening", name, "path", "/metrics"));
}

static void listening_plain(const char *name)
{
	printf("serving the metrics at http://%s/metrics (SIGTERM or Ctrl-C ends it)\n", name);
}

static int metrics_listen(const struct metrics_opts *mo)
{
	char err[XRL_ERRLEN], name[80];
	int fd, ret;

	fd = mo->systemd_socket ? http_systemd_socket(err, sizeof(err)) :
				  http_listen(&mo->addr, mo->addr_len, err, sizeof(err));
	if (fd < 0)
		return cli_fail(EXIT_FAIL, "%s", err);
	http_local_name(fd, name, sizeof(name));
	if (cli.json)
		listening_json(name);
	else
		listening_plain(name);
	fflush(stdout);
	ret = http_serve(fd, "/metrics", exposition);
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot serve on %s: %s", name, strerror(-ret));
	return EXIT_OK;
}

static int metrics_run(struct cli_ctx *ctx)
{
	const struct metrics_opts *mo = ctx->opts;
	struct xrl_instance_metrics *v;
	char err[XRL_ERRLEN], *body;
	size_t n, blen, i, unread = 0;
	int code;

	if (xrl_check_env(err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	want = ctx->argv;
	nwant = (size_t)ctx->argc;
	/*
	 * One reading first, to say now what cannot be read; it is still served
	 * (xdp_ratelimit_up 0) beside the others, which it never hides.
	 */
	if (xrl_metrics_read(want, nwant, xrl_recover, &v, &n, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	for (i = 0; i < n; i++) {
		if (!v[i].err[0])
			continue;
		fprintf(stderr, "xdp-ratelimit: %s: not read (xdp_ratelimit_up 0): %s\n", v[i].st.iface, v[i].err);
		unread++;
	}
	if (mo->listen || mo->systemd_socket) {
		xrl_metrics_free(v, n);
		return metrics_listen(mo);
	}
	if (!mo->textfile && cli.json) {
		cli_json(metrics_json(v, n));
		xrl_metrics_free(v, n);
		return nwant && unread ? EXIT_FAIL : EXIT_OK;
	}
	code = metrics_text_buf(v, n, &body, &blen, err, sizeof(err));
	xrl_metrics_free(v, n);
	if (code)
		return cli_fail(EXIT_FAIL, "%s", err);
	if (!mo->textfile) {
		fwrite(body, 1, blen, stdout);
	} else if (xrl_write_atomic(mo->textfile, body, blen, 0644, err, sizeof(err))) {
		code = cli_fail(EXIT_FAIL, "%s", err);
	} else if (cli.json) {
		cli_json(json_pack("{s:s,s:I}", "textfile", mo->textfile, "bytes", (json_int_t)blen));
	}
	free(body);
	/* A named interface not read is a failure to report, once the others' figures are out. */
	return code == EXIT_OK && nwant && unread ? EXIT_FAIL : code;
}

const struct cli_cmd cmd_metrics = {
	.name = "metrics",
	.args = "[IFACE...]",
	.summary =
		"The figures of IFACE (default: every interface it is loaded on in this network namespace) in\n"
		"Prometheus's text format: on stdout, in a file for the node exporter (--textfile), or served (--listen).",
	.max_args = -1,
	.opts = metrics_opts,
	.opts_size = sizeof(struct metrics_opts),
	.prepare = metrics_prepare,
	.run = metrics_run,
};
