// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* ppoll, accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "err.h"
#include "http.h"

#define HTTP_REQ_MAX 8192 /* a scrape's request is a few hundred bytes */
#define HTTP_TIMEOUT_S 5  /* a client that sends or reads nothing for this long is dropped */

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
	if (bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, 16)) {
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

static volatile sig_atomic_t http_stop;

static void on_stop(int sig)
{
	(void)sig;
	http_stop = 1;
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return; /* the client went away or stalled: its loss */
		p += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, const char *status, const char *type, const char *body, size_t blen, int head)
{
	char hdr[256];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
			 status, type, blen, !strncmp(status, "405", 3) ? "Allow: GET, HEAD\r\n" : "");

	send_all(fd, hdr, (size_t)n);
	if (!head)
		send_all(fd, body, blen);
}

static void reply_text(int fd, const char *status, const char *text, int head)
{
	reply(fd, status, "text/plain; charset=utf-8", text, strlen(text), head);
}

/* Reads a request's head (up to its blank line) into buf; its length, or -1. */
static ssize_t read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n < cap - 1) {
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);

		if (r <= 0)
			return -1;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return (ssize_t)n;
	}
	return -1;
}

static void answer(int fd, const char *path, http_page_fn page)
{
	struct timeval tv = { .tv_sec = HTTP_TIMEOUT_S };
	char buf[HTTP_REQ_MAX], err[XRL_ERRLEN], *sp1, *sp2, *q;
	const char *type = "text/plain; charset=utf-8";
	char *body = NULL;
	size_t blen = 0;
	int head;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (read_head(fd, buf, sizeof(buf)) < 0) {
		reply_text(fd, "400 Bad Request", "incomplete or oversized request\n", 0);
		return;
	}
	sp1 = strchr(buf, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		reply_text(fd, "400 Bad Request", "not an HTTP/1 request\n", 0);
		return;
	}
	*sp1 = *sp2 = '\0';
	head = !strcmp(buf, "HEAD");
	if (!head && strcmp(buf, "GET")) {
		reply_text(fd, "405 Method Not Allowed", "only GET and HEAD\n", 0);
		return;
	}
	q = strchr(sp1 + 1, '?'); /* Prometheus may add parameters; there are none to honour */
	if (q)
		*q = '\0';
	if (strcmp(sp1 + 1, path)) {
		snprintf(err, sizeof(err), "not found: the metrics are at %s\n", path);
		reply_text(fd, "404 Not Found", err, head);
		return;
	}
	if (page(&body, &blen, &type, err, sizeof(err))) {
		strncat(err, "\n", sizeof(err) - strlen(err) - 1);
		reply_text(fd, "500 Internal Server Error", err, head);
		return;
	}
	reply(fd, "200 OK", type, body, blen, head);
	free(body);
}

int http_serve(int fd, const char *path, http_page_fn page)
{
	struct sigaction sa = { .sa_handler = on_stop }; /* no SA_RESTART: a signal ends ppoll */
	sigset_t block, orig;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	/* Blocked but while waiting, so a signal is never lost between the check and the wait. */
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!http_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int c;

		if (ppoll(&pfd, 1, NULL, &orig) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				usleep(100000); /* out of something for now: try again, do not spin */
				continue;
			}
			ret = -errno;
			break;
		}
		answer(c, path, page);
		shutdown(c, SHUT_WR);
		close(c);
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return ret;
}
