// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The metrics server's loop: its connections, read, answered and closed (http.h). */
#define _GNU_SOURCE /* vasprintf, accept4 */
#include <errno.h>
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
#include "http_server.h"

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
	c->head_only = !c->req.method_long && !strcmp(c->req.method, "HEAD");
	if (c->req.method_long || (strcmp(c->req.method, "GET") && !c->head_only)) {
		answer_text(s, c, 405, "only GET and HEAD\n");
		return;
	}
	/* The query string is not in path: Prometheus may add parameters, there are none to honour. */
	if (c->req.path_long || strcmp(c->req.path, s->path)) {
		answer_text(s, c, 404, "not found: the metrics are at %s\n", s->path);
		return;
	}
	if (s->page(&body, &blen, &type, err, sizeof(err))) {
		answer_text(s, c, 500, "%s\n", err);
		return;
	}
	answer(s, c, 200, type, body, blen);
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
		st = http_head_feed(&c->req, buf, (size_t)r);
		if (st) {
			respond(s, c, st);
			return;
		}
	}
}

static void admit(struct http_server *s, int fd, const struct sockaddr_storage *ss)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned char key[16];
	struct http_conn *c;
	int si = -1, i, v;

	http_src_key(ss, key);
	for (i = 0; i < HTTP_CONN_MAX && si < 0; i++)
		if (s->src[i].n && !memcmp(s->src[i].key, key, sizeof(key)))
			si = i;
	if (s->nconn >= HTTP_CONN_MAX || (si >= 0 && s->src[si].n >= HTTP_SRC_MAX)) {
		v = http_victim(s, si);
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
