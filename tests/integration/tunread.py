#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The far side of a tun device, and what it should get, for t_l3.sh.

  tunread.py read IFNAME OUT     create tun device IFNAME (no packet information
                                 header), print "listening on IFNAME", write every
                                 packet read from it to OUT (a raw-IP pcap) until
                                 SIGTERM and nothing more comes; then print
                                 "N packets B bytes".
  tunread.py expect TRACE OUT    the IP packets a layer-3 interface must be given for
                                 classic pcap TRACE (Ethernet, SLL, SLL2, NULL/LOOP,
                                 raw IP),
                                 written to OUT (a raw-IP pcap); print "IP NOTIP CUT":
                                 packets, records with no IP packet behind the link
                                 header and its VLAN tags, IP packets captured in part.

Its own pcap reading and header walk, deliberately not the project's: a bug in
those cannot hide on both sides of the comparison.
"""
import fcntl
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
LINKTYPE_RAW = 101
TAGS = (0x8100, 0x88A8, 0x9100)


def pcap_header(f):
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_RAW))


def pcap_record(f, data):
    t = time.time()
    f.write(struct.pack("<IIII", int(t), int(t * 1e6) % 1000000, len(data), len(data)))
    f.write(data)


def read(ifname, out):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", ifname.encode(), IFF_TUN | IFF_NO_PI))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    n = b = 0
    with open(out, "wb") as f:
        pcap_header(f)
        print("listening on", ifname, flush=True)
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                pkt = os.read(fd, 65536)
                pcap_record(f, pkt)
                n += 1
                b += len(pkt)
            elif stop:
                break
    print(n, "packets", b, "bytes", flush=True)


def records(path):
    """(link type, data) of each record of a classic pcap, any of the four magics."""
    with open(path, "rb") as f:
        d = f.read()
    magic = struct.unpack("<I", d[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        sys.exit("%s: not a classic pcap" % path)
    lt = struct.unpack(e + "I", d[20:24])[0] & 0xFFFF
    off = 24
    while off + 16 <= len(d):
        caplen = struct.unpack(e + "I", d[off + 8 : off + 12])[0]
        yield lt, d[off + 16 : off + 16 + caplen]
        off += 16 + caplen


def ip_packet(lt, rec):
    """('ip', bytes), ('notip', None) or ('cut', None) for one record."""
    if lt == 1:  # Ethernet: the EtherType at 12
        if len(rec) < 14:
            return "notip", None
        t, o = struct.unpack(">H", rec[12:14])[0], 14
    elif lt == 113:  # Linux cooked: the protocol at 14
        if len(rec) < 16:
            return "notip", None
        t, o = struct.unpack(">H", rec[14:16])[0], 16
    elif lt == 276:  # Linux cooked v2: the protocol first, 20 bytes of header
        if len(rec) < 20:
            return "notip", None
        t, o = struct.unpack(">H", rec[0:2])[0], 20
    elif lt in (0, 108, 101, 228, 229):  # BSD loopback, raw IP: by the IP version
        t, o = None, 4 if lt in (0, 108) else 0
    else:
        sys.exit("link type %d not handled" % lt)
    # VLAN tags: each a TCI, then the next type.
    while t in TAGS:
        if len(rec) < o + 4:
            return "cut", None
        t, o = struct.unpack(">H", rec[o + 2 : o + 4])[0], o + 4
    ip = rec[o:]
    if t is None and ip:
        t = {4: 0x0800, 6: 0x86DD}.get(ip[0] >> 4)
    if t == 0x0800:
        if len(ip) < 20:
            return "cut", None
        n = struct.unpack(">H", ip[2:4])[0]
    elif t == 0x86DD:
        if len(ip) < 40:
            return "cut", None
        n = 40 + struct.unpack(">H", ip[4:6])[0]
    else:
        return "notip", None
    if ip[0] >> 4 != (4 if t == 0x0800 else 6):
        sys.exit("a malformed IP header: not handled")
    if n > len(ip):
        return "cut", None
    return "ip", ip[:n]


def expect(trace, out):
    count = {"ip": 0, "notip": 0, "cut": 0}
    with open(out, "wb") as f:
        pcap_header(f)
        for lt, rec in records(trace):
            kind, pkt = ip_packet(lt, rec)
            count[kind] += 1
            if pkt is not None:
                pcap_record(f, pkt)
    print(count["ip"], count["notip"], count["cut"])


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("read", "expect"):
        sys.exit(__doc__)
    (read if sys.argv[1] == "read" else expect)(sys.argv[2], sys.argv[3])
