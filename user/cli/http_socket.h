/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The metrics server's listening socket: from --listen ADDR:PORT, or from systemd. */
#ifndef XRL_CLI_HTTP_SOCKET_H
#define XRL_CLI_HTTP_SOCKET_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * Parses ADDR:PORT (192.0.2.1:9100, [2001:db8::1]:9100, :9100 for every
 * address; port 0 picks a free one). -EINVAL and a sentence in err otherwise.
 */
int http_addr_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t len);

/* A listening TCP socket on ss; -errno and a sentence in err. */
int http_listen(const struct sockaddr_storage *ss, socklen_t sslen, char *err, size_t len);

/*
 * The listening socket systemd passes by socket activation (LISTEN_PID, LISTEN_FDS:
 * the first, fd 3), made non-blocking. -errno and a sentence in err when
 * there is none, or it is not a listening TCP socket.
 */
int http_systemd_socket(char *err, size_t len);

/* The address a socket listens on, as ADDR:PORT (IPv6 in brackets). */
void http_local_name(int fd, char *buf, size_t len);

#endif /* XRL_CLI_HTTP_SOCKET_H */
