#!/usr/bin/env python3
# Frames for tcprewrite 4.6's layer-2 behaviour around other edits (tests/meson.build, golden
# cases l2edit-*): IP multicast destinations and sources behind unicast MACs (the group MAC
# tcpedit gives a destination after any edit), frames with a tcpedit soft error that every
# edit must leave as they are (802.3/LLC, tagged or not; 14 and 18 bytes; IPv6 extension
# headers past the capture; AH cut short), an IPv4 header with IHL 4, and plain unicast
# frames for --enet-subsmac.  Deterministic: python3 craft_l2edit.py l2edit.pcap rewrites
# the checked-in file.
import struct, sys

M = bytes.fromhex
A, B, C = M('02000000000a'), M('02000000000b'), M('02000000000c')
S4, D4, G4 = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11]), bytes([239, 129, 2, 3])
S6, D6 = M('20010db800000000000000000000000a'), M('20010db800000000000000000000000b')
G6 = M('ff0e0000000000000000000080000001')

def csum(b):
    if len(b) % 2: b += b'\0'
    v = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while v >> 16: v = (v & 0xffff) + (v >> 16)
    return (~v) & 0xffff

def udp(src, dst, data=b'abcd'):
    ln = 8 + len(data)
    h = struct.pack('!HHHH', 1000, 2000, ln, 0) + data
    ph = src + dst + (struct.pack('!IxxxB', ln, 17) if len(src) == 16 else struct.pack('!xBH', 17, ln))
    return h[:6] + struct.pack('!H', csum(ph + h) or 0xffff) + h[8:]

def ip4(payload, src=S4, dst=D4, ihl=5):
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, 20 + len(payload), 1, 0, 64, 17, 0, src, dst)
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload

def ip6(nh, payload, src=S6, dst=D6):
    return struct.pack('!IHBB16s16s', 0x60000000, len(payload), nh, 64, src, dst) + payload

def eth(t, payload, d=B, s=A): return d + s + struct.pack('!H', t) + payload
def tag(vid, t): return struct.pack('!HH', vid, t)
STP = b'\x42\x42\x03' + b'\x00' * 35
frames = [
    eth(0x0800, ip4(udp(S4, G4), dst=G4)),                       # 1 IPv4 multicast destination
    eth(0x86dd, ip6(17, udp(S6, G6), dst=G6)),                    # 2 IPv6 multicast destination
    eth(0x0800, ip4(udp(G4, D4), src=G4)),                        # 3 IPv4 multicast source
    eth(0x86dd, ip6(17, udp(G6, D6), src=G6)),                    # 4 IPv6 multicast source
    eth(0x8100, tag(5, 0x0800) + ip4(udp(S4, G4), dst=G4)),       # 5 tagged, multicast destination
    eth(0x0800, ip4(udp(S4, G4), dst=G4), d=M('ffffffffffff')),   # 6 multicast behind broadcast MAC
    eth(0x0026, STP, d=M('0180c2000000')),                        # 7 802.3/LLC (STP)
    eth(0x8100, tag(5, 0x0026) + STP, d=M('0180c2000000')),       # 8 tagged 802.3/LLC
    eth(0x0806, b''),                                             # 9 14 bytes
    eth(0x0806, b'\x00\x01\x08\x00'),                             # 10 18 bytes
    eth(0x8100, tag(5, 0x0806)),                                  # 11 tagged, 18 bytes
    eth(0x86dd, ip6(0, b'\x11\x05' + b'\x01' * 6))[:14 + 44],     # 12 hop-by-hop past the capture
    eth(0x86dd, ip6(51, b'\x11\x04' + b'\x00' * 6)),              # 13 AH cut short of its length
    eth(0x86dd, ip6(60, b'\x11\x02' + b'\x01' * 6))[:14 + 48],    # 14 destination options past the capture
    eth(0x0800, ip4(udp(S4, D4), ihl=4)),                         # 15 IHL 4
    eth(0x0800, ip4(udp(S4, D4))),                                # 16 unicast A > B
    eth(0x0800, ip4(udp(D4, S4)), d=A, s=B),                      # 17 unicast B > A
    eth(0x86dd, ip6(17, udp(S6, D6)), d=C),                       # 18 unicast A > C
]
out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
for i, fr in enumerate(frames):
    out.append(struct.pack('<IIII', 1704067200 + i, 0, len(fr), len(fr)) + fr)
open(sys.argv[1], 'wb').write(b''.join(out))
