# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the frames end-to-end tests send raw (build/xrl-rawsend) share: the Internet checksum,
an Ethernet header, an IPv4 header. A script's python3 finds it with PYTHONPATH=$ROOT/tests/e2e
(attacks.sh, proto_rules.sh, crafted_frames.sh)."""
import socket
import struct


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def eth(smac, dmac, ethertype=0x0800):
    """An Ethernet header from smac to dmac, both written aa:bb:cc:dd:ee:ff."""
    return bytes.fromhex(dmac.replace(":", "")) + bytes.fromhex(smac.replace(":", "")) + struct.pack("!H", ethertype)


def ip4(src, dst, proto, payload, frag=0):
    """An IPv4 packet from src to dst (dotted): TTL 64, ID 0x4242, frag the flags and offset."""
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0x4242, frag, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload
