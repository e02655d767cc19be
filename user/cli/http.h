/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HTTP server of one page (metrics --listen): many clients at once, none of
 * which can hold up another; SIGTERM and SIGINT end it cleanly.
 */
#ifndef XRL_CLI_HTTP_H
#define XRL_CLI_HTTP_H

#include <stddef.h>

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
