#!/usr/bin/env python3
# Crafted frames for the golden cases against tcprewrite 4.6 (see tests/golden/golden.sh):
# Ethernet padding, a capture cut short, an FCS-like trailer, VLAN, IPv4 and IPv6 fragments,
# L2 broadcast and multicast, IPv6 with a traffic class and flow label, TCP behind an IPv6
# extension header.  Deterministic: python3 craft.py crafted.pcap rewrites the checked-in file.
import struct, sys

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

def mac(s): return bytes(int(x, 16) for x in s.split(':'))
A, B = mac('02:00:00:00:00:0a'), mac('02:00:00:00:00:0b')
BC, MC4, MC6 = mac('ff:ff:ff:ff:ff:ff'), mac('01:00:5e:00:00:fb'), mac('33:33:00:00:00:fb')
S4, D4 = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11])
S6 = bytes.fromhex('20010db80000000000000000' + '0000000a')
D6 = bytes.fromhex('20010db80000000000000000' + '0000000b')

def ip4(proto, payload, src=S4, dst=D4, ident=1, frag=0, tos=0, total=None):
    tl = total if total is not None else 20 + len(payload)
    h = struct.pack('!BBHHHBBH4s4s', 0x45, tos, tl, ident, frag, 64, proto, 0, src, dst)
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload


def udp(sp, dp, payload, src, dst, v6=False):
    ln = 8 + len(payload)
    h = struct.pack('!HHHH', sp, dp, ln, 0) + payload
    ph = src + dst + (struct.pack('!IxxxB', ln, 17) if v6 else struct.pack('!xBH', 17, ln))
    c = csum(ph + h) or 0xffff
    return h[:6] + struct.pack('!H', c) + h[8:]

def tcp(sp, dp, seq, ack, flags, payload, src, dst, v6=False):
    h = struct.pack('!HHIIBBHHH', sp, dp, seq, ack, 5 << 4, flags, 8192, 0, 0) + payload
    ln = len(h)
    ph = src + dst + (struct.pack('!IxxxB', ln, 6) if v6 else struct.pack('!xBH', 6, ln))
    c = csum(ph + h)
    return h[:16] + struct.pack('!H', c) + h[18:]

def ip6(nh, payload, src=S6, dst=D6, tc=0, fl=0):
    return struct.pack('!IHBB', 6 << 28 | tc << 20 | fl, len(payload), nh, 64) + src + dst + payload

def eth(dst, src, et, payload, vlan=None):
    if vlan is not None:
        return dst + src + struct.pack('!HH', 0x8100, vlan) + struct.pack('!H', et) + payload
    return dst + src + struct.pack('!H', et) + payload

frames = []  # (caplen bytes, wirelen)
def add(f, wire=None, pad_to=0):
    if len(f) < pad_to: f = f + b'\0' * (pad_to - len(f))
    frames.append((f, wire if wire else len(f)))

pl = bytes(range(1, 19))
# 1 UDP padded to 60 bytes by Ethernet
add(eth(B, A, 0x0800, ip4(17, udp(1000, 53, b'hi', S4, D4))), pad_to=60)
# 2 TCP ACK padded to 60
add(eth(B, A, 0x0800, ip4(6, tcp(1000, 80, 100, 200, 0x10, b'', S4, D4), ident=2)), pad_to=60)
# 3 TCP data with a 4-byte FCS-like trailer
add(eth(A, B, 0x0800, ip4(6, tcp(80, 1000, 200, 102, 0x18, pl, D4, S4), src=D4, dst=S4, ident=3)) + b'\xde\xad\xbe\xef')
# 4 capture cut short: 100 on the wire, 60 captured
f = eth(B, A, 0x0800, ip4(17, udp(1000, 53, bytes(58), S4, D4), ident=4))
add(f[:60], wire=len(f))
# 5 VLAN IPv4 UDP
add(eth(B, A, 0x0800, ip4(17, udp(1000, 53, pl, S4, D4), ident=5), vlan=7))
# 6,7 IPv4 fragments of one UDP datagram
u = udp(1000, 53, bytes(range(40)), S4, D4)
add(eth(B, A, 0x0800, ip4(17, u[:24], ident=6, frag=0x2000)))
add(eth(B, A, 0x0800, ip4(17, u[24:], ident=6, frag=3)))
# 8 L2 broadcast ARP request
add(eth(BC, A, 0x0806, struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + A + S4 + bytes(6) + D4), pad_to=60)
# 9 L2 broadcast IPv4 UDP to 255.255.255.255
add(eth(BC, A, 0x0800, ip4(17, udp(68, 67, pl, S4, bytes([255] * 4)), dst=bytes([255] * 4), ident=9)))
# 10 L2 multicast IPv4 UDP to 224.0.0.251
add(eth(MC4, A, 0x0800, ip4(17, udp(5353, 5353, pl, S4, bytes([224, 0, 0, 251])), dst=bytes([224, 0, 0, 251]), ident=10)))
# 11 IPv6 UDP with traffic class and flow label
add(eth(B, A, 0x86dd, ip6(17, udp(1000, 53, pl, S6, D6, v6=True), tc=0xb8, fl=0x12345)))
# 12 IPv6 TCP with a 4-byte trailer
add(eth(A, B, 0x86dd, ip6(6, tcp(80, 1000, 7, 9, 0x18, pl, D6, S6, v6=True), src=D6, dst=S6)) + b'\xde\xad\xbe\xef')
# 13 IPv6 multicast UDP (L2 33:33)
M6 = bytes.fromhex('ff0200000000000000000000000000fb')
add(eth(MC6, A, 0x86dd, ip6(17, udp(5353, 5353, pl, S6, M6, v6=True), dst=M6)))
# 14,15 IPv6 fragments (fragment header) of one UDP datagram
u = udp(1000, 53, bytes(range(40)), S6, D6, v6=True)
fh = lambda off, m: struct.pack('!BBHI', 17, 0, off << 3 | m, 0x1234)
add(eth(B, A, 0x86dd, ip6(44, fh(0, 1) + u[:24])))
add(eth(B, A, 0x86dd, ip6(44, fh(3, 0) + u[24:])))
# 16 VLAN IPv6 TCP SYN
add(eth(B, A, 0x86dd, ip6(6, tcp(1000, 80, 0xfffffff0, 5, 0x02, b'', S6, D6, v6=True), tc=1, fl=1), vlan=9))
# 17 IPv6 hop-by-hop options header (a PadN option), then TCP
hbh = struct.pack('!BB', 6, 0) + bytes([1, 4, 0, 0, 0, 0])
add(eth(B, A, 0x86dd, ip6(0, hbh + tcp(1000, 80, 5, 6, 0x10, b'abcd', S6, D6, v6=True))))

out = open(sys.argv[1], 'wb')
out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
for i, (f, w) in enumerate(frames):
    out.write(struct.pack('<IIII', 1704067200 + i, 1000 * i, len(f), w) + f)
