// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Lines of a rules or set file, read within their bounds (internal.h). */
#include <errno.h>
#include <stdio.h>
#include "rules/internal.h"

int xrl_read_line(FILE *f, char *buf, size_t *total, int *col, unsigned long long max)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (++*total > max)
			return -EFBIG;
		if (c == '\0') {
			*col = (int)n + 1;
			return -EILSEQ;
		}
		buf[n++] = (char)c;
		if (c == '\n')
			break;
		if (n > XRL_MAX_LINE)
			return -E2BIG;
	}
	buf[n] = '\0';
	return (int)n;
}
