// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrl-rawsend: raw frames of any length out of an interface, through an
 * AF_PACKET socket, for the tests of frames the parser must survive.
 *   xrl-rawsend [-n NETNS] [-c COUNT] IFACE HEX...
 * Sends each HEX (the whole frame, Ethernet header included; "" is the empty
 * frame) COUNT times (default 1) and prints one line per frame:
 *   LEN sent N            the kernel took N copies (a queue full for a moment waited out)
 *   LEN refused ERRNO     it refused the first copy, with strerror(errno)
 * Exits 0 once every frame was tried, 1 when it could not try, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include "udpgen.h"

#define FRAME_MAX 2048

static int usage(void)
{
	fprintf(stderr, "usage: xrl-rawsend [-n NETNS] [-c COUNT] IFACE HEX...\n");
	return 2;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The bytes a hex string spells, or -1. */
static int unhex(const char *s, unsigned char *buf, size_t max)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

/*
 * Sends one frame; 0 when the kernel took it. A device queue full for a
 * moment (ENOBUFS, EAGAIN: the receiving veth's ring not drained yet) is
 * waited out, for up to a second: a flood of COUNT copies is COUNT frames
 * sent, not as many as fit before the first full queue.
 */
static int send_one(int fd, const unsigned char *buf, int len, const struct sockaddr_ll *sll)
{
	int tries;

	for (tries = 0; tries < 10000; tries++) {
		if (sendto(fd, buf, (size_t)len, 0, (const struct sockaddr *)sll, sizeof(*sll)) == len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN)
			return -1;
		usleep(100);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *ns = NULL, *ifname;
	unsigned char buf[FRAME_MAX];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	long count = 1;
	int opt, fd, i, err;

	while ((opt = getopt(argc, argv, "+n:c:")) != -1) {
		switch (opt) {
		case 'n':
			ns = optarg;
			break;
		case 'c':
			count = strtol(optarg, NULL, 10);
			if (count < 1)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (argc - optind < 2)
		return usage();
	ifname = argv[optind];
	for (i = optind + 1; i < argc; i++) {
		if (unhex(argv[i], buf, sizeof(buf)) < 0) {
			fprintf(stderr, "xrl-rawsend: '%s' is not a frame in hex\n", argv[i]);
			return 2;
		}
	}

	if (ns) {
		err = xrl_enter_netns(ns);
		if (err) {
			fprintf(stderr, "xrl-rawsend: netns %s: %s\n", ns, strerror(-err));
			return 1;
		}
	}
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "xrl-rawsend: %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	/* Protocol 0: send only, so the socket never queues what it receives. */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "xrl-rawsend: socket: %s\n", strerror(errno));
		return 1;
	}
	sll.sll_protocol = 0;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "xrl-rawsend: bind %s: %s\n", ifname, strerror(errno));
		close(fd);
		return 1;
	}

	for (i = optind + 1; i < argc; i++) {
		int len = unhex(argv[i], buf, sizeof(buf));
		long k, sent = 0;

		for (k = 0; k < count; k++) {
			if (send_one(fd, buf, len, &sll))
				break;
			sent++;
		}
		if (!sent)
			printf("%d refused %s\n", len, strerror(errno));
		else
			printf("%d sent %ld\n", len, sent);
	}
	close(fd);
	return 0;
}
