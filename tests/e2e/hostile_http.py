#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Hostile HTTP clients for tests/e2e/metrics_hostile.sh, on the loopback.

hostile_http.py flood HOST PORT SECONDS
    50 connections from 127.0.0.1 (a scraper's address too), a third of them
    sending a partial request line and stalling, a third trickling a byte of a
    header every second, a third connecting and sending nothing. Prints
    "ready N" once N are connected, then after SECONDS one line a kind:
    "KIND opened N closed C last T", C the connections the server closed and T
    the most seconds one of them lived, from connected to closed (-1: none).
hostile_http.py idle HOST PORT SRC N ADDRS
    N idle connections, one after the other, the i-th from address SRC + i % ADDRS
    (IPv4 or IPv6); prints "closed C of N, the first F" once 1 s has passed, C
    those the server closed (or refused) meanwhile, F how many of them were
    among the first C opened.
hostile_http.py slow HOST PORT SRC ADDRS PER SECONDS
    PER connections from each of ADDRS addresses from SRC on, each sending a
    request head that never ends, a byte every 2 s; one the server closes is
    opened again within half a second. Prints "ready N" once each has
    connected or been refused (10 s at most; N: those that were), then runs until SIGTERM or SECONDS, and prints "opened O
    dropped D open N longest T": O connections made in all, D those the server
    closed, N open at the end, T the most seconds one lived (closed or not).
hostile_http.py garbage HOST PORT
    Sends binary bytes (a TLS ClientHello's first) where the request line
    goes; prints "STATUS T", the status the server answered (0: none) and
    the seconds until it closed the connection (5 s at most).
hostile_http.py pipeline HOST PORT N
    N GET requests of HOST's /metrics in one write; prints "answers A status S
    close C eof E", A the answers read, S the first's status, C whether it
    said Connection: close, E whether the server closed the connection (3 s at
    most), each answer read whole by its Content-Length.
hostile_http.py big HOST PORT SIZE
    A GET with a header of SIZE bytes; prints the answer's status code (0: none).
"""
import ipaddress
import resource
import select
import signal
import socket
import sys
import time

# The partial head the slow clients send, then trickle a byte of.
SLOW_HEAD = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def connect(host, port, src, timeout=2.0):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(timeout)
    try:
        s.connect((host, port))
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


def gone(s):
    """True when the server closed s (EOF or reset); reads what it sent."""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def flood(host, port, seconds):
    kinds = ("partial", "trickle", "idle")
    conns = []  # [kind, socket, seconds it lived, connected at]
    start = time.monotonic()
    for i in range(50):
        s = connect(host, port, "127.0.0.1")
        kind = kinds[i % 3]
        if s is None:
            conns.append([kind, None, None, 0.0])
            continue
        try:
            if kind == "partial":
                s.send(b"GET /metr")
            elif kind == "trickle":
                s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        except OSError:
            pass
        conns.append([kind, s, None, time.monotonic()])
    print("ready %d" % sum(1 for c in conns if c[1] is not None), flush=True)
    next_trickle = time.monotonic() + 1.0
    end = start + seconds
    while time.monotonic() < end:
        live = [c for c in conns if c[1] is not None and c[2] is None]
        now = time.monotonic()
        r, _, _ = select.select([c[1] for c in live], [], [], max(0.0, min(next_trickle, end) - now))
        now = time.monotonic()
        for c in live:
            if c[1] in r and gone(c[1]):
                c[2] = now - c[3]
        if now >= next_trickle:
            next_trickle = now + 1.0
            for c in live:
                if c[0] == "trickle" and c[2] is None:
                    try:
                        c[1].send(b"a")
                    except OSError:
                        c[2] = now - c[3]
    for kind in kinds:
        mine = [c for c in conns if c[0] == kind]
        closed = [c[2] for c in mine if c[1] is not None and c[2] is not None]
        print("%s opened %d closed %d last %.1f" % (kind, sum(1 for c in mine if c[1] is not None),
                                                    len(closed), max(closed) if closed else -1))


def idle(host, port, src, n, addrs):
    base = ipaddress.ip_address(src)
    conns = [connect(host, port, str(base + i % addrs)) for i in range(n)]
    time.sleep(1)
    closed = [s is None or gone(s) for s in conns]
    c = sum(closed)
    print("closed %d of %d, the first %d" % (c, n, sum(closed[:c])))


def slow(host, port, src, addrs, per, seconds):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = addrs * per + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    base = ipaddress.ip_address(src)
    slots = [str(base + i % addrs) for i in range(addrs * per)]
    conns = {}  # fd: [socket, slot, connected at (None: connecting), next byte at]
    free = list(range(len(slots)))
    opened = dropped = 0
    longest = 0.0
    was = set()  # the slots connected once
    poll = select.poll()

    def open_slot(i, now):
        nonlocal opened
        s = socket.socket(family(host), socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((slots[i], 0))
            s.connect_ex((host, port))
        except OSError:
            s.close()
            return False
        conns[s.fileno()] = [s, i, None, now]
        poll.register(s.fileno(), select.POLLOUT)
        opened += 1
        return True

    def close_slot(fd, now, by_server):
        nonlocal dropped, longest
        s, i, at, _ = conns.pop(fd)
        poll.unregister(fd)
        s.close()
        if at is not None:
            longest = max(longest, now - at)
        dropped += by_server
        free.append(i)

    start = time.monotonic()
    end = start + seconds
    ready = False
    next_open = start
    while not stop and time.monotonic() < end:
        now = time.monotonic()
        if now >= next_open:  # at most every half second: a server that drops them is not spun on
            next_open = now + 0.5
            retry = []
            while free:
                i = free.pop()
                if not open_slot(i, now):
                    retry.append(i)
            free.extend(retry)
        if not ready and (len(was) == len(slots) or now - start >= 10):
            print("ready %d" % len(was), flush=True)
            ready = True
        for fd, ev in poll.poll(100):
            c = conns.get(fd)
            if c is None:
                continue
            now = time.monotonic()
            if c[2] is None:
                if c[0].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    was.add(c[1])  # refused (or reset on its accept): tried
                    close_slot(fd, now, False)
                    continue
                c[2] = now
                was.add(c[1])
                try:
                    c[0].send(SLOW_HEAD)
                except OSError:
                    close_slot(fd, now, True)
                    continue
                c[3] = now + 2.0
                poll.modify(fd, select.POLLIN)
            elif ev & (select.POLLIN | select.POLLHUP | select.POLLERR) and gone(c[0]):
                close_slot(fd, now, True)
        now = time.monotonic()
        for fd, c in list(conns.items()):
            if c[2] is not None and now >= c[3]:
                c[3] = now + 2.0
                try:
                    c[0].send(b"a")
                except OSError:
                    close_slot(fd, now, True)
    now = time.monotonic()
    live = [c for c in conns.values() if c[2] is not None]
    for c in live:
        longest = max(longest, now - c[2])
    if not ready:
        print("ready %d" % len(was), flush=True)
    print("opened %d dropped %d open %d longest %.1f" % (opened, dropped, len(live), longest), flush=True)


def read_answer(s, buf, deadline):
    """One answer from s after what buf holds: (status, headers, rest) or None."""
    while b"\r\n\r\n" not in buf:
        d = recv_until(s, deadline)
        if not d:
            return None
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        headers[k.strip().lower()] = v.strip().lower()
    length = int(headers.get(b"content-length", b"0"))
    while len(rest) < length:
        d = recv_until(s, deadline)
        if not d:
            return None
        rest += d
    return status, headers, rest[length:]


def recv_until(s, deadline):
    """What s has next, b"" at its end or at the deadline."""
    s.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        return s.recv(65536)
    except OSError:
        return b""


def garbage(host, port):
    s = socket.create_connection((host, port), timeout=5)
    start = time.monotonic()
    s.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]) + bytes(range(0x80, 0xa0)))
    data = b""
    while True:
        d = recv_until(s, start + 5)
        if not d:
            break
        data += d
    parts = data.split(b" ", 2)
    status = int(parts[1]) if data.startswith(b"HTTP/1.") and parts[1].isdigit() else 0
    print("%d %.1f" % (status, time.monotonic() - start))


def pipeline(host, port, n):
    s = socket.create_connection((host, port), timeout=5)
    deadline = time.monotonic() + 3
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n" % host.encode() * n)
    answers, first, buf = [], None, b""
    while True:
        a = read_answer(s, buf, deadline)
        if a is None:
            break
        answers.append(a)
        buf = a[2]
    eof = not buf and recv_until(s, deadline) == b"" and time.monotonic() < deadline
    first = answers[0] if answers else (0, {}, b"")
    print("answers %d status %d close %s eof %s" % (len(answers), first[0],
                                                    "yes" if first[1].get(b"connection") == b"close" else "no",
                                                    "yes" if eof else "no"))


def big(host, port, size):
    s = socket.create_connection((host, port), timeout=5)
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n"
    data = b""
    try:
        s.sendall(req)
    except OSError:
        pass  # the server may answer and close before it has read it all
    try:
        while b"\r\n" not in data:
            d = s.recv(4096)
            if not d:
                break
            data += d
    except OSError:
        pass
    parts = data.split(b" ", 2)
    print(int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "flood" and len(a) == 4:
        flood(a[1], int(a[2]), float(a[3]))
    elif a and a[0] == "idle" and len(a) == 6:
        idle(a[1], int(a[2]), a[3], int(a[4]), int(a[5]))
    elif a and a[0] == "slow" and len(a) == 7:
        slow(a[1], int(a[2]), a[3], int(a[4]), int(a[5]), float(a[6]))
    elif a and a[0] == "garbage" and len(a) == 3:
        garbage(a[1], int(a[2]))
    elif a and a[0] == "pipeline" and len(a) == 4:
        pipeline(a[1], int(a[2]), int(a[3]))
    elif a and a[0] == "big" and len(a) == 4:
        big(a[1], int(a[2]), int(a[3]))
    else:
        sys.exit(__doc__)
