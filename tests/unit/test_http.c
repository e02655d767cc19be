// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The metrics server's own parts (user/cli/http.c, included whole for its
 * static functions, http_head.c and http_limits.c): the request head judged byte by byte,
 * what one source is, and whose place a newcomer takes at a limit.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include "../../user/cli/http.c"
#include "../../user/cli/http_head.c"
#include "../../user/cli/http_limits.c"

static unsigned int feed(struct http_head *c, const char *s)
{
	memset(c, 0, sizeof(*c));
	return http_head_feed(c, (const unsigned char *)s, strlen(s));
}

static void test_head_whole(void **state)
{
	const char *req = "GET /metrics?name[]=x HTTP/1.1\r\nHost: a\r\nUser-Agent: Prometheus/2\r\n\r\nGET /";
	struct http_head c;
	unsigned int st = 0;
	size_t i;

	(void)state;
	assert_int_equal(feed(&c, req), HTTP_HEAD_DONE);
	assert_string_equal(c.method, "GET");
	assert_string_equal(c.path, "/metrics");
	assert_true(c.query);
	/* Trickled, a byte at a time: the same, and what follows the head is never read. */
	memset(&c, 0, sizeof(c));
	for (i = 0; !st; i++)
		st = http_head_feed(&c, (const unsigned char *)req + i, 1);
	assert_int_equal(st, HTTP_HEAD_DONE);
	assert_int_equal(i, strlen(req) - strlen("GET /"));
	/* Empty lines before it, bare LFs. */
	assert_int_equal(feed(&c, "\r\n\nHEAD /metrics HTTP/1.0\nX: y\n\n"), HTTP_HEAD_DONE);
	assert_string_equal(c.method, "HEAD");
	assert_int_equal(feed(&c, "GET /metrics HTTP/1.1\r\nHost: a\r\n"), 0);
	assert_int_equal(feed(&c, "PROPFIND-SOMETHING-LONG / HTTP/1.1\r\n\r\n"), HTTP_HEAD_DONE);
	assert_true(c.method_long);
}

static void test_head_refused_at_once(void **state)
{
	static const struct {
		const char *in;
		unsigned int st;
	} cases[] = {
		{ "\x16\x03\x01\x02\x00", 400 }, /* a TLS hello */
		{ "\x80\x81", 400 },
		{ "SSH-2.0-OpenSSH_9.2\r\n", 400 },
		{ " GET / HTTP/1.1", 400 },
		{ "GET  /metrics HTTP/1.1", 400 },
		{ "GET /met\x01rics HTTP/1.1", 400 },
		{ "GET /metrics http/1.1", 400 },
		{ "GET /metrics HTTP/1.10", 400 },
		{ "GET /metrics HTTP/1.1 \r\n", 400 },
		{ "GET /metrics HTTP/1.1\rX", 400 },
		{ "GET /metrics\r\n", 400 }, /* HTTP/0.9 */
		{ "GET /metrics HTTP/2.0\r\n", 505 },
	};
	static const char nul[] = "GET /metrics HTTP/1.1\r\nHost: a\0";
	struct http_head c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (feed(&c, cases[i].in) != cases[i].st)
			fail_msg("'%s': not refused with %u", cases[i].in, cases[i].st);
	memset(&c, 0, sizeof(c));
	assert_int_equal(http_head_feed(&c, (const unsigned char *)nul, sizeof(nul) - 1), 400);
	/* At the first wrong byte: nothing after it is awaited. */
	assert_int_equal(feed(&c, "\x16"), 400);
}

static void test_head_too_large(void **state)
{
	char *req = malloc(HTTP_HEAD_MAX + 64);
	struct http_head c;
	int n;

	(void)state;
	assert_non_null(req);
	n = sprintf(req, "GET /metrics HTTP/1.1\r\nX: ");
	memset(req + n, 'a', HTTP_HEAD_MAX);
	req[n + HTTP_HEAD_MAX] = '\0';
	assert_int_equal(feed(&c, req), 431);
	free(req);
}

static void key_of(const char *addr, unsigned char key[16])
{
	struct sockaddr_storage ss = {};

	if (strchr(addr, ':')) {
		ss.ss_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
	} else {
		ss.ss_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr), 1);
	}
	http_src_key(&ss, key);
}

static bool same_source(const char *a, const char *b)
{
	unsigned char ka[16], kb[16];

	key_of(a, ka);
	key_of(b, kb);
	return !memcmp(ka, kb, sizeof(ka));
}

static void test_sources(void **state)
{
	(void)state;
	assert_true(same_source("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe"));
	assert_false(same_source("2001:db8:1:2::1", "2001:db8:1:3::1"));
	assert_true(same_source("127.0.0.1", "::ffff:127.0.0.1")); /* on a dual-stack socket */
	assert_false(same_source("127.0.0.1", "127.0.0.2"));
	assert_false(same_source("0.0.0.0", "::"));
}

/* A server of n connections, the i-th from source i % nsrc, every fourth being answered (WRITE), the rest incomplete. */
static struct http_server *server(int n, int nsrc)
{
	struct http_server *s = calloc(1, sizeof(*s));
	int i;

	assert_non_null(s);
	for (i = 0; i < HTTP_CONN_MAX; i++)
		s->conn[i].fd = -1;
	for (i = 0; i < n; i++) {
		s->conn[i].fd = 100 + i;
		s->conn[i].state = i % 4 == 1 ? HTTP_WRITE : HTTP_READ;
		s->conn[i].src = i % nsrc;
		s->conn[i].seq = (uint64_t)i;
		s->src[i % nsrc].n++;
		s->nconn++;
	}
	return s;
}

static void test_victim(void **state)
{
	struct http_server *s;
	int i;

	(void)state;
	/* Full, from 9 sources: 0 to 7 hold 57 each, 8 holds 56. */
	s = server(HTTP_CONN_MAX, 9);
	assert_int_equal(s->src[8].n, 56);
	/* A newcomer from a new source: the oldest incomplete of a source holding the most. */
	assert_int_equal(http_victim(s, -1), 0);
	/* From source 8: the others hold more. */
	assert_int_equal(http_victim(s, 8), 0);
	/* From source 0, which holds as many as any: none to take the place of... */
	assert_int_equal(http_victim(s, 0), -1);
	/* ...but an answered connection, whoever holds it. */
	s->conn[301].state = HTTP_LINGER;
	assert_int_equal(http_victim(s, 0), 301);
	/* Being answered: taken only when no source holding more has an incomplete one. */
	for (i = 0; i < HTTP_CONN_MAX; i++)
		if (s->conn[i].state == HTTP_READ)
			s->conn[i].state = HTTP_WRITE;
	s->conn[301].state = HTTP_WRITE;
	s->conn[500].state = HTTP_READ; /* source 5 */
	assert_int_equal(http_victim(s, 8), 500);
	s->conn[500].state = HTTP_WRITE;
	assert_int_equal(http_victim(s, 8), 0);
	free(s);

	/* A source at its limit replaces its own oldest incomplete, past older ones elsewhere. */
	s = server(2 * HTTP_SRC_MAX, 2);
	assert_int_equal(s->src[1].n, HTTP_SRC_MAX);
	assert_int_equal(http_victim(s, 1), 3);
	/* Past its incomplete ones, its oldest being answered. */
	for (i = 1; i < 2 * HTTP_SRC_MAX; i += 2)
		s->conn[i].state = HTTP_WRITE;
	assert_int_equal(http_victim(s, 1), 1);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_whole),     cmocka_unit_test(test_head_refused_at_once),
		cmocka_unit_test(test_head_too_large), cmocka_unit_test(test_sources),
		cmocka_unit_test(test_victim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
