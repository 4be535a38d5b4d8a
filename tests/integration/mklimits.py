#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Crafted traces for t_limits.sh (the pipeline's frame limit), written into DIR:
#   raw-cap.pcap       RAW: an IPv4 packet of 262144 bytes (the readers' cap), then a small one
#   raw-cap.pcapng     the same two packets in pcapng (IDB link type RAW, two EPBs)
#   vlan-wire.pcap     Ethernet 802.1Q + IPv4, 100 bytes captured, wire lengths 262145..262148
#   wire-top.pcap      Ethernet + IPv4, 60 bytes captured, wire length 2^32 - 1
#   null-wire-top.pcap NULL (BSD loopback) + IPv4, wire length 2^32 - 1
#   ipopt.pcap         Ethernet + IPv4 with a 4-byte option (24-byte header), 100 bytes
#   bad-first.erf      ERF: a first record whose length (8) is shorter than its header
#   payload.pcap       Ethernet + IPv4 + UDP, 3 packets of 1000 bytes (for the sidecar)
# Usage: mklimits.py DIR
import struct
import sys

out = sys.argv[1]
ETH = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1])


def ipv4(total, opts=b''):
    ihl = (20 + len(opts)) // 4
    h = bytes([0x40 | ihl, 0]) + struct.pack('>H', min(total, 0xffff)) + bytes([0, 1, 0, 0, 64, 17, 0, 0,
                                                                              10, 0, 0, 1, 10, 0, 0, 2]) + opts
    return h + struct.pack('>HHHH', 1000, 53, max(8, min(total - len(h), 0xffff)), 0)


def pcap(lt, recs, snap=262144):
    b = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, snap, lt)
    for i, (data, wire) in enumerate(recs):
        b += struct.pack('<IIII', 1 + i, 0, len(data), wire) + data
    return b


def block(t, body):
    n = 12 + len(body) + (-len(body) % 4)
    return struct.pack('<II', t, n) + body + bytes(-len(body) % 4) + struct.pack('<I', n)


def pcapng(lt, recs):
    b = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    b += block(1, struct.pack('<HHI', lt, 0, 0))
    for i, (data, wire) in enumerate(recs):
        b += block(6, struct.pack('<IIIII', 0, 0, 1 + i, len(data), wire) + data)
    return b


def write(name, data):
    with open(f'{out}/{name}', 'wb') as f:
        f.write(data)


big = ipv4(262144)
big += bytes(262144 - len(big))
small = ipv4(128)
small += bytes(128 - len(small))
write('raw-cap.pcap', pcap(101, [(big, len(big)), (small, len(small))]))
write('raw-cap.pcapng', pcapng(101, [(big, len(big)), (small, len(small))]))

tagged = ETH + bytes([0x81, 0, 0, 7, 8, 0]) + ipv4(0xffff)
tagged += bytes(100 - len(tagged))
write('vlan-wire.pcap', pcap(1, [(tagged, 262144 + k) for k in range(1, 5)]))

eth = ETH + bytes([8, 0]) + ipv4(46)
eth += bytes(60 - len(eth))
write('wire-top.pcap', pcap(1, [(eth, 0xffffffff)]))
null = struct.pack('<I', 2) + ipv4(46)
null += bytes(50 - len(null))
write('null-wire-top.pcap', pcap(0, [(null, 0xffffffff)]))

opt = ETH + bytes([8, 0]) + ipv4(86, opts=bytes([1, 1, 1, 0]))
opt += bytes(100 - len(opt))
write('ipopt.pcap', pcap(1, [(opt, len(opt))]))

# ERF: ts (LE 32.32), type 2 (Ethernet), flags 4 (varlen), rlen 8, lctr 0, wlen 64.
erf = struct.pack('<Q', 1700000000 << 32) + bytes([2, 4]) + struct.pack('>HHH', 8, 0, 64) + bytes(64)
write('bad-first.erf', erf)

pkts = []
for i in range(3):
    p = ETH + bytes([8, 0]) + ipv4(1000 - 14)
    p += bytes((i * 7 + k) & 0xff for k in range(1000 - len(p)))
    pkts.append((p, len(p)))
write('payload.pcap', pcap(1, pkts))
