// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * capture: the frames the limiter drops (or passes), as pcap through
 * libpcap's dump API, or one line a frame. The program copies them into a
 * ring while the capture holds its lease (user/lib/capture.c).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
/* pcap/bpf.h and linux/bpf.h both define struct bpf_insn: pcap's dump API needs neither. */
#define PCAP_DONT_INCLUDE_PCAP_BPF_H
struct bpf_program;
#include <pcap/pcap.h>
#include <pcap/dlt.h>
#include "codec/rules_read.h"
#include "base/atomic.h"
#include "capture/capture.h"
#include "capture_print.h"
#include "cli.h"

#define XRL_STR_(x) #x
#define XRL_STR(x) XRL_STR_(x)

struct capture_opts {
	const char *write; /* -w FILE, or - for standard output; NULL: a line a frame */
	const char *rule, *src;
	__u32 count, snaplen, max_rate, seconds;
	bool passed, snaplen_given;
	/* Made by prepare. */
	struct xrl_spec match;
	struct xrl_cap_ctl want;
};

static const struct cli_opt capture_opts[] = {
	CLI_OPT(struct capture_opts, write, "write", STRING, .short_name = 'w', .arg = "FILE",
		.help = "write pcap (tcpdump -r, tshark -r) to FILE, or to standard output with -;\n"
			"without it, one line a frame"),
	CLI_OPT(struct capture_opts, rule, "rule", STRING, .arg = "MATCH",
		.help = "only frames this rule decided: its match, as 'rule del' takes it ('port 53/udp')"),
	CLI_OPT(struct capture_opts, src, "src", STRING, .arg = "PREFIX",
		.help = "only frames from this source address or prefix (10.0.0.0/8, 2001:db8::1)"),
	CLI_OPT(struct capture_opts, passed, "passed", FLAG, .help = "frames the limiter passes, not those it drops"),
	CLI_OPT(struct capture_opts, count, "count", UINT, .short_name = 'c', .arg = "N", .what = "a frame count",
		.min = 1, .max = 4294967295U, .help = "stop after N frames"),
	CLI_OPT(struct capture_opts, snaplen, "snaplen", UINT, .short_name = 's', .arg = "N", .what = "a byte count",
		.min = 0, .max = 262144, CLI_GIVEN(struct capture_opts, snaplen_given),
		.help = "bytes of a frame kept (default and at most " XRL_STR(XRL_CAP_SNAP_MAX) "; 0: the most)"),
	CLI_OPT(struct capture_opts, max_rate, "max-rate", UINT, .arg = "N", .what = "a frame rate", .min = 1,
		.max = XRL_CAP_RATE_MAX,
		.help = "frames a second each CPU may copy, at most (default " XRL_STR(
			XRL_CAP_RATE_DEFAULT) "):\n"
					      "the bound on what a capture costs the data path; past it frames are counted, not copied"),
	CLI_OPT(struct capture_opts, seconds, "seconds", UINT, .arg = "N", .what = "a number of seconds", .min = 1,
		.max = 86400 * 365, .help = "stop after N seconds"),
	{},
};

static const struct capture_opts capture_defaults = { .max_rate = XRL_CAP_RATE_DEFAULT };

/* What the record callback needs: the output, the rules by id for lines, the counts. */
struct cap_run {
	struct capture_opts *o;
	const char *iface;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	struct xrl_ruleset set;
	__u64 session;
	__u64 written, beyond; /* written out; copied after --count was reached */
	__s64 mono_to_real;    /* ns to add to CLOCK_MONOTONIC for CLOCK_REALTIME */
	bool full;	       /* --count reached */
	int werr;	       /* writing the output failed: errno */
};

static const struct xrl_spec *rule_by_id(const struct xrl_ruleset *set, __u32 id)
{
	size_t i;

	for (i = 0; id != XRL_CAP_NO_RULE && i < set->n; i++)
		if (set->v[i].r.id == id)
			return &set->v[i];
	return NULL;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct cap_run *r = ctx;
	const struct xrl_cap_rec *rec = data;
	struct pcap_pkthdr h = {};
	struct timespec ts;
	__s64 ns;

	if (size < sizeof(*rec) || rec->session != r->session || rec->caplen > size - sizeof(*rec))
		return 0; /* an earlier capture's */
	if (r->full || r->werr) {
		r->beyond++;
		return 0;
	}
	ns = (__s64)rec->ts_ns + r->mono_to_real;
	ts.tv_sec = (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	if (r->dumper) {
		h.ts.tv_sec = ts.tv_sec;
		h.ts.tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
		h.caplen = rec->caplen;
		h.len = rec->len;
		pcap_dump((u_char *)r->dumper, &h, (const u_char *)(rec + 1));
	} else {
		struct cap_frame f = { .iface = r->iface,
				       .rec = rec,
				       .data = (const __u8 *)(rec + 1),
				       .rule = rule_by_id(&r->set, rec->rule_id),
				       .ts = ts };

		if (cli.json)
			cap_frame_json(&f);
		else
			cap_frame_plain(&f);
	}
	r->written++;
	if (r->o->count && r->written >= r->o->count)
		r->full = true;
	return 0;
}

/*
 * -w PATH: streamed to as frames come (a reader may follow it, a FIFO may
 * feed wireshark, a killed capture leaves what it wrote), so not a temporary
 * file renamed at the end; opened by xrl_open_output, which refuses a
 * symlink at PATH. -w - is standard output.
 */
static int open_write(struct cap_run *r, const char *path, char *err, size_t len)
{
	FILE *f;
	int fd;

	if (!strcmp(path, "-")) {
		r->dumper = pcap_dump_open(r->dead, "-");
		return r->dumper ?
			       0 :
			       xrl_fail(-EIO, err, len, "cannot write to standard output: %s", pcap_geterr(r->dead));
	}
	fd = xrl_open_output(path, err, len);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	r->dumper = pcap_dump_fopen(r->dead, f);
	if (!r->dumper) {
		fclose(f);
		return xrl_fail(-EIO, err, len, "cannot write '%s': %s", path, pcap_geterr(r->dead));
	}
	return 0;
}

/* Words of a match given as one argument: --rule 'port 53/udp'. */
static int parse_match(const char *s, struct xrl_spec *spec, char *err, size_t len)
{
	char buf[256], *words[16], *save = NULL, *t;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return xrl_fail(-EINVAL, err, len, "--rule '%.40s...' is too long to be a match", s);
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, " \t", &save); t && n < 15; t = strtok_r(NULL, " \t", &save))
		words[n++] = t;
	words[n] = NULL;
	if (!n)
		return xrl_fail(-EINVAL, err, len, "--rule needs a match, like --rule 'port 53/udp'");
	if (xrl_spec_parse_match(n, words, spec, err, len))
		return -EINVAL;
	return 0;
}

static int capture_prepare(struct cli_ctx *ctx)
{
	struct capture_opts *o = ctx->opts;
	struct xrl_cap_ctl *w = &o->want;
	char err[XRL_ERRLEN];
	__u8 plen, i;

	if (o->write && !strcmp(o->write, "-") && isatty(STDOUT_FILENO))
		return cli_usage(
			ctx->cmd,
			"-w - writes pcap to standard output, which is a terminal: pipe it ('| tcpdump -r -') or redirect it");
	if (o->write && !o->write[0])
		return cli_usage(ctx->cmd, "-w needs a file name, or - for standard output");
	if (o->rule && parse_match(o->rule, &o->match, err, sizeof(err)))
		return cli_usage(ctx->cmd, "%s (quote a match of several words: --rule 'port 53/udp')", err);
	if (o->src) {
		if (xrl_parse_prefix(o->src, &w->src_family, w->src_addr, &plen, err, sizeof(err)))
			return cli_usage(ctx->cmd, "--src: %s", err);
		for (i = 0; i < 16; i++) {
			__u8 bits = plen > i * 8 ? (plen - i * 8 >= 8 ? 8 : (__u8)(plen - i * 8)) : 0;

			w->src_mask[i] = (__u8)(0xff00 >> bits);
			w->src_addr[i] &= w->src_mask[i];
		}
	}
	w->verdicts = o->passed ? XRL_CAP_PASSED : XRL_CAP_DROPPED;
	w->snaplen = !o->snaplen_given || !o->snaplen || o->snaplen > XRL_CAP_SNAP_MAX ? XRL_CAP_SNAP_MAX : o->snaplen;
	if (o->snaplen_given && o->snaplen > XRL_CAP_SNAP_MAX)
		fprintf(stderr,
			"xdp-ratelimit: note: --snaplen %u: frames are cut at %u bytes, the most a record holds\n",
			o->snaplen, XRL_CAP_SNAP_MAX);
	w->rate = o->max_rate;
	w->burst = o->max_rate / 10 ?: 1; /* a tenth of a second's worth at once */
	return EXIT_OK;
}

/* bpf_xdp_load_bytes, which copies a frame into a record: Linux 5.18. */
static bool kernel_copies(char *release, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u))
		return true;
	snprintf(release, len, "%s", u.release);
	return sscanf(u.release, "%d.%d", &major, &minor) == 2 && (major > 5 || (major == 5 && minor >= 18));
}

/* The rule set now, for the lines and for --rule's id; under the readers' lock. */
static int read_set(struct cli_ctx *ctx, struct cap_run *r)
{
	int ret;

	xrl_ruleset_free(&r->set);
	ret = xrl_maps_lock_shared(&ctx->maps);
	if (ret)
		return ret;
	ret = xrl_rules_read(&ctx->maps, &r->set);
	xrl_maps_unlock(&ctx->maps);
	return ret;
}

static void summary(struct cli_ctx *ctx, struct cap_run *r, const struct xrl_cap_counts *n, const char *ended)
{
	struct capture_opts *o = ctx->opts;
	struct cap_summary cs = {
		.iface = ctx->iface,
		.passed = o->passed,
		.to = !o->write		     ? "standard output" :
		      !strcmp(o->write, "-") ? "standard output (pcap)" :
					       o->write,
		.pcap_stdout = o->write && !strcmp(o->write, "-"),
		.n = *n,
		.written = r->written,
		.beyond = r->beyond,
		.max_rate = o->max_rate,
		.ended = ended,
	};

	if (cli.json)
		cap_summary_json(&cs);
	else
		cap_summary_plain(&cs);
}

/*
 * Copies frames until one of --count, --seconds, a signal, a write error,
 * another capture, an unload or the rule's removal ends it: why, in words;
 * *code set to EXIT_FAIL when another capture took over.
 */
static const char *capture_loop(struct cli_ctx *ctx, struct cap_run *r, struct xrl_capture *c,
				const struct timespec *t0, int *code)
{
	struct capture_opts *o = ctx->opts;
	const char *ended = "stopped";
	char link[PATH_MAX + 8];
	int ret, idx;

	snprintf(link, sizeof(link), "%s/link", ctx->maps.dir);
	while (!cli_stopped && !r->full && !r->werr) {
		struct stat st;

		xrl_capture_poll(c);
		if (r->dumper) {
			pcap_dump_flush(r->dumper);
			if (ferror(pcap_dump_file(r->dumper)))
				r->werr = errno ? errno : EIO;
		} else if (ferror(stdout)) {
			r->werr = errno ? errno : EIO;
		}
		if (r->full || r->werr)
			break;
		ret = xrl_capture_renew(c);
		if (ret == -EOWNERDEAD) {
			ended = "another capture took over";
			fprintf(stderr,
				"xdp-ratelimit: this capture was stopped longer than its lease (%d s) and another capture took %s over: ending\n",
				XRL_CAP_LEASE_MS / 1000, ctx->iface);
			*code = EXIT_FAIL;
			break;
		}
		if (ret == 2)
			fprintf(stderr,
				"xdp-ratelimit: note: this capture was stopped longer than its lease (%d s): frames were not captured meanwhile\n",
				XRL_CAP_LEASE_MS / 1000);
		if (ret > 0) {
			/* At each renewal: still loaded, and the rule still there (a new set may move it). */
			if (stat(link, &st)) {
				ended = "unloaded";
				fprintf(stderr, "xdp-ratelimit: xdp-ratelimit was unloaded from %s: capture ends\n",
					ctx->iface);
				break;
			}
			/* The rules as they are now: a rule deleted and added again has another id. */
			if (!read_set(ctx, r) && o->rule) {
				idx = xrl_ruleset_find(&r->set, &o->match);
				if (idx < 0) {
					ended = "rule removed";
					fprintf(stderr,
						"xdp-ratelimit: the rule '%s' was removed from %s: capture ends\n",
						o->rule, ctx->iface);
					break;
				}
				xrl_capture_rule(c, r->set.v[idx].r.id + 1);
			}
		}
		if (o->seconds) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9 >= o->seconds) {
				ended = "--seconds";
				break;
			}
		}
		poll(NULL, 0, 10);
	}
	return ended;
}

static int capture_run(struct cli_ctx *ctx)
{
	struct capture_opts *o = ctx->opts;
	struct cap_run r = { .o = o, .iface = ctx->iface };
	struct xrl_capture c = { .ctl_fd = -1, .cpu_fd = -1, .ring_fd = -1 };
	struct xrl_cap_counts n;
	struct timespec mono, real;
	struct sigaction sa = {};
	char err[XRL_ERRLEN], release[128] = "";
	const char *ended;
	int code = EXIT_OK, ret, idx;

	cli.ndjson = true; /* -j: a document a frame, a line each */
	if (!kernel_copies(release, sizeof(release)))
		return cli_fail(EXIT_FAIL,
				"capture needs Linux 5.18 or later (bpf_xdp_load_bytes copies the frames); this is %s",
				release);
	ret = read_set(ctx, &r);
	if (ret) {
		code = cli_fail(EXIT_FAIL, "cannot read the rules of %s: %s", ctx->iface, strerror(-ret));
		goto out;
	}
	if (o->rule) {
		char m[128];

		idx = xrl_ruleset_find(&r.set, &o->match);
		xrl_spec_format_match(&o->match, m, sizeof(m));
		if (idx < 0) {
			code = cli_usage(ctx->cmd, "%s has no rule for '%s': 'xdp-ratelimit dump %s' lists them",
					 ctx->iface, m, ctx->iface);
			goto out;
		}
		o->want.rule_id = r.set.v[idx].r.id + 1;
	}
	ret = xrl_capture_open(&c, ctx->maps.dir, ctx->iface, err, sizeof(err));
	if (ret) {
		code = cli_fail(EXIT_FAIL, "%s", err);
		goto out;
	}
	sa.sa_handler = cli_on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a reader gone shows as a write error */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r.mono_to_real = ((__s64)real.tv_sec - mono.tv_sec) * 1000000000LL + (real.tv_nsec - mono.tv_nsec);
	ret = xrl_capture_start(&c, &o->want, on_record, &r, ctx->iface, err, sizeof(err));
	if (ret) {
		code = cli_fail(EXIT_FAIL, "%s", err);
		goto out;
	}
	r.session = c.session;
	/* Once the capture is ours: a refused one leaves the file of the one running alone. */
	if (o->write) {
		r.dead = pcap_open_dead(DLT_EN10MB, (int)o->want.snaplen);
		ret = r.dead ? open_write(&r, o->write, err, sizeof(err)) : -ENOMEM;
		if (ret) {
			xrl_capture_stop(&c);
			code = cli_usage(ctx->cmd, "%s", ret == -ENOMEM ? "out of memory" : err);
			goto out;
		}
	}
	fprintf(stderr, "capturing the frames %s %s%s%s%s%s, at most %u a second a CPU; Ctrl-C ends it\n", ctx->iface,
		o->passed ? "passes" : "drops", o->rule ? ", rule " : "", o->rule ? o->rule : "",
		o->src ? ", from " : "", o->src ? o->src : "", o->max_rate);
	ended = capture_loop(ctx, &r, &c, &mono, &code);
	if (cli_stopped)
		ended = cli_stopped == SIGINT ? "interrupted" : cli_stopped == SIGTERM ? "terminated" : "hung up";
	else if (r.full)
		ended = "--count";
	xrl_capture_stop(&c);
	if (r.werr) {
		ended = "write error";
		code = cli_fail(EXIT_FAIL, "cannot write %s: %s; capture ended",
				o->write && strcmp(o->write, "-") ? o->write : "to standard output", strerror(r.werr));
	}
	if (xrl_capture_counts(&c, &n))
		memset(&n, 0, sizeof(n));
	if (r.dumper) {
		pcap_dump_close(r.dumper);
		r.dumper = NULL;
	}
	summary(ctx, &r, &n, ended);
out:
	if (r.dumper)
		pcap_dump_close(r.dumper);
	if (r.dead)
		pcap_close(r.dead);
	xrl_capture_close(&c);
	xrl_ruleset_free(&r.set);
	return code;
}

const struct cli_cmd cmd_capture = {
	.name = "capture",
	.summary =
		"Captures the frames the limiter drops on IFACE (or with --passed, passes), as pcap with -w, or one line a\n"
		"frame: its verdict, why, and the rule that decided. The program copies them only while a capture\n"
		"runs, at most --max-rate a second a CPU; the summary on standard error says how many were captured,\n"
		"lost to that bound and lost to a full ring. One capture at a time on an interface. Ends on Ctrl-C,\n"
		"SIGTERM, --count or --seconds, with a whole pcap file.",
	CLI_ONE_IFACE(CLI_MAPS),
	.opts = capture_opts,
	.opts_size = sizeof(struct capture_opts),
	.defaults = &capture_defaults,
	.prepare = capture_prepare,
	.run = capture_run,
};
