// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrl-trafficgen: the benchmark's packet generator. BPF_PROG_TEST_RUN in
 * live-frames mode runs tools/bpf/trafficgen.bpf.c over a crafted UDP frame, which
 * rewrites each frame's source and ports and redirects it into a veth: one
 * thread per CPU, each pinned. Counts what it sent; the receiver counts what
 * arrived.
 *
 *   xrl-trafficgen [options] -i IFACE           send
 *   xrl-trafficgen [options] --cost TARGET      ns per packet of TARGET by
 *                                              BPF_PROG_TEST_RUN with repeat
 *   xrl-trafficgen --clock-wait PERIOD:PHASE[:NOT_BEFORE]
 *                                              sleep until CLOCK_MONOTONIC
 *                                              (the XDP clock) is at PHASE ms
 *                                              into a PERIOD ms period
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include "trafficgen.skel.h"
#include "xdp_bare.skel.h"
#include "udpgen.h"

#define TG_MAX_THREADS 64
#define TG_MAX_FRAME 1500
#define TG_CHUNK_MAX 65536 /* frames per BPF_PROG_TEST_RUN call, at most */
#define NS_PER_SEC 1000000000ULL

struct tg_opts {
	const char *iface;
	const char *netns;
	const char *cost;
	__u64 count;	/* frames in all; 0: until the duration ends */
	double seconds; /* 0: until count frames are sent */
	double rate;	/* frames per second over all threads; 0: as fast as possible */
	__u32 nsrc;
	bool shuffle;
	bool ipv6;
	struct in6_addr src, dst; /* IPv4 in the first four bytes */
	__u8 dmac[ETH_ALEN], smac[ETH_ALEN];
	__u16 sport, nsport, dport, ndport;
	__u32 size;
	int cpus[TG_MAX_THREADS];
	int ncpus;
	__u64 at_period, at_phase; /* ns; at_period 0: start at once */
	__u32 batch;
	const char *hold; /* attach the generator here (generic mode) while sending */
	bool json;
};

struct tg_thread {
	pthread_t tid;
	int cpu;
	int slot;
	int prog_fd;
	const struct tg_opts *o;
	const __u8 *frame;
	__u32 len;
	__u64 quota; /* frames; 0: no limit */
	double rate;
	__u64 start_ns, deadline_ns;
	__u64 sent;
	__u64 end_ns;
	int err;
};

static volatile sig_atomic_t tg_stop;

static void on_signal(int sig)
{
	(void)sig;
	tg_stop = 1;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NS_PER_SEC + (__u64)ts.tv_nsec;
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / NS_PER_SEC), .tv_nsec = (long)(t % NS_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !tg_stop)
		;
}

/* The first time at or after not_before that lies phase ns into a period. */
static __u64 next_phase(__u64 not_before, __u64 period, __u64 phase)
{
	__u64 t = not_before - not_before % period + phase;

	while (t < not_before)
		t += period;
	return t;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: xrl-trafficgen -i IFACE [options]      send UDP frames into IFACE (a veth)\n"
		   "       xrl-trafficgen --cost TARGET [options] ns per packet by BPF_PROG_TEST_RUN repeat\n"
		   "       xrl-trafficgen --clock-wait PERIOD_MS:PHASE_MS[:NOT_BEFORE_NS]\n"
		   "Options:\n"
		   "  -i, --iface IFACE     redirect target (the sending end of a veth pair)\n"
		   "      --netns NAME      enter network namespace NAME first\n"
		   "  -n, --count N         frames in all (default: 1000000 unless -d)\n"
		   "  -d, --duration SEC    send for SEC seconds (with -n: whichever ends first)\n"
		   "  -r, --rate PPS        frames per second over all threads (default: as fast as possible)\n"
		   "  -s, --sources N       distinct source addresses from --src up (default 1)\n"
		   "      --shuffle         the sources in a scattered order (packet k's: k * 2654435761 mod N), not\n"
		   "                        k mod N, which a table filled in that order finds side by side\n"
		   "      --src ADDR        first source (default 10.0.0.1, or fd00:1::1 with -6)\n"
		   "      --dst ADDR        destination (default 192.168.77.1, or fd00:77::1 with -6)\n"
		   "  -p, --dport P[-Q]     destination port or range (default 9)\n"
		   "      --sport P[-Q]     source port or range (default 40000)\n"
		   "  -4, -6                address family when --src/--dst do not say (default IPv4)\n"
		   "      --dst-mac MAC     (default ff:ff:ff:ff:ff:ff)\n"
		   "      --size BYTES      frame size without FCS (default 64)\n"
		   "  -c, --cpus LIST       CPUs, one thread each, like 0,1 or 0-3 (default: all online)\n"
		   "      --at PERIOD:PHASE start when CLOCK_MONOTONIC is PHASE ms into a PERIOD ms period\n"
		   "      --batch N         frames per kernel batch (default: the kernel's, 64)\n"
		   "      --hold IFACE      attach the generator to IFACE (a dummy: it must never receive) in generic\n"
		   "                        mode while sending, so that test runs skip an RCU grace period each\n"
		   "      --cost TARGET     drop, pass (the bare programs), link:PINNED_LINK, prog:PINNED_PROG\n"
		   "                        or id:PROG_ID: run it -n times through a shim that rewrites the source\n"
		   "                        and tail-calls it; prints ns per packet, shim included\n"
		   "  -j, --json            JSON output\n");
}

static int parse_range(const char *s, __u16 *lo, __u16 *n)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(s, &end, 10);
	b = a;
	if (*end == '-')
		b = strtoul(end + 1, &end, 10);
	if (errno || *end || a > 65535 || b > 65535 || b < a || end == s)
		return -EINVAL;
	*lo = (__u16)a;
	*n = (__u16)(b - a + 1);
	return 0;
}

static int parse_cpus(const char *s, struct tg_opts *o)
{
	char *copy = strdup(s), *tok, *save = NULL, *end;
	long a, b, c;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	o->ncpus = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		a = strtol(tok, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end || end == tok || a < 0 || b < a || b >= CPU_SETSIZE) {
			ret = -EINVAL;
			break;
		}
		for (c = a; c <= b; c++) {
			if (o->ncpus == TG_MAX_THREADS) {
				ret = -E2BIG;
				goto out;
			}
			o->cpus[o->ncpus++] = (int)c;
		}
	}
out:
	free(copy);
	return ret ?: (o->ncpus ? 0 : -EINVAL);
}

static int parse_addr(const char *s, struct in6_addr *a, int *family)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		*family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static int parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[ETH_ALEN];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != ETH_ALEN)
		return -EINVAL;
	for (i = 0; i < ETH_ALEN; i++) {
		if (b[i] > 0xff)
			return -EINVAL;
		mac[i] = (__u8)b[i];
	}
	return 0;
}

static int parse_period(const char *s, __u64 *period, __u64 *phase, __u64 *not_before)
{
	double p, f;
	unsigned long long nb = 0;
	int n = sscanf(s, "%lf:%lf:%llu", &p, &f, &nb);

	if (n < 2 || (n == 2 && !period) || p <= 0 || f < 0 || f >= p)
		return -EINVAL;
	*period = (__u64)(p * 1e6);
	*phase = (__u64)(f * 1e6);
	if (not_before)
		*not_before = nb;
	return 0;
}

/* Sums 16-bit words as they lie in memory, read in host order (one's complement is order-blind). */
static __u32 csum_add(__u32 sum, const void *p, size_t len)
{
	const __u8 *b = p;
	__u16 w;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		memcpy(&w, b + i, 2);
		sum += w;
	}
	if (len & 1) {
		w = 0;
		memcpy(&w, b + len - 1, 1);
		sum += w;
	}
	return sum;
}

static __u16 csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* ~csum + the complement of each varying word: what the BPF side adds the new words to. */
static __u32 csum_k(__u16 csum, const __u16 *old, int n)
{
	__u32 k = (__u16)~csum;
	int i;

	for (i = 0; i < n; i++)
		k += (__u16)~old[i];
	return k;
}

/*
 * Builds the template frame (source index 0, first ports) and the checksum
 * constants the BPF side derives every other frame's checksums from. The
 * headers are built in aligned structs and copied in: after a 14-byte
 * Ethernet header, an IP header in the frame is not 4-byte aligned.
 */
static int build_frame(const struct tg_opts *o, __u8 *buf, __u32 *len, __u32 *ip_k, __u32 *l4_k)
{
	struct ethhdr eth = {};
	struct udphdr udp = {};
	__u32 l3 = o->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	__u32 min = sizeof(eth) + l3 + sizeof(udp);
	__u32 size = o->size < min ? min : o->size;
	__u8 *l4 = buf + sizeof(eth) + l3;
	__u16 ulen = (__u16)(size - sizeof(eth) - l3);
	__u16 old[4];

	if (size > TG_MAX_FRAME)
		return -EMSGSIZE;
	memset(buf, 0, size);
	memcpy(eth.h_dest, o->dmac, ETH_ALEN);
	memcpy(eth.h_source, o->smac, ETH_ALEN);
	eth.h_proto = htons(o->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	memcpy(buf, &eth, sizeof(eth));
	udp.source = htons(o->sport);
	udp.dest = htons(o->dport);
	udp.len = htons(ulen);
	memset(l4 + sizeof(udp), 0xa5, ulen - sizeof(udp));
	*ip_k = 0;
	*l4_k = 0;

	if (!o->ipv6) {
		struct iphdr ip = {};

		ip.version = 4;
		ip.ihl = 5;
		ip.tot_len = htons((__u16)(size - sizeof(eth)));
		ip.ttl = 64;
		ip.protocol = IPPROTO_UDP;
		memcpy(&ip.saddr, &o->src, 4);
		memcpy(&ip.daddr, &o->dst, 4);
		ip.check = csum_fold(csum_add(0, &ip, sizeof(ip)));
		memcpy(old, &ip.saddr, 4);
		*ip_k = csum_k(ip.check, old, 2);
		memcpy(buf + sizeof(eth), &ip, sizeof(ip));
		/* UDP over IPv4 may go without a checksum: the frames carry none. */
		memcpy(l4, &udp, sizeof(udp));
	} else {
		struct ipv6hdr ip6 = {};
		__u32 sum;

		ip6.version = 6;
		ip6.payload_len = htons(ulen);
		ip6.nexthdr = IPPROTO_UDP;
		ip6.hop_limit = 64;
		memcpy(&ip6.saddr, &o->src, 16);
		memcpy(&ip6.daddr, &o->dst, 16);
		memcpy(buf + sizeof(eth), &ip6, sizeof(ip6));
		/* Pseudo-header: addresses, length, next header; then the datagram. */
		memcpy(l4, &udp, sizeof(udp));
		sum = csum_add(0, &ip6.saddr, 32);
		sum += htons(ulen) + htons(IPPROTO_UDP);
		sum = csum_add(sum, l4, ulen);
		udp.check = csum_fold(sum);
		if (!udp.check)
			udp.check = 0xffff;
		memcpy(l4, &udp, sizeof(udp));
		memcpy(old, &ip6.saddr.s6_addr32[3], 4);
		old[2] = udp.source;
		old[3] = udp.dest;
		*l4_k = csum_k(udp.check, old, 4);
	}
	*len = size;
	return 0;
}

static void *sender(void *arg)
{
	struct tg_thread *t = arg;
	__u64 target, now;
	cpu_set_t set;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = t->frame, .data_size_in = t->len,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = t->o->batch);

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	t->err = -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (t->err)
		return NULL;
	sleep_until(t->start_ns);
	while (!tg_stop) {
		now = now_ns();
		if (t->deadline_ns && now >= t->deadline_ns)
			break;
		if (t->quota && t->sent >= t->quota)
			break;
		if (t->rate > 0) {
			/*
			 * Paced: the frames due by now. A call that took long (each
			 * test run waits for an RCU grace period unless --hold) is
			 * caught up by the next, so the rate holds on average.
			 */
			target = (__u64)((double)(now - t->start_ns) * t->rate / 1e9) + 1;
			if (target <= t->sent) {
				__u64 due = t->start_ns + (__u64)((double)t->sent * 1e9 / t->rate);

				if (t->deadline_ns && due > t->deadline_ns)
					due = t->deadline_ns;
				sleep_until(due);
				continue;
			}
			opts.repeat = (__u32)(target - t->sent < TG_CHUNK_MAX ? target - t->sent : TG_CHUNK_MAX);
		} else {
			opts.repeat = TG_CHUNK_MAX;
		}
		if (t->quota && t->sent + opts.repeat > t->quota)
			opts.repeat = (__u32)(t->quota - t->sent);
		if (bpf_prog_test_run_opts(t->prog_fd, &opts)) {
			t->err = -errno;
			break;
		}
		t->sent += opts.repeat;
	}
	t->end_ns = now_ns();
	return NULL;
}

static int set_slots(int map_fd, const struct tg_opts *o)
{
	int ncpu = libbpf_num_possible_cpus(), i, ret;
	struct {
		__u64 seq;
		__u32 slot;
		__u32 pad;
	} * vals;
	__u32 zero = 0;

	if (ncpu < 0)
		return ncpu;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (i = 0; i < o->ncpus; i++)
		if (o->cpus[i] < ncpu)
			vals[o->cpus[i]].slot = (__u32)i;
	ret = bpf_map_update_elem(map_fd, &zero, vals, BPF_ANY) ? -errno : 0;
	free(vals);
	return ret;
}

static struct trafficgen_bpf *open_gen(const struct tg_opts *o, __u32 ifindex, __u32 ip_k, __u32 l4_k)
{
	struct trafficgen_bpf *skel = trafficgen_bpf__open();
	__u32 lo;

	if (!skel)
		return NULL;
	memcpy(&lo, o->ipv6 ? &o->src.s6_addr32[3] : &o->src.s6_addr32[0], 4);
	skel->rodata->tg_cfg.ifindex = ifindex;
	skel->rodata->tg_cfg.ipv6 = o->ipv6;
	skel->rodata->tg_cfg.nsrc = o->nsrc;
	skel->rodata->tg_cfg.shuffle = o->shuffle;
	skel->rodata->tg_cfg.nslots = (__u32)o->ncpus;
	skel->rodata->tg_cfg.src_lo = ntohl(lo);
	skel->rodata->tg_cfg.sport = o->sport;
	skel->rodata->tg_cfg.nsport = o->nsport;
	skel->rodata->tg_cfg.dport = o->dport;
	skel->rodata->tg_cfg.ndport = o->ndport;
	skel->rodata->tg_cfg.ip_csum_k = ip_k;
	skel->rodata->tg_cfg.l4_csum_k = l4_k;
	return skel;
}

/*
 * BPF_PROG_TEST_RUN puts an XDP program into the kernel's XDP dispatcher for
 * the length of each call, and taking it out again waits for an RCU grace
 * period: milliseconds per call, most of the time on one CPU. Attached to an
 * interface that never receives (a dummy), in generic mode, through a link
 * that goes when we do, the program stays in the dispatcher and calls do not
 * wait.
 */
static int hold_dispatcher(int prog_fd, const char *iface)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_SKB_MODE);
	int ifindex = (int)if_nametoindex(iface), fd;

	if (!ifindex) {
		fprintf(stderr, "xrl-trafficgen: --hold: no interface '%s': %s\n", iface, strerror(errno));
		return -ENODEV;
	}
	fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &lo);
	if (fd < 0) {
		fd = -errno;
		fprintf(stderr,
			"xrl-trafficgen: --hold: attaching to %s in generic mode failed: %s (use a dummy interface with no XDP program)\n",
			iface, strerror(-fd));
	}
	return fd;
}

static int run_send(const struct tg_opts *o)
{
	static __u8 frame[TG_MAX_FRAME];
	struct tg_thread th[TG_MAX_THREADS] = {};
	struct trafficgen_bpf *skel = NULL;
	__u32 len, ip_k, l4_k, ifindex;
	__u64 start, end = 0, total = 0;
	int i, ret, prog_fd, hold_fd = -1;

	ifindex = if_nametoindex(o->iface);
	if (!ifindex) {
		ret = -errno;
		fprintf(stderr, "xrl-trafficgen: no interface '%s'%s%s: %s\n", o->iface, o->netns ? " in netns " : "",
			o->netns ? o->netns : "", strerror(-ret));
		return ret;
	}
	ret = build_frame(o, frame, &len, &ip_k, &l4_k);
	if (ret) {
		fprintf(stderr, "xrl-trafficgen: frame of %u bytes: at most %d\n", o->size, TG_MAX_FRAME);
		return ret;
	}
	skel = open_gen(o, ifindex, ip_k, l4_k);
	if (!skel || trafficgen_bpf__load(skel)) {
		ret = -errno;
		fprintf(stderr,
			"xrl-trafficgen: loading the generator program failed: %s (run as root; -v shows the verifier log)\n",
			strerror(-ret));
		goto out;
	}
	ret = set_slots(bpf_map__fd(skel->maps.tg_cpus), o);
	if (ret) {
		fprintf(stderr, "xrl-trafficgen: setting the per-CPU slots failed: %s\n", strerror(-ret));
		goto out;
	}
	prog_fd = bpf_program__fd(skel->progs.xdp_trafficgen);
	if (o->hold) {
		hold_fd = hold_dispatcher(prog_fd, o->hold);
		if (hold_fd < 0) {
			ret = hold_fd;
			goto out;
		}
	}

	start = now_ns() + 20 * 1000 * 1000; /* every thread set up and pinned by then */
	if (o->at_period)
		start = next_phase(start, o->at_period, o->at_phase);
	for (i = 0; i < o->ncpus; i++) {
		struct tg_thread *t = &th[i];

		t->cpu = o->cpus[i];
		t->slot = i;
		t->prog_fd = prog_fd;
		t->o = o;
		t->frame = frame;
		t->len = len;
		t->rate = o->rate / o->ncpus;
		t->start_ns = start;
		t->deadline_ns = o->seconds > 0 ? start + (__u64)(o->seconds * 1e9) : 0;
		t->quota = o->count / (__u64)o->ncpus + ((__u64)i < o->count % (__u64)o->ncpus);
		if (o->count && !t->quota)
			continue;
		ret = -pthread_create(&t->tid, NULL, sender, t);
		if (ret) {
			fprintf(stderr, "xrl-trafficgen: starting the thread for CPU %d failed: %s\n", t->cpu,
				strerror(-ret));
			tg_stop = 1;
			break;
		}
	}
	for (i = 0; i < o->ncpus; i++) {
		if (!th[i].tid)
			continue;
		pthread_join(th[i].tid, NULL);
		total += th[i].sent;
		if (th[i].end_ns > end)
			end = th[i].end_ns;
		if (th[i].err && !ret) {
			ret = th[i].err;
			fprintf(stderr, "xrl-trafficgen: CPU %d: %s failed: %s%s\n", th[i].cpu,
				ret == -EINVAL && th[i].sent == 0 ? "pinning or BPF_PROG_TEST_RUN" :
								    "BPF_PROG_TEST_RUN",
				strerror(-ret),
				ret == -EINVAL ? " (is the CPU online? live frames need Linux 5.18+)" : "");
		}
	}
	if (end < start)
		end = start;

	if (o->json) {
		json_t *cpus = json_array(), *root;

		for (i = 0; i < o->ncpus; i++)
			json_array_append_new(cpus,
					      json_pack("{s:i,s:I}", "cpu", th[i].cpu, "sent", (json_int_t)th[i].sent));
		root = json_pack("{s:I,s:f,s:f,s:I,s:I,s:i,s:i,s:o,s:b}", "sent", (json_int_t)total, "seconds",
				 (double)(end - start) / 1e9, "pps",
				 end > start ? (double)total * 1e9 / (double)(end - start) : 0.0, "start_ns",
				 (json_int_t)start, "end_ns", (json_int_t)end, "frame_bytes", (int)len, "sources",
				 (int)o->nsrc, "cpus", cpus, "ok", ret == 0);
		json_dumpf(root, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(root);
	} else {
		printf("sent %llu frames of %u bytes in %.3f s: %.3f Mpps\n", (unsigned long long)total, len,
		       (double)(end - start) / 1e9, end > start ? (double)total * 1e3 / (double)(end - start) : 0.0);
		for (i = 0; i < o->ncpus; i++)
			printf("  cpu %d: %llu\n", th[i].cpu, (unsigned long long)th[i].sent);
	}
out:
	if (hold_fd >= 0)
		close(hold_fd);
	trafficgen_bpf__destroy(skel);
	return ret;
}

/* The program to measure, as an fd the caller closes. */
static int cost_target(const char *target, struct xdp_bare_bpf **bare)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	int fd, pfd;

	if (!strcmp(target, "drop") || !strcmp(target, "pass")) {
		*bare = xdp_bare_bpf__open_and_load();
		if (!*bare)
			return -errno;
		return dup(bpf_program__fd(!strcmp(target, "drop") ? (*bare)->progs.xdp_drop_all :
								     (*bare)->progs.xdp_pass_all));
	}
	if (!strncmp(target, "id:", 3)) {
		fd = bpf_prog_get_fd_by_id((__u32)strtoul(target + 3, NULL, 10));
		return fd < 0 ? -errno : fd;
	}
	if (!strncmp(target, "prog:", 5)) {
		fd = bpf_obj_get(target + 5);
		return fd < 0 ? -errno : fd;
	}
	if (strncmp(target, "link:", 5))
		return -EINVAL;
	fd = bpf_obj_get(target + 5);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		pfd = -errno;
		close(fd);
		return pfd;
	}
	close(fd);
	pfd = bpf_prog_get_fd_by_id(info.prog_id);
	return pfd < 0 ? -errno : pfd;
}

static int run_cost(struct tg_opts *o)
{
	static __u8 frame[TG_MAX_FRAME];
	struct xdp_bare_bpf *bare = NULL;
	struct trafficgen_bpf *skel = NULL;
	__u32 len, ip_k, l4_k, zero = 0;
	int ret, tfd, jmp_fd;
	cpu_set_t set;
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	ret = build_frame(o, frame, &len, &ip_k, &l4_k);
	if (ret)
		return ret;
	tfd = cost_target(o->cost, &bare);
	if (tfd < 0) {
		fprintf(stderr,
			"xrl-trafficgen: no program to measure from '%s': %s (drop, pass, link:PATH, prog:PATH or id:N)\n",
			o->cost, strerror(-tfd));
		ret = tfd;
		goto out;
	}
	o->ncpus = 1; /* test runs are on one CPU: the first one listed */
	skel = open_gen(o, 0, ip_k, l4_k);
	if (!skel || trafficgen_bpf__load(skel)) {
		ret = -errno;
		fprintf(stderr, "xrl-trafficgen: loading the shim failed: %s\n", strerror(-ret));
		goto out;
	}
	jmp_fd = bpf_map__fd(skel->maps.tg_jmp);
	if (bpf_map_update_elem(jmp_fd, &zero, &tfd, BPF_ANY)) {
		ret = -errno;
		fprintf(stderr,
			"xrl-trafficgen: putting '%s' in the shim's tail-call map failed: %s (it must be a jited XDP program)\n",
			o->cost, strerror(-ret));
		goto out;
	}
	CPU_ZERO(&set);
	CPU_SET(o->cpus[0], &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ret = -errno;
		fprintf(stderr, "xrl-trafficgen: pinning to CPU %d failed: %s\n", o->cpus[0], strerror(-ret));
		goto out;
	}
	opts.data_in = frame;
	opts.data_size_in = len;
	opts.repeat = (__u32)(o->count ? o->count : 1000000);
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xdp_tg_shim), &opts)) {
		ret = -errno;
		fprintf(stderr, "xrl-trafficgen: BPF_PROG_TEST_RUN of the shim failed: %s\n", strerror(-ret));
		goto out;
	}
	if (o->json)
		printf("{\"target\":\"%s\",\"ns\":%u,\"repeat\":%u,\"retval\":%u,\"sources\":%u,\"cpu\":%d}\n", o->cost,
		       opts.duration, opts.repeat, opts.retval, o->nsrc, o->cpus[0]);
	else
		printf("%s: %u ns per packet over %u runs, last verdict %u\n", o->cost, opts.duration, opts.repeat,
		       opts.retval);
out:
	if (tfd >= 0)
		close(tfd);
	trafficgen_bpf__destroy(skel);
	xdp_bare_bpf__destroy(bare);
	return ret;
}

static int clock_wait(const char *arg)
{
	__u64 period, phase, not_before, t;

	if (parse_period(arg, &period, &phase, &not_before))
		return -EINVAL;
	t = now_ns();
	t = next_phase(t > not_before ? t : not_before, period, phase);
	sleep_until(t);
	printf("%llu\n", (unsigned long long)now_ns());
	return 0;
}

static int default_cpus(struct tg_opts *o)
{
	cpu_set_t set;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	o->ncpus = 0;
	for (c = 0; c < CPU_SETSIZE && o->ncpus < TG_MAX_THREADS; c++)
		if (CPU_ISSET(c, &set))
			o->cpus[o->ncpus++] = c;
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int libbpf_print_all(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	return vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "netns", required_argument, NULL, 'N' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "sources", required_argument, NULL, 's' },
		{ "src", required_argument, NULL, 'S' },
		{ "dst", required_argument, NULL, 'D' },
		{ "dport", required_argument, NULL, 'p' },
		{ "sport", required_argument, NULL, 'P' },
		{ "dst-mac", required_argument, NULL, 'M' },
		{ "size", required_argument, NULL, 'z' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "at", required_argument, NULL, 'a' },
		{ "batch", required_argument, NULL, 'b' },
		{ "hold", required_argument, NULL, 'H' },
		{ "cost", required_argument, NULL, 'C' },
		{ "clock-wait", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "shuffle", no_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_opts o = {
		.nsrc = 1,
		.sport = 40000,
		.nsport = 1,
		.dport = 9,
		.ndport = 1,
		.size = 64,
		.dmac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.smac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
	};
	const char *src = NULL, *dst = NULL;
	int opt, fam = 0, f, ret;
	char *end;

	libbpf_set_print(libbpf_print);
	while ((opt = getopt_long(argc, argv, "i:n:d:r:s:p:c:46jvh", longopts, NULL)) != -1) {
		errno = 0;
		switch (opt) {
		case 'i':
			o.iface = optarg;
			break;
		case 'N':
			o.netns = optarg;
			break;
		case 'n':
			o.count = strtoull(optarg, &end, 10);
			if (*end || errno)
				goto bad;
			break;
		case 'd':
			o.seconds = strtod(optarg, &end);
			if (*end || o.seconds <= 0)
				goto bad;
			break;
		case 'r':
			o.rate = strtod(optarg, &end);
			if (*end || o.rate < 0)
				goto bad;
			break;
		case 'X':
			o.shuffle = true;
			break;
		case 's':
			o.nsrc = (__u32)strtoul(optarg, &end, 10);
			if (*end || errno || !o.nsrc)
				goto bad;
			break;
		case 'S':
			src = optarg;
			break;
		case 'D':
			dst = optarg;
			break;
		case 'p':
			if (parse_range(optarg, &o.dport, &o.ndport))
				goto bad;
			break;
		case 'P':
			if (parse_range(optarg, &o.sport, &o.nsport))
				goto bad;
			break;
		case 'M':
			if (parse_mac(optarg, o.dmac))
				goto bad;
			break;
		case 'z':
			o.size = (__u32)strtoul(optarg, &end, 10);
			if (*end || errno)
				goto bad;
			break;
		case 'c':
			if (parse_cpus(optarg, &o))
				goto bad;
			break;
		case 'a':
			if (parse_period(optarg, &o.at_period, &o.at_phase, NULL))
				goto bad;
			break;
		case 'b':
			o.batch = (__u32)strtoul(optarg, &end, 10);
			if (*end || errno)
				goto bad;
			break;
		case 'H':
			o.hold = optarg;
			break;
		case 'C':
			o.cost = optarg;
			break;
		case 'W':
			if (clock_wait(optarg))
				goto bad;
			return 0;
		case '4':
			fam = AF_INET;
			break;
		case '6':
			fam = AF_INET6;
			break;
		case 'j':
			o.json = true;
			break;
		case 'v':
			libbpf_set_print(libbpf_print_all);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (!o.iface && !o.cost)) {
		usage(stderr);
		return 2;
	}
	if (src) {
		if (parse_addr(src, &o.src, &f) || (fam && f != fam))
			goto bad_addr;
		fam = f;
	}
	if (dst) {
		if (parse_addr(dst, &o.dst, &f) || (fam && f != fam))
			goto bad_addr;
		fam = f;
	}
	o.ipv6 = fam == AF_INET6;
	if (!src)
		parse_addr(o.ipv6 ? "fd00:1::1" : "10.0.0.1", &o.src, &f);
	if (!dst)
		parse_addr(o.ipv6 ? "fd00:77::1" : "192.168.77.1", &o.dst, &f);
	if (!o.ncpus && default_cpus(&o)) {
		fprintf(stderr, "xrl-trafficgen: reading the CPU affinity failed: %s\n", strerror(errno));
		return 1;
	}
	if (!o.count && !o.seconds)
		o.count = 1000000;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = xrl_enter_netns(o.netns);
	if (ret) {
		fprintf(stderr, "xrl-trafficgen: entering netns '%s' failed: %s (does /var/run/netns/%s exist?)\n",
			o.netns, strerror(-ret), o.netns);
		return 1;
	}
	ret = o.cost ? run_cost(&o) : run_send(&o);
	return ret ? 1 : 0;
bad:
	fprintf(stderr, "xrl-trafficgen: bad value '%s' for %s: see --help\n", optarg, argv[optind - 1]);
	return 2;
bad_addr:
	fprintf(stderr, "xrl-trafficgen: --src and --dst must be addresses of one family (and match -4/-6)\n");
	return 2;
}
