// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The request head's parser (http_head.h). */
#include <string.h>
#include "http_head.h"

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
static unsigned int line_end(struct http_head *c)
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

unsigned int http_head_feed(struct http_head *c, const unsigned char *b, size_t n)
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
