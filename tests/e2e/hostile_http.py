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
hostile_http.py one-address HOST PORT SRC N
    N idle connections from SRC; prints "closed C of N" once 2 s have passed,
    C those the server closed (or refused) meanwhile.
hostile_http.py big HOST PORT SIZE
    A GET with a header of SIZE bytes; prints the answer's status code (0: none).
"""
import select
import socket
import sys
import time


def connect(host, port, src, timeout=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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


def one_address(host, port, src, n):
    conns = [connect(host, port, src) for _ in range(n)]
    time.sleep(2)
    closed = sum(1 for s in conns if s is None or gone(s))
    print("closed %d of %d" % (closed, n))


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
    elif a and a[0] == "one-address" and len(a) == 5:
        one_address(a[1], int(a[2]), a[3], int(a[4]))
    elif a and a[0] == "big" and len(a) == 4:
        big(a[1], int(a[2]), int(a[3]))
    else:
        sys.exit(__doc__)
