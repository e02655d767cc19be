// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrl-udp: paced UDP for tests and the demo.
 *   xrl-udp send [-n NETNS] [-s BYTES] SRC DST PORT PPS SECONDS [COUNT]
 *                                                              prints the datagrams sent, of BYTES
 *                                                              of payload each (32 if not given)
 *   xrl-udp recv [-n NETNS] [-t] ADDR PORT SECONDS             prints "ready", then the datagrams received;
 *                                                              -t: first each one's arrival, in us
 *                                                              after "ready", a line each
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "udpgen.h"

static int usage(void)
{
	fprintf(stderr, "usage: xrl-udp send [-n NETNS] [-s BYTES] SRC DST PORT PPS SECONDS [COUNT]\n"
			"       xrl-udp recv [-n NETNS] [-t] ADDR PORT SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *ns = NULL;
	__u32 size = 0;
	bool times = false;
	__u64 n;
	int ret;

	if (argc < 2)
		return usage();
	while (argc > 3 && (!strcmp(argv[2], "-n") || !strcmp(argv[2], "-s") || !strcmp(argv[2], "-t"))) {
		if (argv[2][1] == 't') {
			times = true;
			memmove(argv + 2, argv + 3, (size_t)(argc - 3 + 1) * sizeof(*argv));
			argc--;
			continue;
		}
		if (argv[2][1] == 'n') {
			ns = argv[3];
		} else {
			char *end;
			unsigned long v = strtoul(argv[3], &end, 10);

			if (*end || v == 0 || v > XRL_UDP_MAX_PAYLOAD) {
				fprintf(stderr, "xrl-udp: -s '%s': expected a payload of 1 to %d bytes\n", argv[3],
					XRL_UDP_MAX_PAYLOAD);
				return 2;
			}
			size = (__u32)v;
		}
		memmove(argv + 2, argv + 4, (size_t)(argc - 4 + 1) * sizeof(*argv));
		argc -= 2;
	}
	if (!strcmp(argv[1], "send") && (argc == 7 || argc == 8)) {
		struct xrl_udp_flow f = {
			.netns = ns,
			.src = argv[2],
			.dst = argv[3],
			.port = (__u16)atoi(argv[4]),
			.pps = atof(argv[5]),
			.seconds = atof(argv[6]),
			.count = argc == 8 ? strtoull(argv[7], NULL, 10) : 0,
			.size = size,
		};

		ret = xrl_udp_send(&f);
		n = f.sent;
	} else if (!strcmp(argv[1], "recv") && argc == 5) {
		ret = xrl_udp_recv(ns, argv[2], (__u16)atoi(argv[3]), atof(argv[4]), 1, times ? stdout : NULL, &n);
	} else {
		return usage();
	}
	if (ret) {
		fprintf(stderr, "xrl-udp: %s\n", strerror(-ret));
		return 1;
	}
	printf("%llu\n", (unsigned long long)n);
	return 0;
}
