// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The metrics server's listening socket: parsed from --listen, made, or passed by systemd (http_socket.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/err.h"
#include "http_socket.h"

int http_addr_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char host[64], *end;
	const char *colon, *port;
	unsigned long p;
	size_t hl;
	int ret;

	colon = strrchr(arg, ':');
	if (!colon)
		goto bad;
	port = colon + 1;
	hl = (size_t)(colon - arg);
	if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
		arg++;
		hl -= 2;
		hints.ai_family = AF_INET6;
	} else if (memchr(arg, ':', hl)) {
		goto bad; /* an IPv6 address without its brackets: where the port starts is a guess */
	}
	if (hl >= sizeof(host) || !*port)
		goto bad;
	errno = 0;
	p = strtoul(port, &end, 10);
	if (*end || errno || p > 65535 || port[0] < '0' || port[0] > '9')
		goto bad;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	ret = getaddrinfo(hl ? host : NULL, port, &hints, &ai);
	if (ret || !ai)
		goto bad;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sslen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
bad:
	return xrl_fail(
		-EINVAL, err, len,
		"'%s' is not ADDR:PORT: expected an address and a port like 127.0.0.1:9617, [::1]:9617 or :9617 (every address)",
		arg);
}

void http_local_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		snprintf(buf, len, "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
		return;
	}
	inet_ntop(AF_INET, &((const struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	port = ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	snprintf(buf, len, "%s:%u", host, port);
}

int http_listen(const struct sockaddr_storage *ss, socklen_t sslen, char *err, size_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, ret;
	char host[INET6_ADDRSTRLEN + 8] = "";

	if (fd < 0)
		return xrl_fail(-errno, err, len, "cannot make a TCP socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A full backlog drops SYNs, which clients retry a second later: a scrape so delayed. */
	if (bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, SOMAXCONN)) {
		ret = -errno;
		getnameinfo((const struct sockaddr *)ss, sslen, host, sizeof(host), NULL, 0, NI_NUMERICHOST);
		close(fd);
		if (ret == -EADDRINUSE)
			return xrl_fail(ret, err, len, "port %u of %s is in use: pick another --listen ADDR:PORT",
					ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port :
									  ((const struct sockaddr_in *)ss)->sin_port),
					host);
		if (ret == -EADDRNOTAVAIL)
			return xrl_fail(ret, err, len,
					"%s is not an address of this machine: give one of its addresses to --listen",
					host);
		return xrl_fail(ret, err, len, "cannot listen on %s: %s", host, strerror(-ret));
	}
	return fd;
}

#define SD_LISTEN_FDS_START 3

int http_systemd_socket(char *err, size_t len)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = SD_LISTEN_FDS_START, listening = 0, type = 0;
	socklen_t sl = sizeof(listening);

	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid() || strtol(fds, NULL, 10) < 1)
		return xrl_fail(
			-ENOENT, err, len,
			"no socket from systemd (LISTEN_PID and LISTEN_FDS do not name this process): run it from a .socket unit, or give --listen ADDR:PORT");
	/* As sd_listen_fds does: the sockets are this process's, not its children's. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &sl) || !listening ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) || type != SOCK_STREAM)
		return xrl_fail(
			-ENOTSOCK, err, len,
			"the socket systemd passed is not a listening TCP socket: give the .socket unit ListenStream= (and Accept=no)");
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		return xrl_fail(-errno, err, len, "cannot set up the socket systemd passed: %s", strerror(errno));
	return fd;
}
