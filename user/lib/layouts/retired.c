// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "layouts/retired.h"
#include "layouts/layout8.h"
#include "layouts/layout9.h"

/* Every retired layout taken over, oldest first: a layout retires with its line here and its file. */
static const struct xrl_retired *const retired[] = { &xrl_layout8, &xrl_layout9_latches8, &xrl_layout9 };

#define NRETIRED (sizeof(retired) / sizeof(retired[0]))

const struct xrl_retired *xrl_retired_of(__u32 layout, __u8 latch_slots)
{
	size_t i;

	for (i = 0; i < NRETIRED; i++)
		if (retired[i]->layout == layout && retired[i]->latch_slots == latch_slots)
			return retired[i];
	return NULL;
}

__u32 xrl_retired_oldest(void)
{
	__u32 oldest = XRL_LAYOUT_VERSION;
	size_t i;

	for (i = 0; i < NRETIRED; i++)
		if (retired[i]->layout < oldest)
			oldest = retired[i]->layout;
	return oldest;
}

bool xrl_retired_pin(const char *name)
{
	size_t i;

	for (i = 0; i < NRETIRED; i++)
		for (const char *const *p = retired[i]->gone; p && *p; p++)
			if (!strcmp(name, *p))
				return true;
	return false;
}

void xrl_retired_pins_remove(const char *dir)
{
	char path[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < NRETIRED; i++)
		for (const char *const *p = retired[i]->gone; p && *p; p++) {
			snprintf(path, sizeof(path), "%s/%s", dir, *p);
			unlink(path);
		}
}
