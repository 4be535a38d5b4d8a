#!/usr/bin/env python3
# Addresses around IPv4 multicast (224/4) for --seed: multicast sources and destinations,
# unicast addresses a seed scrambles into 224/4, broadcast, class E, in UDP over IPv4, in ARP
# requests and replies, and IPv6 multicast and unicast (see tests/golden/golden.sh).
# Deterministic: python3 craft_seed.py seedmcast.pcap rewrites the checked-in file.
import struct, sys

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

A = bytes.fromhex('02000000000a')
B = bytes.fromhex('02000000000b')
V4 = [(192, 0, 2, 10), (224, 0, 0, 251), (255, 255, 255, 255), (239, 1, 2, 3), (224, 1, 2, 3),
      (240, 0, 0, 1), (100, 0, 0, 1), (10, 1, 2, 3), (172, 16, 5, 4), (8, 8, 8, 8),
      (127, 0, 0, 1), (0, 0, 0, 0), (250, 3, 4, 5), (230, 9, 9, 9), (96, 7, 7, 7)]
V6 = ['ff02000000000000000000000000fb', 'ff0e0000000000000000000000000101',
      '20010db800000000000000000000000a', 'fe800000000000000000000000000001',
      '7f000000000000000000000000000001', '00000000000000000000000000000001']

frames = []
for i, a in enumerate(V4):
    for b in (V4[0], V4[1], V4[2], V4[(i + 5) % len(V4)]):
        udp = struct.pack('!HHHH', 1000 + i, 2000, 12, 0) + b'seed'
        ph = bytes(a) + bytes(b) + struct.pack('!BBH', 0, 17, len(udp))
        udp = udp[:6] + struct.pack('!H', csum(ph + udp) or 0xffff) + udp[8:]
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0, bytes(a), bytes(b))
        ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
        frames.append(B + A + b'\x08\x00' + ip + udp)
for i, a in enumerate(V4):
    op = 1 + i % 2
    arp = struct.pack('!HHBBH', 1, 0x0800, 6, 4, op) + A + bytes(a) + B + bytes(V4[(i + 3) % len(V4)])
    frames.append(b'\xff' * 6 + A + b'\x08\x06' + arp + b'\0' * 18)
for i, s in enumerate(V6):
    s = bytes.fromhex(s.ljust(32, '0'))
    for d in V6:
        d = bytes.fromhex(d.ljust(32, '0'))
        udp = struct.pack('!HHHH', 3000 + i, 4000, 12, 0) + b'seed'
        ph = s + d + struct.pack('!IxxxB', len(udp), 17)
        udp = udp[:6] + struct.pack('!H', csum(ph + udp) or 0xffff) + udp[8:]
        ip6 = struct.pack('!IHBB', 0x60000000, len(udp), 17, 64) + s + d
        frames.append(B + A + b'\x86\xdd' + ip6 + udp)

with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, p in enumerate(frames):
        f.write(struct.pack('<IIII', 1000 + i, 0, len(p), len(p)) + p)
