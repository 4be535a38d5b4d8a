#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""flow_order.py EXPECTED GOT: every frame of EXPECTED arrived in GOT byte for
byte, none missing, doubled or foreign, and within each flow in EXPECTED's
order (frames of different flows may interleave differently).

A flow here is both directions of a connection, as replay's shard key
(replay/flowhash.h) has it, or finer: for IPv4/IPv6 the version, the protocol
and the two endpoints in order, an endpoint being an address and, outside
fragments, its half of the four bytes after the fixed header (the ports of
TCP and UDP); for anything else the two MAC addresses, in order, and the
EtherType.  Up to two
VLAN tags are looked through.  Exit 0 with one line of counts, or 1 naming
the first flow that differs."""
import struct
import sys


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        sys.exit(f"{path}: not a pcap file")
    off = 24
    out = []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        out.append(data[off:off + incl])
        off += incl
    return out


def key(fr):
    if len(fr) < 14:
        return ("short", fr)
    et = struct.unpack(">H", fr[12:14])[0]
    p = 14
    for _ in range(2):
        if et in (0x8100, 0x88A8, 0x9100) and len(fr) >= p + 4:
            et = struct.unpack(">H", fr[p + 2:p + 4])[0]
            p += 4
    ip = fr[p:]
    if et == 0x0800 and len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        frag = struct.unpack(">H", ip[6:8])[0] & 0x3FFF
        ports = b"" if frag else ip[ihl:ihl + 4]
        return ("4", ip[9]) + pair(ip[12:16] + ports[0:2], ip[16:20] + ports[2:4])
    if et == 0x86DD and len(ip) >= 40 and ip[0] >> 4 == 6:
        ports = ip[40:44] if ip[6] != 44 else b""
        return ("6", ip[6]) + pair(ip[8:24] + ports[0:2], ip[24:40] + ports[2:4])
    return ("mac", et) + pair(fr[0:6], fr[6:12])


def pair(a, b):
    """Two endpoints in order: both directions are one flow."""
    return (a, b) if a <= b else (b, a)


def flows(frs):
    d = {}
    for fr in frs:
        d.setdefault(key(fr), []).append(fr)
    return d


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: flow_order.py EXPECTED GOT")
    exp, got = frames(sys.argv[1]), frames(sys.argv[2])
    fe, fg = flows(exp), flows(got)
    for k, seq in fe.items():
        g = fg.get(k, [])
        if g != seq:
            n = next((i for i, (a, b) in enumerate(zip(seq, g)) if a != b), min(len(seq), len(g)))
            print(f"flow {k!r}: {len(seq)} frames expected, {len(g)} arrived; they differ from frame {n}")
            return 1
    extra = [k for k in fg if k not in fe]
    if extra:
        print(f"{len(extra)} flows arrived that were not sent, e.g. {extra[0]!r}")
        return 1
    print(f"{len(exp)} frames in {len(fe)} flows arrived byte-exact, each flow in order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
