// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* vasprintf, accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include "base/err.h"
#include "http.h"

/*
 * Connections at once (with the server's own few fds, under the usual soft
 * limit of 1024), and from one source: an IPv4 address, or an IPv6 /64 (which
 * one host holds whole). Not lower: on the loopback (the socket unit's
 * default) every client, scrapers included, shares one address.
 */
#define HTTP_CONN_MAX 512
#define HTTP_SRC_MAX 64
#define HTTP_HEAD_MAX 16384 /* a request's head past this is refused (431): a scrape's is a few hundred bytes */
/*
 * Deadlines from the accept, which no byte renews: the whole request head
 * (a scraper sends it with its handshake's last ACK; the slack is for
 * retransmissions), and the whole exchange (Prometheus's default
 * scrape_timeout: it has given up by then).
 */
#define HTTP_HEAD_MS 3000
#define HTTP_CONN_MS 10000
/* After the answer and our FIN: what the client still sends is read and dropped, so close sends no RST over the answer. */
#define HTTP_LINGER_MS 1000
#define HTTP_PATH_MAX 256

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

/*
 * The server: one thread, one epoll set, every socket non-blocking, one
 * request a connection. Not libmicrohttpd (0.5.0's server): its
 * timeout starts again at every byte, it counts connections by whole address,
 * it stops accepting when full rather than make room, and it reads a request
 * line to its end before judging it.
 */
enum http_state {
	HTTP_FREE,
	HTTP_READ,   /* the request head is coming */
	HTTP_WRITE,  /* the answer is going */
	HTTP_LINGER, /* answered and our FIN sent: what the client still sends is read and dropped */
};

enum http_parse {
	P_LEAD, /* empty lines before the request line (RFC 9112, 2.2) */
	P_METHOD,
	P_TARGET,
	P_VERSION,
	P_LINE_LF,
	P_FIELD,
	P_FIELD_LF,
};

#define HTTP_HEAD_DONE 1

struct http_conn {
	int fd;
	enum http_state state;
	uint32_t gen; /* in its epoll events: a slot reused within one batch is not taken for the one before */
	uint32_t events;
	int src;		/* in http_server.src */
	uint64_t seq;		/* accept order */
	int64_t born, deadline; /* ms, CLOCK_MONOTONIC */
	enum http_parse ps;
	unsigned int head, line, mlen, plen;
	bool method_long, path_long, query, head_only;
	char method[8], version[8], path[HTTP_PATH_MAX];
	char *out;
	size_t out_len, out_off;
};

/* A source: an IPv4 address, or an IPv6 /64, and how many connections it holds (0: a free entry). */
struct http_src {
	unsigned char key[16];
	unsigned int n;
};

struct http_server {
	int lfd, ep, sfd;
	const char *path;
	http_page_fn page;
	uint64_t seq;
	unsigned int nconn;
	int64_t paused; /* accepting stopped until then (out of fds); 0: it is not */
	struct http_conn conn[HTTP_CONN_MAX];
	struct http_src src[HTTP_CONN_MAX]; /* as many as connections: each holds one */
};

#define ID_LISTEN UINT64_MAX
#define ID_SIGNAL (UINT64_MAX - 1)
#define TEXT_TYPE "text/plain; charset=utf-8"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A socket closed with a RST: no TIME_WAIT left behind for a client that is dropped. */
static void close_abort(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

/* Reads and drops what is there: false once the client has closed or failed. */
static bool drain(int fd)
{
	char buf[4096];
	size_t got = 0;
	ssize_t r;

	while (got < 65536) {
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
	}
	return true;
}

/*
 * abort: a client dropped before its answer is all out (RST). Else it has
 * its answer: what it sent more is read first, since close with unread data
 * would reset the connection and could lose the answer's tail.
 */
static void conn_close(struct http_server *s, struct http_conn *c, bool abort)
{
	uint32_t gen = c->gen + 1;

	if (abort) {
		close_abort(c->fd);
	} else {
		drain(c->fd);
		close(c->fd);
	}
	free(c->out);
	s->src[c->src].n--;
	s->nconn--;
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->gen = gen;
}

static int conn_events(struct http_server *s, struct http_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)c->gen << 32 | (uint64_t)(c - s->conn) };

	if (c->events == events)
		return 0;
	c->events = events;
	return epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Sends what the socket takes; once all is out, our FIN, and the client's tail is awaited. */
static void conn_write(struct http_server *s, struct http_conn *c)
{
	ssize_t w;

	while (c->out_off < c->out_len) {
		w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w >= 0) {
			c->out_off += (size_t)w;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (conn_events(s, c, EPOLLOUT))
				conn_close(s, c, true);
			return;
		} else if (errno != EINTR) {
			conn_close(s, c, true);
			return;
		}
	}
	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = HTTP_LINGER;
	c->deadline = now_ms() + HTTP_LINGER_MS;
	if (conn_events(s, c, EPOLLIN))
		conn_close(s, c, false);
}

static const char *reason(unsigned int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 431:
		return "Request Header Fields Too Large";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Internal Server Error";
	}
}

/* RFC 9110's IMF-fixdate, in English whatever the locale. */
static void http_date(char *buf, size_t len)
{
	static const char day[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%s, %02d %s %04d %02d:%02d:%02d GMT", day[tm.tm_wday % 7], tm.tm_mday, mon[tm.tm_mon % 12],
		 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/*
 * Queues the answer (body is malloc'd and taken) and starts sending it. Every
 * answer closes its connection: a request pipelined behind the first is read
 * and dropped, never answered.
 */
static void answer(struct http_server *s, struct http_conn *c, unsigned int status, const char *type, char *body,
		   size_t blen)
{
	char date[96], *out = NULL;
	size_t send_body = c->head_only ? 0 : blen;
	int n;

	http_date(date, sizeof(date));
	n = asprintf(
		&out,
		"HTTP/1.1 %u %s\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
		status, reason(status), date, type, blen, status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (n < 0 || !(c->out = realloc(out, (size_t)n + send_body))) {
		free(n < 0 ? NULL : out);
		free(body);
		conn_close(s, c, true);
		return;
	}
	if (send_body)
		memcpy(c->out + n, body, send_body);
	free(body);
	c->out_len = (size_t)n + send_body;
	c->state = HTTP_WRITE;
	c->deadline = c->born + HTTP_CONN_MS;
	conn_write(s, c);
}

static void answer_text(struct http_server *s, struct http_conn *c, unsigned int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void answer_text(struct http_server *s, struct http_conn *c, unsigned int status, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		conn_close(s, c, true);
		return;
	}
	answer(s, c, status, TEXT_TYPE, text, (size_t)n);
}

/* The answer to a whole head (HTTP_HEAD_DONE), or to one refused as soon as it went wrong. */
static void respond(struct http_server *s, struct http_conn *c, unsigned int st)
{
	const char *type = TEXT_TYPE;
	char err[XRL_ERRLEN], *body = NULL;
	size_t blen = 0;

	switch (st) {
	case 400:
		answer_text(s, c, st, "not an HTTP request: expected GET %s HTTP/1.1\n", s->path);
		return;
	case 431:
		answer_text(s, c, st, "the request's head is past %u bytes\n", HTTP_HEAD_MAX);
		return;
	case 505:
		answer_text(s, c, st, "only HTTP/1.0 and HTTP/1.1\n");
		return;
	}
	c->head_only = !c->method_long && !strcmp(c->method, "HEAD");
	if (c->method_long || (strcmp(c->method, "GET") && !c->head_only)) {
		answer_text(s, c, 405, "only GET and HEAD\n");
		return;
	}
	/* The query string is not in path: Prometheus may add parameters, there are none to honour. */
	if (c->path_long || strcmp(c->path, s->path)) {
		answer_text(s, c, 404, "not found: the metrics are at %s\n", s->path);
		return;
	}
	if (s->page(&body, &blen, &type, err, sizeof(err))) {
		answer_text(s, c, 500, "%s\n", err);
		return;
	}
	answer(s, c, 200, type, body, blen);
}

static bool tchar(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* HTTP/D.D, the byte at i. */
static bool version_char(unsigned int i, unsigned char ch)
{
	if (i < 5)
		return ch == (unsigned char)"HTTP/"[i];
	return i == 6 ? ch == '.' : ch >= '0' && ch <= '9';
}

/* A line of the head has ended: HTTP_HEAD_DONE at the empty one. */
static unsigned int line_end(struct http_conn *c)
{
	if (c->ps == P_VERSION || c->ps == P_LINE_LF) {
		c->ps = P_FIELD;
		c->line = 0;
		return c->version[5] == '1' ? 0 : 505;
	}
	if (!c->line)
		return HTTP_HEAD_DONE;
	c->ps = P_FIELD;
	c->line = 0;
	return 0;
}

/*
 * Feeds the request head's bytes to its parser, which judges each as it
 * comes: 0 while the head goes on, HTTP_HEAD_DONE at its end (what follows
 * it is never read), else the status to refuse it with now. A request line
 * that is not METHOD SP TARGET SP HTTP/D.D (binary, a TLS hello, a space
 * too many) is refused at its first wrong byte.
 */
static unsigned int head_feed(struct http_conn *c, const unsigned char *b, size_t n)
{
	unsigned int ret;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = b[i];

		if (++c->head > HTTP_HEAD_MAX)
			return 431;
		switch (c->ps) {
		case P_LEAD:
			if (ch == '\r' || ch == '\n')
				break;
			c->ps = P_METHOD;
			/* fall through */
		case P_METHOD:
			if (ch == ' ' && c->mlen) {
				c->ps = P_TARGET;
				break;
			}
			if (!tchar(ch))
				return 400;
			if (c->mlen < sizeof(c->method) - 1)
				c->method[c->mlen++] = (char)ch;
			else
				c->method_long = true;
			break;
		case P_TARGET:
			if (ch == ' ' && c->line) {
				c->ps = P_VERSION;
				c->line = 0;
				break;
			}
			if (ch <= ' ' || ch >= 0x7f)
				return 400;
			c->line++;
			if (ch == '?' || ch == '#')
				c->query = true;
			else if (c->query)
				;
			else if (c->plen < sizeof(c->path) - 1)
				c->path[c->plen++] = (char)ch;
			else
				c->path_long = true;
			break;
		case P_VERSION:
			if (c->line < sizeof(c->version)) {
				if (!version_char(c->line, ch))
					return 400;
				c->version[c->line++] = (char)ch;
				break;
			}
			if (ch == '\r') {
				c->ps = P_LINE_LF;
				break;
			}
			if (ch != '\n')
				return 400;
			if ((ret = line_end(c)))
				return ret;
			break;
		case P_LINE_LF:
		case P_FIELD_LF:
			if (ch != '\n')
				return 400;
			if ((ret = line_end(c)))
				return ret;
			break;
		case P_FIELD:
			if (ch == '\r') {
				c->ps = P_FIELD_LF;
				break;
			}
			if (ch == '\n') {
				if ((ret = line_end(c)))
					return ret;
				break;
			}
			if ((ch < ' ' && ch != '\t') || ch == 0x7f)
				return 400;
			c->line++;
			break;
		}
	}
	return 0;
}

static void conn_read(struct http_server *s, struct http_conn *c)
{
	unsigned char buf[4096];
	unsigned int st;
	ssize_t r;

	for (;;) {
		r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0) {
			conn_close(s, c, true); /* gone before its request was whole */
			return;
		}
		st = head_feed(c, buf, (size_t)r);
		if (st) {
			respond(s, c, st);
			return;
		}
	}
}

/* An IPv4 address (as IPv4-mapped IPv6, which a dual-stack socket reports it as), or an IPv6 /64. */
static void src_key(const struct sockaddr_storage *ss, unsigned char key[16])
{
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;

	memset(key, 0, 16);
	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(a6)) {
		memcpy(key, a6->s6_addr, 16);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(key, a6->s6_addr, 8);
	} else if (ss->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} /* else a unix socket from systemd: its clients are one source */
}

/*
 * The connection a newcomer from source si (-1: one that holds none) takes the
 * place of, at a limit: one answered already, else the oldest that has not
 * sent its whole request, else the oldest being answered; of its own source
 * when that holds HTTP_SRC_MAX, else of the source holding the most, if it
 * holds more than the newcomer's. -1: none, and the newcomer is refused.
 * So a scraper is let in by every flood that comes from more connections
 * a source than its own, and a source at its limit only ever replaces its own.
 */
static int victim(const struct http_server *s, int si)
{
	unsigned int mine = si < 0 ? 0 : s->src[si].n, cls, n, bcls = 0, bn = 0;
	bool own = mine >= HTTP_SRC_MAX;
	int best = -1, i;

	for (i = 0; i < HTTP_CONN_MAX; i++) {
		const struct http_conn *c = &s->conn[i];

		if (c->state == HTTP_FREE || (own && c->src != si))
			continue;
		cls = c->state == HTTP_LINGER ? 3 : c->state == HTTP_READ ? 2 : 1;
		n = s->src[c->src].n;
		if (!own && cls < 3 && n <= mine)
			continue;
		if (cls == 3)
			n = 0; /* answered: the oldest goes, whoever it is */
		if (best < 0 || cls > bcls || (cls == bcls && (n > bn || (n == bn && c->seq < s->conn[best].seq)))) {
			best = i;
			bcls = cls;
			bn = n;
		}
	}
	return best;
}

static void admit(struct http_server *s, int fd, const struct sockaddr_storage *ss)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned char key[16];
	struct http_conn *c;
	int si = -1, i, v;

	src_key(ss, key);
	for (i = 0; i < HTTP_CONN_MAX && si < 0; i++)
		if (s->src[i].n && !memcmp(s->src[i].key, key, sizeof(key)))
			si = i;
	if (s->nconn >= HTTP_CONN_MAX || (si >= 0 && s->src[si].n >= HTTP_SRC_MAX)) {
		v = victim(s, si);
		if (v < 0) {
			close_abort(fd);
			return;
		}
		conn_close(s, &s->conn[v], s->conn[v].state != HTTP_LINGER);
		if (si >= 0 && !s->src[si].n)
			si = -1;
	}
	for (i = 0; si < 0 && i < HTTP_CONN_MAX; i++)
		if (!s->src[i].n) {
			si = i;
			memcpy(s->src[i].key, key, sizeof(key));
		}
	for (c = s->conn; c->fd >= 0; c++)
		; /* a slot is free: fewer than HTTP_CONN_MAX are open */
	ev.data.u64 = (uint64_t)c->gen << 32 | (uint64_t)(c - s->conn);
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
		close_abort(fd);
		return;
	}
	c->fd = fd;
	c->state = HTTP_READ;
	c->events = EPOLLIN;
	c->src = si;
	c->seq = s->seq++;
	c->born = now_ms();
	c->deadline = c->born + HTTP_HEAD_MS;
	s->src[si].n++;
	s->nconn++;
	/* A scraper's request is often in already: served before the next newcomer can take its place. */
	conn_read(s, c);
}

static void on_listen(struct http_server *s)
{
	struct epoll_event ev = { .events = 0, .data.u64 = ID_LISTEN };
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, i;

	/* A bounded batch: the connections already open get their turn between batches. */
	for (i = 0; i < 64; i++) {
		sl = sizeof(ss);
		fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			admit(s, fd, &ss);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* Out of fds or memory: the socket would wake us at once again; a pause, then more. */
			epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
			s->paused = now_ms() + 100;
		}
		return;
	}
}

/* Drops what is past its deadline; the ms until the next one (-1: none). */
static int expire(struct http_server *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ID_LISTEN };
	int64_t now = now_ms(), next = INT64_MAX;
	int i;

	if (s->paused && s->paused <= now) {
		s->paused = 0;
		epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
	}
	if (s->paused)
		next = s->paused;
	for (i = 0; i < HTTP_CONN_MAX; i++) {
		struct http_conn *c = &s->conn[i];

		if (c->state == HTTP_FREE)
			continue;
		if (c->deadline <= now)
			conn_close(s, c, c->state != HTTP_LINGER);
		else if (c->deadline < next)
			next = c->deadline;
	}
	return next == INT64_MAX ? -1 : (int)(next - now);
}

int http_serve(int fd, const char *path, http_page_fn page)
{
	struct epoll_event evs[64], ev = { .events = EPOLLIN };
	struct signalfd_siginfo si;
	struct http_server *s;
	sigset_t stop, orig;
	bool done = false;
	int i, n, ret = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	sigprocmask(SIG_BLOCK, &stop, &orig);
	s->lfd = fd;
	s->path = path;
	s->page = page;
	for (i = 0; i < HTTP_CONN_MAX; i++)
		s->conn[i].fd = -1;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->sfd = signalfd(-1, &stop, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->ep < 0 || s->sfd < 0)
		ret = -errno;
	ev.data.u64 = ID_LISTEN;
	if (!ret && epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev))
		ret = -errno;
	ev.data.u64 = ID_SIGNAL;
	if (!ret && epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sfd, &ev))
		ret = -errno;
	while (!ret && !done) {
		n = epoll_wait(s->ep, evs, sizeof(evs) / sizeof(evs[0]), expire(s));
		if (n < 0 && errno != EINTR)
			ret = -errno;
		for (i = 0; i < n; i++) {
			uint64_t id = evs[i].data.u64;
			struct http_conn *c = &s->conn[(uint32_t)id % HTTP_CONN_MAX];

			/* The signal is taken: never delivered once unblocked. */
			if (id == ID_SIGNAL)
				done = read(s->sfd, &si, sizeof(si)) == sizeof(si);
			else if (id == ID_LISTEN)
				on_listen(s);
			else if (c->state == HTTP_FREE || c->gen != id >> 32)
				continue; /* closed earlier in this batch */
			else if (c->state == HTTP_READ)
				conn_read(s, c);
			else if (c->state == HTTP_WRITE)
				conn_write(s, c);
			else if (!drain(c->fd))
				conn_close(s, c, false);
		}
	}
	for (i = 0; i < HTTP_CONN_MAX; i++)
		if (s->conn[i].state != HTTP_FREE)
			conn_close(s, &s->conn[i], s->conn[i].state != HTTP_LINGER);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->ep >= 0)
		close(s->ep);
	close(fd);
	free(s);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return ret;
}
