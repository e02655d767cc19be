// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "udpgen.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int xrl_enter_netns(const char *name)
{
	char path[256];
	int fd, ret = 0;

	if (!name)
		return 0;
	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		ret = -errno;
	close(fd);
	return ret;
}

static int make_addr(const char *s, __u16 port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return AF_INET6;
	}
	return -EINVAL;
}

int xrl_udp_send(struct xrl_udp_flow *f)
{
	struct sockaddr_storage src, dst;
	socklen_t slen, dlen;
	char payload[XRL_UDP_MAX_PAYLOAD] = "xdp-ratelimit";
	size_t size = f->size ? f->size : 32;
	double t0, now;
	int fd, fam, ret;

	f->sent = 0;
	if (size > sizeof(payload))
		return -EMSGSIZE;
	ret = xrl_enter_netns(f->netns);
	if (ret)
		return ret;
	fam = make_addr(f->dst, f->port, &dst, &dlen);
	if (fam < 0 || make_addr(f->src, 0, &src, &slen) != fam)
		return -EINVAL;
	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&src, slen)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	t0 = mono();
	for (now = t0; now - t0 < f->seconds; now = mono()) {
		__u64 due = f->pps > 0 ? (__u64)((now - t0) * f->pps) + 1 : f->sent + 64;

		if (f->count && due > f->count)
			due = f->count;
		while (f->sent < due) {
			if (sendto(fd, payload, size, 0, (struct sockaddr *)&dst, dlen) < 0) {
				if (errno == ENOBUFS || errno == EAGAIN)
					break;
				ret = -errno;
				close(fd);
				return ret;
			}
			f->sent++;
		}
		if (f->count && f->sent >= f->count)
			break;
		if (f->pps > 0)
			usleep(500);
	}
	close(fd);
	return 0;
}

int xrl_udp_recv(const char *netns, const char *addr, __u16 port, double seconds, int announce, FILE *times,
		 __u64 *count)
{
	struct sockaddr_storage sa;
	struct timeval tv = { 0, 100000 };
	socklen_t len;
	char buf[2048];
	double t0;
	int fd, fam, ret, rcvbuf = 8 << 20;

	*count = 0;
	ret = xrl_enter_netns(netns);
	if (ret)
		return ret;
	fam = make_addr(addr, port, &sa, &len);
	if (fam < 0)
		return -EINVAL;
	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, len)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (announce) {
		printf("ready\n");
		fflush(stdout);
	}
	for (t0 = mono(); mono() - t0 < seconds;)
		if (recv(fd, buf, sizeof(buf), 0) >= 0) {
			(*count)++;
			if (times)
				fprintf(times, "%.0f\n", (mono() - t0) * 1e6);
		}
	close(fd);
	return 0;
}
