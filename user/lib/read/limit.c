// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "read/limit.h"

__u64 xrl_limit(const struct xrl_rule *r, const struct xrl_fleet *f)
{
	return f && f->allowance ? f->allowance : r->threshold;
}
