/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* metrics' printers: a reading of the instances (metrics.h) as Prometheus's text format, or as JSON. */
#ifndef XRL_CLI_METRICS_RENDER_H
#define XRL_CLI_METRICS_RENDER_H

#include <stddef.h>
#include <jansson.h>
#include "read/metrics.h"

/* The exposition of a reading in a malloc'd buffer: what stdout, the file and the server share. */
int metrics_text_buf(const struct xrl_instance_metrics *v, size_t n, char **body, size_t *blen, char *err, size_t len);
/* The same reading in JSON (metrics -j). */
json_t *metrics_json(const struct xrl_instance_metrics *v, size_t n);

#endif /* XRL_CLI_METRICS_RENDER_H */
