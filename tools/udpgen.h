/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Paced UDP traffic from chosen source addresses, and a counting receiver: for the demo and tests. */
#ifndef XRL_UDPGEN_H
#define XRL_UDPGEN_H

#include <stdio.h>
#include <linux/types.h>

/* The largest payload a datagram carries: a 1500-byte IPv4 packet's. */
#define XRL_UDP_MAX_PAYLOAD 1472

struct xrl_udp_flow {
	const char *netns; /* name under /var/run/netns, or NULL for the current one */
	const char *src;   /* source address (must be configured there) */
	const char *dst;
	__u16 port;
	double pps;	/* packets per second; 0 means as fast as possible */
	double seconds; /* how long; stops earlier after count packets if count > 0 */
	__u64 count;
	__u32 size; /* payload bytes a datagram (at most XRL_UDP_MAX_PAYLOAD); 0: 32 */
	__u64 sent; /* out: datagrams the kernel accepted */
};

int xrl_udp_send(struct xrl_udp_flow *f);

/*
 * Counts datagrams arriving on port for seconds. With announce, prints "ready"
 * once the port is bound, for a script to start its senders on.
 */
int xrl_udp_recv(const char *netns, const char *addr, __u16 port, double seconds, int announce, FILE *times,
		 __u64 *count);

/* Moves the calling thread into a named network namespace. */
int xrl_enter_netns(const char *name);

#endif /* XRL_UDPGEN_H */
