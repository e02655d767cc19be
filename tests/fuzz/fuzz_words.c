// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the words of a command line, as 'rule add' and 'rule del' take
 * them, and each value parser on its own. Every refusal carries a message.
 */
#include <stdlib.h>
#include <string.h>
#include "rules/rule.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char buf[1024], *words[40], err[XRL_ERRLEN], *p;
	struct xrl_spec s;
	__u8 fam, addr[16], plen;
	__u32 unit;
	__u64 v;
	int n = 0;

	if (size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* Words are separated by NUL or newline, as argv would be. */
	for (p = buf; p < buf + size && n < 40;) {
		words[n++] = p;
		p += strcspn(p, "\n");
		if (p < buf + size)
			*p++ = '\0';
	}
	err[0] = '\0';
	if (xrl_spec_parse(n, words, &s, err, sizeof(err)) && !err[0])
		abort();
	err[0] = '\0';
	if (xrl_spec_parse_match(n, words, &s, err, sizeof(err)) && !err[0])
		abort();
	if (n) {
		err[0] = '\0';
		if (xrl_parse_rate(words[0], &v, &unit, err, sizeof(err)) ? !err[0] : (v == 0 || !unit))
			abort();
		err[0] = '\0';
		if (xrl_parse_duration(words[0], &v, err, sizeof(err)) ? !err[0] : v < 1000000)
			abort();
		err[0] = '\0';
		if (xrl_parse_prefix(words[0], &fam, addr, &plen, err, sizeof(err)) ?
			    !err[0] :
			    plen > (fam == XRL_FAMILY_V4 ? 32 : 128))
			abort();
	}
	return 0;
}
