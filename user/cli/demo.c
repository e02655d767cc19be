// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * demo: a veth lab in a network namespace, the limiter on the host side,
 * sample rules, clients above and below their limits, live figures, cleanup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "apply.h"
#include "cli.h"
#include "loader.h"
#include "stats.h"
#include "udpgen.h"

#define NS "xrl-demo"
#define HOST_IF "xrld0"
#define PEER_IF "xrld1"
#define PORT 5000
#define SECONDS 8


static const char demo_rules[] =
	"# every client may send 100 packets/s to the service on 5000/udp\n"
	"port 5000/udp rate 100/s per-source\n"
	"# the noisy 10.201.0.4 gets 20/s in all, whatever it sends to\n"
	"prefix 10.201.0.4/32 rate 20/s aggregate\n"
	"# the monitoring host is never limited\n"
	"prefix 10.201.0.5/32 allow\n"
	"# IPv6 clients: 50/s for each /64\n"
	"prefix fd00:201::/48 rate 50/s per-source mask 64\n";

static struct xrl_udp_flow flows[] = {
	{ NS, "10.201.0.2", "10.201.0.1", PORT, 50, SECONDS, 0, 0 },	   /* under its limit */
	{ NS, "10.201.0.3", "10.201.0.1", PORT, 400, SECONDS, 0, 0 },	   /* 4x its limit */
	{ NS, "10.201.0.4", "10.201.0.1", PORT, 200, SECONDS, 0, 0 },	   /* noisy: 20/s */
	{ NS, "10.201.0.5", "10.201.0.1", PORT, 300, SECONDS, 0, 0 },	   /* allowed */
	{ NS, "fd00:201::10", "fd00:201::1", PORT, 200, SECONDS, 0, 0 }, /* IPv6, 50/s */
};
#define NFLOWS (sizeof(flows) / sizeof(flows[0]))

static const char *const lab_up[] = {
	"ip netns add " NS,
	"ip link add " HOST_IF " type veth peer name " PEER_IF,
	"ip link set " PEER_IF " netns " NS,
	"ip addr add 10.201.0.1/24 dev " HOST_IF,
	"ip addr add fd00:201::1/64 dev " HOST_IF " nodad",
	"ip link set " HOST_IF " up",
	"ip -n " NS " link set lo up",
	"ip -n " NS " addr add 10.201.0.2/24 dev " PEER_IF,
	"ip -n " NS " addr add 10.201.0.3/24 dev " PEER_IF,
	"ip -n " NS " addr add 10.201.0.4/24 dev " PEER_IF,
	"ip -n " NS " addr add 10.201.0.5/24 dev " PEER_IF,
	"ip -n " NS " addr add fd00:201::10/64 dev " PEER_IF " nodad",
	"ip -n " NS " link set " PEER_IF " up",
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int run(const char *cmd)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s >/dev/null 2>&1", cmd);
	return system(buf) == 0 ? 0 : -1;
}

static void lab_down(void)
{
	run("ip link del " HOST_IF);
	run("ip netns del " NS);
}

static void *send_flow(void *arg)
{
	xrl_udp_send(arg);
	return NULL;
}

struct sink {
	const char *addr;
	__u64 count;
};

static void *drain(void *arg)
{
	struct sink *s = arg;

	xrl_udp_recv(NULL, s->addr, PORT, SECONDS + 1.5, 0, &s->count);
	return NULL;
}

static int mount_bpffs(void)
{
	struct statfs st;

	if (!statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	return mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL) ? -errno : 0;
}

static int apply_text(const char *iface, const char *text, char *err, size_t len)
{
	struct xrl_ruleset set = {};
	struct xrl_maps m;
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -errno;
	ret = xrl_ruleset_parse(f, "demo rules", &set, err, len);
	fclose(f);
	if (!ret)
		ret = xrl_maps_open(iface, &m, err, len);
	if (!ret) {
		ret = xrl_rules_apply(&m, &set, err, len);
		xrl_maps_close(&m);
	}
	xrl_ruleset_free(&set);
	return ret;
}

static int show(const char *iface, int rounds)
{
	char err[XRL_ERRLEN];
	struct xrl_maps m;
	int i, code = EXIT_OK;

	if (xrl_maps_open(iface, &m, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	for (i = 0; i < rounds && !interrupted; i++) {
		sleep(1);
		if (!cli.json && isatty(STDOUT_FILENO))
			printf("\033[H\033[J");
		if (!cli.json)
			printf("--- xdp-ratelimit demo, second %d of %d ---\n", i + 1, rounds);
		code = xrl_stats_print(iface, &m, 8);
		if (code)
			break;
	}
	xrl_maps_close(&m);
	return code;
}

static int demo_on(const char *iface)
{
	struct xrl_load_opts o = { .iface = iface, .clock = XRL_CLOCK_PRECISE, .max_keys = XRL_DEFAULT_KEYS,
				   .new_keys = XRL_DEFAULT_KEYS };
	char err[XRL_ERRLEN];
	int code;

	if (xrl_load(&o, err, sizeof(err)))
		return cli_fail(EXIT_FAIL, "%s", err);
	if (apply_text(iface, demo_rules, err, sizeof(err))) {
		xrl_unload(iface, err, sizeof(err));
		return cli_fail(EXIT_FAIL, "%s", err);
	}
	printf("loaded on %s with the demo rules (they limit only UDP port 5000 and 10.201.0.0/24, fd00:201::/48):\n%s\n",
	       iface, demo_rules);
	code = show(iface, 10);
	xrl_unload(iface, err, sizeof(err));
	printf("unloaded from %s\n", iface);
	return code;
}

static int demo_run(struct cli_ctx *ctx)
{
	struct sink sinks[2] = { { "10.201.0.1", 0 }, { "fd00:201::1", 0 } };
	pthread_t tx[NFLOWS], rx[2];
	char err[XRL_ERRLEN];
	int code, ret;
	size_t i;

	if (geteuid() != 0)
		return cli_fail(EXIT_FAIL, "the demo needs root to build its lab and load XDP: run it with sudo");
	ret = mount_bpffs();
	if (ret)
		return cli_fail(EXIT_FAIL, "cannot mount bpffs at /sys/fs/bpf: %s", strerror(-ret));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (ctx->argc == 1)
		return demo_on(ctx->argv[0]);

	lab_down(); /* a lab left by a killed demo */
	for (i = 0; i < sizeof(lab_up) / sizeof(lab_up[0]); i++) {
		if (run(lab_up[i])) {
			lab_down();
			return cli_fail(EXIT_FAIL, "cannot build the lab: '%s' failed (is iproute2 installed?)",
					lab_up[i]);
		}
	}
	{
		struct xrl_load_opts o = { .iface = HOST_IF, .clock = XRL_CLOCK_PRECISE,
					   .max_keys = XRL_DEFAULT_KEYS,
				   .new_keys = XRL_DEFAULT_KEYS };

		if (xrl_load(&o, err, sizeof(err)) || apply_text(HOST_IF, demo_rules, err, sizeof(err))) {
			xrl_unload(HOST_IF, err + 256, 256);
			lab_down();
			return cli_fail(EXIT_FAIL, "%s", err);
		}
	}
	printf("lab: namespace %s holds the clients (%s), %s is the protected host; the limiter is on %s.\n"
	       "rules:\n%s\nclients for %d seconds, all to UDP port %d:\n",
	       NS, PEER_IF, HOST_IF, HOST_IF, demo_rules, SECONDS, PORT);
	for (i = 0; i < NFLOWS; i++)
		printf("  %-14s %4.0f packets/s\n", flows[i].src, flows[i].pps);
	sleep(2);
	for (i = 0; i < 2; i++)
		pthread_create(&rx[i], NULL, drain, &sinks[i]);
	usleep(200000);
	for (i = 0; i < NFLOWS; i++)
		pthread_create(&tx[i], NULL, send_flow, &flows[i]);
	code = show(HOST_IF, SECONDS);
	for (i = 0; i < NFLOWS; i++)
		pthread_join(tx[i], NULL);
	for (i = 0; i < 2; i++)
		pthread_join(rx[i], NULL);
	if (!code) {
		struct xrl_maps m;
		struct xrl_counters cnt = {};

		if (!xrl_maps_open(HOST_IF, &m, err, sizeof(err))) {
			xrl_counters_read(&m, &cnt);
			xrl_maps_close(&m);
		}
		printf("\nsent by the clients: ");
		for (i = 0; i < NFLOWS; i++)
			printf("%s%s %llu", i ? ", " : "", flows[i].src, (unsigned long long)flows[i].sent);
		printf("\nthe limiter passed %llu and dropped %llu of %llu; the service received %llu\n",
		       (unsigned long long)cnt.passed, (unsigned long long)cnt.dropped,
		       (unsigned long long)cnt.seen, (unsigned long long)(sinks[0].count + sinks[1].count));
	}
	xrl_unload(HOST_IF, err, sizeof(err));
	lab_down();
	printf("lab removed. Try it on a real NIC: xdp-ratelimit load eth0 && xdp-ratelimit rule add eth0 port 53/udp rate 100/s\n");
	return code;
}

const struct cli_cmd cmd_demo = {
	.name = "demo",
	.args = "[IFACE]",
	.summary = "Builds a veth lab in a network namespace, loads the limiter, installs sample rules, sends traffic from\n"
		   "several sources above and below their limits, shows pass, block and QPS as they change, and cleans up.\n"
		   "With IFACE, loads on that interface instead and shows its figures (no lab, no traffic).",
	.max_args = 1,
	.run = demo_run,
};
