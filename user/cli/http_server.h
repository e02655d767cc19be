/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The metrics server's state, which its loop (http.c) and its limits (http_limits.c) share. */
#ifndef XRL_CLI_HTTP_SERVER_H
#define XRL_CLI_HTTP_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include "http_head.h"

/*
 * Connections at once (with the server's own few fds, under the usual soft
 * limit of 1024), and from one source: an IPv4 address, or an IPv6 /64 (which
 * one host holds whole). Not lower: on the loopback (the socket unit's
 * default) every client, scrapers included, shares one address.
 */
#define HTTP_CONN_MAX 512
#define HTTP_SRC_MAX 64
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

struct http_conn {
	int fd;
	enum http_state state;
	uint32_t gen; /* in its epoll events: a slot reused within one batch is not taken for the one before */
	uint32_t events;
	int src;		/* in http_server.src */
	uint64_t seq;		/* accept order */
	int64_t born, deadline; /* ms, CLOCK_MONOTONIC */
	struct http_head req;
	bool head_only;
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
	int (*page)(char **body, size_t *blen, const char **type, char *err, size_t len); /* an http_page_fn */
	uint64_t seq;
	unsigned int nconn;
	int64_t paused; /* accepting stopped until then (out of fds); 0: it is not */
	struct http_conn conn[HTTP_CONN_MAX];
	struct http_src src[HTTP_CONN_MAX]; /* as many as connections: each holds one */
};

/* A connection's source (http_src.key) from its address. */
void http_src_key(const struct sockaddr_storage *ss, unsigned char key[16]);
/* The connection a newcomer from source si takes the place of at a limit, or -1: see http_limits.c. */
int http_victim(const struct http_server *s, int si);

#endif /* XRL_CLI_HTTP_SERVER_H */
