// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* vasprintf */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "err.h"
#include "http.h"

#define HTTP_TIMEOUT_S 5 /* a client that sends or reads nothing for this long is dropped */
/*
 * Connections at once (with the server's own few fds, under the usual soft
 * limit of 1024), and from one address: one flooding address leaves room for
 * scrapers elsewhere. Not lower: on the loopback (the socket unit's default)
 * every client, scrapers included, shares one address.
 */
#define HTTP_CONN_MAX 512
#define HTTP_CONN_PER_IP 64
#define HTTP_MEM_MAX 16384 /* a request's head past this is refused (431): a scrape's is a few hundred bytes */

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

struct http_site {
	const char *path;
	http_page_fn page;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type, char *body, size_t blen,
			     int allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(blen, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO; /* out of memory: MHD closes the connection */
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", text, (size_t)n, status == MHD_HTTP_METHOD_NOT_ALLOWED);
}

/*
 * Called once a request's head is in (MHD answers what is malformed or too
 * large itself). The answer is queued on the first call: a body, if any, is
 * never read, and MHD closes the connection after it.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **state)
{
	const struct http_site *site = cls;
	const char *type = "text/plain; charset=utf-8";
	char err[XRL_ERRLEN], *body = NULL;
	size_t blen = 0;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	/* url has no query string: Prometheus may add parameters, there are none to honour. */
	if (strcmp(url, site->path))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at %s\n", site->path);
	if (site->page(&body, &blen, &type, err, sizeof(err)))
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s\n", err);
	return reply(c, MHD_HTTP_OK, type, body, blen, 0);
}

int http_serve(int fd, const char *path, http_page_fn page)
{
	struct http_site site = { .path = path, .page = page };
	struct MHD_Daemon *d;
	sigset_t stop, orig;
	int sig;

	/*
	 * Blocked before MHD starts its thread, which inherits the mask: the signals
	 * come to sigwait here, never to the server's thread.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, &orig);
	errno = 0;
	/*
	 * One thread polls every connection (epoll) and never waits on one client:
	 * the page is rendered in a few milliseconds and sent as the client reads it.
	 */
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, &site, MHD_OPTION_LISTEN_SOCKET,
			     (MHD_socket)fd, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_CONN_MAX,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_CONN_PER_IP,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEM_MAX, MHD_OPTION_STRICT_FOR_CLIENT, 1,
			     MHD_OPTION_END);
	if (!d) {
		int ret = errno ? -errno : -EIO;

		pthread_sigmask(SIG_SETMASK, &orig, NULL);
		close(fd);
		return ret;
	}
	while (sigwait(&stop, &sig))
		;
	MHD_stop_daemon(d); /* closes fd */
	pthread_sigmask(SIG_SETMASK, &orig, NULL);
	return 0;
}
