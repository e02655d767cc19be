/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HTTP server of one page (metrics --listen): many clients at once, none of
 * which can hold up another; SIGTERM and SIGINT end it cleanly.
 */
#ifndef XRL_CLI_HTTP_H
#define XRL_CLI_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * Parses ADDR:PORT (192.0.2.1:9100, [2001:db8::1]:9100, :9100 for every
 * address; port 0 picks a free one). -EINVAL and a sentence in err otherwise.
 */
int http_addr_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t len);

/* A listening TCP socket on ss; -errno and a sentence in err. */
int http_listen(const struct sockaddr_storage *ss, socklen_t sslen, char *err, size_t len);

/*
 * The listening socket systemd passes by socket activation (LISTEN_PID, LISTEN_FDS:
 * the first, fd 3), made non-blocking. -errno and a sentence in err when
 * there is none, or it is not a listening TCP socket.
 */
int http_systemd_socket(char *err, size_t len);

/* The address a socket listens on, as ADDR:PORT (IPv6 in brackets). */
void http_local_name(int fd, char *buf, size_t len);

/*
 * Renders the page: *body is malloc'd (the caller frees it), *type its
 * Content-Type. 0, or -errno and a sentence in err (the reply is then a 500).
 */
typedef int (*http_page_fn)(char **body, size_t *blen, const char **type, char *err, size_t len);

/*
 * Answers GET (and HEAD) of path on the listening socket fd with page until
 * SIGTERM or SIGINT, then closes fd: 0, or -errno when the server cannot start.
 * Another path is a 404, another method a 405, a request line that is not
 * HTTP a 400 at once; one request a connection. A request head has 3 s from
 * the accept, whatever it trickles; 512 connections at most, 64 from one IPv4
 * address or IPv6 /64, a newcomer past a limit taking the place of the oldest
 * that has not sent its whole request; a request head past 16 KiB is a 431.
 * page is called from the server's one thread.
 */
int http_serve(int fd, const char *path, http_page_fn page);

#endif /* XRL_CLI_HTTP_H */
