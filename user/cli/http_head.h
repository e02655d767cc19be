/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The metrics server's request head, judged byte by byte as it comes
 * (tests/unit/test_http.c): the request line, then fields up to the empty line.
 */
#ifndef XRL_CLI_HTTP_HEAD_H
#define XRL_CLI_HTTP_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_HEAD_MAX 16384 /* a request's head past this is refused (431): a scrape's is a few hundred bytes */
#define HTTP_PATH_MAX 256

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

struct http_head {
	enum http_parse ps;
	unsigned int head, line, mlen, plen;
	bool method_long, path_long, query;
	char method[8], version[8], path[HTTP_PATH_MAX];
};

/*
 * Feeds the request head's bytes to its parser, which judges each as it
 * comes: 0 while the head goes on, HTTP_HEAD_DONE at its end (what follows
 * it is never read), else the status to refuse it with now. A request line
 * that is not METHOD SP TARGET SP HTTP/D.D (binary, a TLS hello, a space
 * too many) is refused at its first wrong byte. h starts zeroed.
 */
unsigned int http_head_feed(struct http_head *h, const unsigned char *b, size_t n);

#endif /* XRL_CLI_HTTP_HEAD_H */
