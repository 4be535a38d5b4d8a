#!/usr/bin/env python3
# Frames for --enet-dmac's multicast group MACs and --skipl2broadcast against
# tcprewrite 4.6 (tests/meson.build, golden cases l2group-*): IP multicast
# destinations behind unicast MACs (IPv4, IPv6, under a VLAN tag, a later
# fragment, one cut before its destination), broadcast and multicast MACs
# of every kind on ARP and IP.  Deterministic: python3 craft_l2group.py
# l2group.pcap rewrites the checked-in file.
import struct, sys

A, B = bytes.fromhex('02000000000a'), bytes.fromhex('02000000000b')
S4, D4 = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11])
S6 = bytes.fromhex('20010db800000000000000000000000a')

def ip4(payload, dst=D4, frag=0):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 1, frag, 64, 17, 0, S4, dst)
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload

def ip6(payload, dst):
    return struct.pack('!IHBB16s16s', 0x60000000, len(payload), 17, 64, S6, dst) + payload

def csum(b):
    if len(b) % 2: b += b'\0'
    v = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while v >> 16: v = (v & 0xffff) + (v >> 16)
    return (~v) & 0xffff

def udp(src, dst):
    h = struct.pack('!HHHH', 1, 2, 12, 0) + b'abcd'
    ph = src + dst + (struct.pack('!IxxxB', 12, 17) if len(src) == 16 else struct.pack('!xBH', 17, 12))
    return h[:6] + struct.pack('!H', csum(ph + h) or 0xffff) + h[8:]
def eth(t, payload, d=B, s=A): return d + s + struct.pack('!H', t) + payload
M = bytes.fromhex
ARP = b'\0' * 28
frames = [
    eth(0x86dd, ip6(udp(S6, M('ff020000000000000000000000012345')), M('ff020000000000000000000000012345'))),
    eth(0x86dd, ip6(udp(S6, M('ff0e0000000000000000000080000001')), M('ff0e0000000000000000000080000001')), d=M('333300000001')),
    eth(0x86dd, ip6(udp(S6, M('20010db800000000000000000000000b')), M('20010db800000000000000000000000b')), d=M('333300000001')),
    eth(0x0800, ip4(udp(S4, bytes([224, 1, 2, 3])), bytes([224, 1, 2, 3]))),
    eth(0x0800, ip4(udp(S4, bytes([239, 129, 2, 3])), bytes([239, 129, 2, 3])), d=M('01005e010203')),
    eth(0x0800, ip4(udp(S4, bytes([240, 1, 2, 3])), bytes([240, 1, 2, 3]))),
    eth(0x0800, ip4(udp(S4, bytes([255, 255, 255, 255])), bytes([255, 255, 255, 255]))),
    eth(0x0800, ip4(udp(S4, D4)), d=M('ffffffffffff')),
    eth(0x0800, ip4(udp(S4, D4)), d=M('01005e000001')),
    eth(0x0800, ip4(udp(S4, D4)), s=M('ffffffffffff')),
    eth(0x8100, struct.pack('!HH', 5, 0x86dd) + ip6(udp(S6, M('ff020000000000000000000000012345')), M('ff020000000000000000000000012345'))),
    eth(0x0800, ip4(udp(S4, bytes([224, 1, 2, 3])), bytes([224, 1, 2, 3]))[:17]),
    eth(0x0800, ip4(udp(S4, bytes([224, 1, 2, 3])), bytes([224, 1, 2, 3]), frag=0x0002)),
    eth(0x0806, ARP, d=M('ffffffffffff')),
    eth(0x0806, ARP, d=M('01005e000001')),
    eth(0x0806, ARP, d=M('01005e800001')),
    eth(0x0806, ARP, d=M('01005f000001')),
    eth(0x0806, ARP, d=M('030000000000')),
    eth(0x0806, ARP, d=M('333300000001')),
    eth(0x0806, ARP, d=M('ffffffffff00')),
    eth(0x0806, ARP, d=M('0180c200000e')),
    eth(0x0806, ARP, s=M('01005e000001')),
]
out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
for i, fr in enumerate(frames):
    out.append(struct.pack('<IIII', 1704067200 + i, 0, len(fr), len(fr)) + fr)
open(sys.argv[1] if len(sys.argv) > 1 else 'l2group.pcap', 'wb').write(b''.join(out))
