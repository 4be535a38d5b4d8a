#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# The traces of t_fragroute.sh's option cases: IPv4 frames each followed by
# 40 bytes of Ethernet trailer.  tcprewrite 4.6 gives fragroute's option
# modules no room past a frame's end, so it adds an option only where the
# frame's trailer makes room; over these it writes what fragroute means.
# opt-tcp4.pcap: TCP only (tcp_opt); opt-ip4.pcap: TCP, UDP, ICMP and an
# IPv4 header with an option of its own (ip_opt).  Deterministic:
# python3 craft-opt.py DIR rewrites the checked-in files.
import os, struct, sys

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

A, B = bytes.fromhex('02000000000a'), bytes.fromhex('02000000000b')
S, D = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11])
TRAILER = bytes(40)

def ip4(proto, pay, ident, opts=b''):
    hl = 20 + len(opts)
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | hl // 4, 0, hl + len(pay), ident, 0x4000, 64, proto, 0, S, D) + opts
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + pay

def tcp(seq, ack, flags, data, opts=b''):
    h = struct.pack('!HHIIBBHHH', 40000, 80, seq, ack, (20 + len(opts)) // 4 << 4, flags, 8192, 0, 0) + opts + data
    c = csum(S + D + struct.pack('!xBH', 6, len(h)) + h)
    return h[:16] + struct.pack('!H', c) + h[18:]

def udp(data):
    h = struct.pack('!HHHH', 5353, 53, 8 + len(data), 0) + data
    return h[:6] + struct.pack('!H', csum(S + D + struct.pack('!xBH', 17, len(h)) + h) or 0xffff) + h[8:]

def icmp(data):
    h = struct.pack('!BBHHH', 8, 0, 0, 7, 1) + data
    return h[:2] + struct.pack('!H', csum(h)) + h[4:]

def frame(ip): return B + A + b'\x08\x00' + ip + TRAILER

SYN_OPTS = bytes.fromhex('020405b4' '0402' '080a0000000100000000' '01' '030307')
TS_OPTS = bytes.fromhex('0101080a0000000200000001')
TCP = [
    frame(ip4(6, tcp(1000, 0, 0x02, b'', SYN_OPTS), 1)),
    frame(ip4(6, tcp(1001, 5001, 0x10, bytes(range(30))), 2)),
    frame(ip4(6, tcp(1031, 5001, 0x18, bytes(range(100, 200)), TS_OPTS), 3)),
]
IP = TCP + [
    frame(ip4(17, udp(bytes(range(20))), 4)),
    frame(ip4(1, icmp(bytes(range(16))), 5)),
    # Record Route with room for one address (RFC 791), and a NOP: 8 bytes of options.
    frame(ip4(17, udp(b'rr'), 6, bytes.fromhex('070704000000' '0001'))),
]

def write(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 1704067200 + i, 1000 * i, len(fr), len(fr)) + fr)

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
write(os.path.join(out, 'opt-tcp4.pcap'), TCP)
write(os.path.join(out, 'opt-ip4.pcap'), IP)
