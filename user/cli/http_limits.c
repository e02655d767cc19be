// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The metrics server's limits: what one source is, and whose place a newcomer takes (http_server.h). */
#include <string.h>
#include <netinet/in.h>
#include "http_server.h"

/* An IPv4 address (as IPv4-mapped IPv6, which a dual-stack socket reports it as), or an IPv6 /64. */
void http_src_key(const struct sockaddr_storage *ss, unsigned char key[16])
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
int http_victim(const struct http_server *s, int si)
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
