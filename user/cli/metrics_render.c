// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metrics' printers: Prometheus's text exposition format, and JSON (metrics_render.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "read/limit.h"
#include "metrics_render.h"
#include "render.h"
#include "fleet/share.h"
#include "xrl_version.h"

/* A label value or HELP text, escaped as the exposition format wants (\\, \n, and \" in labels). */
static void prom_escaped(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && label)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	prom_escaped(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* name{interface="IFACE"[,KEY="VALUE"]} VALUE */
static void prom_sample(FILE *f, const char *name, const char *iface, const char *key, const char *value, __u64 v)
{
	fprintf(f, "%s{interface=\"", name);
	prom_escaped(f, iface, true);
	if (key) {
		fprintf(f, "\",%s=\"", key);
		prom_escaped(f, value, true);
	}
	fprintf(f, "\"} %llu\n", (unsigned long long)v);
}

/* One family per counter of struct xrl_counters, named as stats -j names it. */
static const struct {
	const char *name, *help;
	size_t off;
} frame_counters[] = {
	{ "xdp_ratelimit_frames_seen_total", "Frames the program saw.", offsetof(struct xrl_counters, seen) },
	{ "xdp_ratelimit_frames_passed_total", "Frames passed (XDP_PASS).", offsetof(struct xrl_counters, passed) },
	{ "xdp_ratelimit_frames_dropped_total",
	  "Frames dropped (XDP_DROP): over a limit, or malformed (by --malformed: tiny fragments, IPv6 chains too long to follow and three VLAN tags or more by default, every malformed frame under drop).",
	  offsetof(struct xrl_counters, dropped) },
	{ "xdp_ratelimit_frames_non_ip_total", "Frames neither IPv4 nor IPv6: passed, no rule applies.",
	  offsetof(struct xrl_counters, non_ip) },
	{ "xdp_ratelimit_frames_no_rule_total", "IP frames that matched no rule: passed.",
	  offsetof(struct xrl_counters, no_rule) },
	{ "xdp_ratelimit_frames_allowed_total", "Frames from an allow prefix: passed, no limit applies.",
	  offsetof(struct xrl_counters, allowed) },
	{ "xdp_ratelimit_frames_monitored_total", "Frames over a monitor rule's limit: passed.",
	  offsetof(struct xrl_counters, monitored) },
	{ "xdp_ratelimit_keys_created_total", "Window states (rule and source) created.",
	  offsetof(struct xrl_counters, keys_new) },
	{ "xdp_ratelimit_keys_failed_total", "Window states that could not be created: their packets passed.",
	  offsetof(struct xrl_counters, keys_failed) },
	{ "xdp_ratelimit_sketch_packets_total",
	  "Packets of new sources past the cap on new states, judged by the sketch.",
	  offsetof(struct xrl_counters, sketch_judged) },
	{ "xdp_ratelimit_sketch_blocked_total", "Packets of new sources past the cap that the sketch blocked.",
	  offsetof(struct xrl_counters, sketch_blocked) },
};

/* The fleet's figures of a global rule (xrl_fleet), one family each: what the sync agent last wrote. */
static const struct {
	const char *name, *type, *help;
} fleet_fam[] = {
	{ "xdp_ratelimit_fleet_allowance", "gauge",
	  "A global rule's allowance on this node: packets a window it may pass (the rule's threshold until an agent syncs)." },
	{ "xdp_ratelimit_fleet_nodes", "gauge",
	  "Nodes the sync agent saw alive at its last good sync; 0: never synced." },
	{ "xdp_ratelimit_fleet_last_sync_timestamp_seconds", "gauge",
	  "When the sync agent last synced a global rule with Redis (Unix time); 0: never." },
	{ "xdp_ratelimit_fleet_sync_failures_total", "counter",
	  "Syncs of a global rule with Redis that failed, since the rule's entry was made." },
	{ "xdp_ratelimit_fleet_policy", "gauge",
	  "1 for the policy in force for a global rule: shared (in sync), local, last or open (Redis lost), none (no agent)." },
};

static __u64 fleet_value(const struct xrl_status_global *g, size_t which)
{
	const struct xrl_fleet *f = &g->f;

	switch (which) {
	case 0:
		return xrl_limit(&g->spec.r, g->synced ? f : NULL);
	case 1:
		return g->synced ? f->nodes : 0;
	case 2:
		return g->synced ? f->synced_ms / 1000 : 0;
	default:
		return g->synced ? f->total_fails : 0;
	}
}

static void render_fleet(FILE *f, const struct xrl_instance_metrics *v, size_t n)
{
	char line[256];
	size_t i, g, k;

	for (k = 0; k < sizeof(fleet_fam) / sizeof(fleet_fam[0]); k++) {
		prom_family(f, fleet_fam[k].name, fleet_fam[k].type, fleet_fam[k].help);
		for (i = 0; i < n; i++) {
			for (g = 0; !v[i].err[0] && g < v[i].st.nglobal; g++) {
				const struct xrl_status_global *gl = &v[i].st.global[g];

				xrl_spec_format(&gl->spec, line, sizeof(line));
				if (k < 4) {
					prom_sample(f, fleet_fam[k].name, v[i].st.iface, "rule", line,
						    fleet_value(gl, k));
					continue;
				}
				/* The policy as a label: name{interface,rule,policy} 1. */
				fprintf(f, "%s{interface=\"", fleet_fam[k].name);
				prom_escaped(f, v[i].st.iface, true);
				fprintf(f, "\",rule=\"");
				prom_escaped(f, line, true);
				fprintf(f, "\",policy=\"%s\"} 1\n",
					xrl_policy_name(gl->synced ? (enum xrl_fleet_policy)gl->f.policy :
								     XRL_FLEET_NONE));
			}
		}
	}
}

/* An instance's gauges, from what status reads: gauge_value gives each, in this order. */
static const struct {
	const char *name, *help;
} gauges[] = {
	{ "xdp_ratelimit_keys_tracked", "Window states held now." },
	{ "xdp_ratelimit_keys_max",
	  "Window states the table holds (load --max-keys); the least recently used go beyond." },
	{ "xdp_ratelimit_rules", "Rules in force." },
	{ "xdp_ratelimit_memory_bytes", "Kernel memory charged for the limiter's maps." },
	{ "xdp_ratelimit_state_memory_bytes",
	  "Kernel memory charged for the window states, of xdp_ratelimit_memory_bytes." },
	{ "xdp_ratelimit_sketch_memory_bytes",
	  "Kernel memory charged for the sketch that judges new sources past the cap, of xdp_ratelimit_memory_bytes." },
};

static __u64 gauge_value(const struct xrl_status *st, size_t which)
{
	switch (which) {
	case 0:
		return st->keys;
	case 1:
		return st->ctl.max_keys;
	case 2:
		return st->rules;
	case 3:
		return st->memlock;
	case 4:
		return st->state_memlock;
	default:
		return st->sketch_memlock;
	}
}

static __u64 rule_value(const struct xrl_rule_totals *t, int which)
{
	static const size_t off[6] = {
		offsetof(struct xrl_rule_totals, passed),	 offsetof(struct xrl_rule_totals, blocked),
		offsetof(struct xrl_rule_totals, monitored),	 offsetof(struct xrl_rule_totals, passed_bytes),
		offsetof(struct xrl_rule_totals, blocked_bytes), offsetof(struct xrl_rule_totals, monitored_bytes),
	};

	return *(const __u64 *)((const char *)t + off[which]);
}

static void metrics_text(FILE *f, const struct xrl_instance_metrics *v, size_t n)
{
	static const char *const rule_fam[6][2] = {
		{ "xdp_ratelimit_rule_passed_total", "Packets a rule passed, since it was created." },
		{ "xdp_ratelimit_rule_blocked_total", "Packets a rule dropped, over its limit, since it was created." },
		{ "xdp_ratelimit_rule_monitored_total",
		  "Packets over a monitor rule's limit, passed, since the rule was created." },
		{ "xdp_ratelimit_rule_passed_bytes_total",
		  "Bytes (frame lengths as XDP sees them) of the packets a rule passed, since it was created." },
		{ "xdp_ratelimit_rule_blocked_bytes_total",
		  "Bytes of the packets a rule dropped, over its limit, since it was created." },
		{ "xdp_ratelimit_rule_monitored_bytes_total",
		  "Bytes of the packets over a monitor rule's limit, passed, since the rule was created." },
	};
	char line[256];
	size_t i, j, r;
	int w;

	prom_family(f, "xdp_ratelimit_build_info", "gauge", "The version of xdp-ratelimit that exports these metrics.");
	fprintf(f, "xdp_ratelimit_build_info{version=\"");
	prom_escaped(f, XRL_VERSION, true);
	fprintf(f, "\"} 1\n");
	if (!n)
		return;
	prom_family(
		f, "xdp_ratelimit_up", "gauge",
		"1 when the instance's figures could be read; 0 and no other figure when not ('xdp-ratelimit status' says why).");
	for (i = 0; i < n; i++)
		prom_sample(f, "xdp_ratelimit_up", v[i].st.iface, NULL, NULL, !v[i].err[0]);
	prom_family(f, "xdp_ratelimit_attached", "gauge", "1 when the limiter's program is attached to the interface.");
	for (i = 0; i < n; i++)
		if (!v[i].err[0])
			prom_sample(f, "xdp_ratelimit_attached", v[i].st.iface, NULL, NULL, v[i].st.attached);
	for (j = 0; j < sizeof(frame_counters) / sizeof(frame_counters[0]); j++) {
		prom_family(f, frame_counters[j].name, "counter", frame_counters[j].help);
		for (i = 0; i < n; i++)
			if (!v[i].err[0])
				prom_sample(f, frame_counters[j].name, v[i].st.iface, NULL, NULL,
					    *(const __u64 *)((const char *)&v[i].counters + frame_counters[j].off));
	}
	prom_family(f, "xdp_ratelimit_frames_malformed_total", "counter",
		    "Frames too short or inconsistent to parse, by reason (dropped or passed as --malformed says).");
	for (i = 0; i < n; i++)
		for (j = 0; j < XRL_MAL_MAX && !v[i].err[0]; j++)
			prom_sample(f, "xdp_ratelimit_frames_malformed_total", v[i].st.iface, "reason",
				    xrl_malformed_name((int)j), v[i].counters.malformed[j]);
	for (j = 0; j < sizeof(gauges) / sizeof(gauges[0]); j++) {
		prom_family(f, gauges[j].name, "gauge", gauges[j].help);
		for (i = 0; i < n; i++)
			if (!v[i].err[0])
				prom_sample(f, gauges[j].name, v[i].st.iface, NULL, NULL, gauge_value(&v[i].st, j));
	}
	prom_family(
		f, "xdp_ratelimit_capture_lost_total", "counter",
		"Frames the capture running now matched but did not copy, by reason: rate (over its --max-rate), full (the ring was full). 0 while no capture runs: each capture counts from 0.");
	for (i = 0; i < n; i++) {
		if (v[i].err[0] || !v[i].has_capture)
			continue;
		prom_sample(f, "xdp_ratelimit_capture_lost_total", v[i].st.iface, "reason", "rate", v[i].cap.lost_rate);
		prom_sample(f, "xdp_ratelimit_capture_lost_total", v[i].st.iface, "reason", "full", v[i].cap.lost_full);
	}
	prom_family(
		f, "xdp_ratelimit_program_run_seconds_total", "counter",
		"Time the kernel counted the program running (bpf_prog_info run_time_ns), only while the sysctl kernel.bpf_stats_enabled is 1: 0, or not moving, otherwise.");
	for (i = 0; i < n; i++) {
		if (v[i].err[0])
			continue;
		fprintf(f, "xdp_ratelimit_program_run_seconds_total{interface=\"");
		prom_escaped(f, v[i].st.iface, true);
		fprintf(f, "\"} %llu.%09llu\n", (unsigned long long)(v[i].cost.ns / 1000000000ULL),
			(unsigned long long)(v[i].cost.ns % 1000000000ULL));
	}
	prom_family(
		f, "xdp_ratelimit_program_runs_total", "counter",
		"Runs of the program the kernel counted (bpf_prog_info run_cnt), only while the sysctl kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < n; i++)
		if (!v[i].err[0])
			prom_sample(f, "xdp_ratelimit_program_runs_total", v[i].st.iface, NULL, NULL, v[i].cost.runs);
	for (w = 0; w < 6; w++) {
		prom_family(f, rule_fam[w][0], "counter", rule_fam[w][1]);
		for (i = 0; i < n; i++) {
			for (r = 0; !v[i].err[0] && r < v[i].st.rules; r++) {
				if (w >= 3 && !v[i].rules[r].spec.r.byte_unit)
					continue; /* bytes are counted for a rule with a byte rate */
				xrl_spec_format(&v[i].rules[r].spec, line, sizeof(line));
				prom_sample(f, rule_fam[w][0], v[i].st.iface, "rule", line,
					    rule_value(&v[i].rules[r], w));
			}
		}
	}
	render_fleet(f, v, n);
}

json_t *metrics_json(const struct xrl_instance_metrics *v, size_t n)
{
	json_t *arr = json_array();
	char ts[40];
	size_t i, r;

	for (i = 0; i < n; i++) {
		json_t *rules;

		if (v[i].err[0]) {
			json_array_append_new(arr,
					      json_pack("{s:s,s:s}", "interface", v[i].st.iface, "error", v[i].err));
			continue;
		}
		rules = json_array();

		for (r = 0; r < v[i].st.rules; r++) {
			const struct xrl_rule_totals *t = &v[i].rules[r];
			json_t *o = cli_rule_json(&t->spec);

			json_object_update_new(o, json_pack("{s:I,s:I,s:I}", "passed", (json_int_t)t->passed, "blocked",
							    (json_int_t)t->blocked, "monitored",
							    (json_int_t)t->monitored));
			if (t->spec.r.byte_unit)
				json_object_update_new(o, json_pack("{s:I,s:I,s:I}", "passed_bytes",
								    (json_int_t)t->passed_bytes, "blocked_bytes",
								    (json_int_t)t->blocked_bytes, "monitored_bytes",
								    (json_int_t)t->monitored_bytes));
			json_array_append_new(rules, o);
		}
		json_array_append_new(
			arr, json_pack("{s:s,s:b,s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:I}", "interface", v[i].st.iface,
				       "attached", v[i].st.attached, "prog_id", (json_int_t)v[i].st.prog_id, "counters",
				       cli_counters_json(&v[i].counters), "rules", rules, "rule_count",
				       (json_int_t)v[i].st.rules, "keys_tracked", (json_int_t)v[i].st.keys, "max_keys",
				       (json_int_t)v[i].st.ctl.max_keys, "memory_bytes", (json_int_t)v[i].st.memlock,
				       "state_bytes", (json_int_t)v[i].st.state_memlock));
	}
	cli_timestamp(ts, sizeof(ts));
	return json_pack("{s:s,s:s,s:o}", "timestamp", ts, "version", XRL_VERSION, "interfaces", arr);
}

int metrics_text_buf(const struct xrl_instance_metrics *v, size_t n, char **body, size_t *blen, char *err, size_t len)
{
	FILE *f;

	*body = NULL;
	f = open_memstream(body, blen);
	if (!f)
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	metrics_text(f, v, n);
	if (fclose(f)) {
		free(*body);
		return xrl_fail(-ENOMEM, err, len, "out of memory");
	}
	return 0;
}
