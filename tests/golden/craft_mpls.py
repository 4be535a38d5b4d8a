#!/usr/bin/env python3
# Frames under MPLS label stacks for tcprewrite 4.6's edits below them (tests/meson.build,
# golden cases mpls-*): one label and a stack of three, the unicast and multicast EtherTypes
# (0x8847, 0x8848; RFC 5332), IPv4 (with options, fragments, Ethernet padding) and IPv6 (with
# an extension header) as the bottom label's payload, explicit-null labels, a VLAN tag in front
# of the stack, and Ethernet pseudowires (RFC 4448) with the control word (RFC 4385: first
# nibble 0), with a tag inside and without a control word; then what tcpedit 4.6 gives up on
# (label 13, a payload starting with another nibble).  Deterministic: python3 craft_mpls.py
# mpls.pcap rewrites the checked-in file.
import struct, sys

M = bytes.fromhex
A, B = M('00000c00000a'), M('00000c00000b')            # OUIs start with a 0 nibble, as most do
S4, D4, G4 = bytes([192, 0, 2, 10]), bytes([198, 51, 100, 11]), bytes([239, 1, 2, 3])
S6, D6 = M('20010db800000000000000000000000a'), M('20010db80000000000000000000000b0')
G6 = M('ff020000000000000000000000000001')
GM4, GM6 = M('01005e010203'), M('333300000001')

def csum(b):
    if len(b) % 2: b += b'\0'
    v = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while v >> 16: v = (v & 0xffff) + (v >> 16)
    return (~v) & 0xffff

def ph(src, dst, proto, ln):
    return src + dst + (struct.pack('!IxxxB', ln, proto) if len(src) == 16 else struct.pack('!xBH', proto, ln))

def udp(src, dst, data=b'mpls', sp=1000, dp=53):
    ln = 8 + len(data)
    h = struct.pack('!HHHH', sp, dp, ln, 0) + data
    return h[:6] + struct.pack('!H', csum(ph(src, dst, 17, ln) + h) or 0xffff) + h[8:]

def tcp(src, dst, data=b'GET / HTTP/1.0\r\n\r\n', sp=40000, dp=80):
    h = struct.pack('!HHIIBBHHH', sp, dp, 1000, 2000, 5 << 4, 0x18, 8192, 0, 0) + data
    return h[:16] + struct.pack('!H', csum(ph(src, dst, 6, len(h)) + h)) + h[18:]

def icmp(data=b'ping' * 4):
    h = struct.pack('!BBHHH', 8, 0, 0, 7, 1) + data
    return h[:2] + struct.pack('!H', csum(h)) + h[4:]

def icmp6(src, dst, data=b'ping6'):
    h = struct.pack('!BBHHH', 128, 0, 0, 7, 1) + data
    return h[:2] + struct.pack('!H', csum(ph(src, dst, 58, len(h)) + h)) + h[4:]

def ip4(proto, payload, src=S4, dst=D4, opts=b'', frag=0, total=None):
    ihl = 5 + len(opts) // 4
    tl = total if total is not None else 4 * ihl + len(payload)
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, tl, 7, frag, 64, proto, 0, src, dst) + opts
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload

def ip6(nh, payload, src=S6, dst=D6):
    return struct.pack('!IHBB16s16s', 0x60000000, len(payload), nh, 64, src, dst) + payload

def eth(t, payload, d=B, s=A): return d + s + struct.pack('!H', t) + payload
def tag(vid, t): return struct.pack('!HH', vid, t)

def labels(*ls, ttl=255):
    # Label stack entries (RFC 3032 2.1): label, TC 0, S on the last one, TTL.
    return b''.join(struct.pack('!I', (l << 12) | (0x100 if i == len(ls) - 1 else 0) | ttl)
                    for i, l in enumerate(ls))

CW = b'\x00\x00\x00\x00'                                # RFC 4448 4.6 control word, sequence 0
big = bytes(range(256)) * 5                              # 1280 bytes of payload for --mtu-trunc
frag_payload = udp(S4, D4, b'f' * 32)
frames = [
    eth(0x8847, labels(16) + ip4(17, udp(S4, D4))),                                    # 1 one label, IPv4 UDP
    eth(0x8847, labels(100, 200, 300) + ip4(6, tcp(S4, D4))),                          # 2 three labels, IPv4 TCP
    eth(0x8848, labels(17) + ip4(17, udp(S4, G4), dst=G4), d=GM4),                     # 3 multicast MPLS, IPv4 group
    eth(0x8847, labels(18) + ip6(17, udp(S6, D6))),                                    # 4 one label, IPv6 UDP
    eth(0x8847, labels(101, 201) + ip6(6, tcp(S6, D6))),                               # 5 two labels, IPv6 TCP
    eth(0x8848, labels(19, 20) + ip6(58, icmp6(S6, G6), dst=G6), d=GM6),               # 6 multicast MPLS, IPv6 group
    eth(0x8847, labels(0) + ip4(1, icmp())),                                           # 7 IPv4 explicit null, ICMP
    eth(0x8847, labels(2) + ip6(17, udp(S6, D6, sp=5353, dp=5353))),                   # 8 IPv6 explicit null
    eth(0x8847, labels(21) + ip4(17, udp(S4, D4), opts=b'\x01\x01\x01\x00')),          # 9 IPv4 with options
    eth(0x8847, labels(22) + ip4(17, frag_payload[:24], frag=0x2000, total=44)),       # 10 first fragment
    eth(0x8847, labels(22) + ip4(17, frag_payload[24:], frag=3)),                      # 11 non-first fragment
    eth(0x8847, labels(23) + ip4(17, udp(S4, D4, b'p')) + b'\x00' * 13),               # 12 Ethernet padding
    eth(0x8847, labels(24) + ip6(0, b'\x11\x00\x01\x04\x00\x00\x00\x00' + udp(S6, D6, b'hbh'))),  # 13 hop-by-hop
    eth(0x8100, tag(5, 0x8847) + labels(25) + ip4(17, udp(S4, D4))),                   # 14 VLAN, then MPLS
    eth(0x8847, labels(26) + ip4(17, udp(S4, D4, big))),                               # 15 long, for --mtu-trunc
    eth(0x8847, labels(27) + ip6(17, udp(S6, D6, big))),                               # 16 long IPv6
    eth(0x8847, labels(30) + CW + eth(0x0800, ip4(17, udp(S4, D4, b'pw')), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 17 pseudowire, control word, IPv4
    eth(0x8847, labels(31, 32) + CW + eth(0x86dd, ip6(6, tcp(S6, D6)), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 18 two labels, pseudowire, IPv6 TCP
    eth(0x8847, labels(33) + CW + eth(0x8100, tag(9, 0x0800) + ip4(6, tcp(S4, D4)), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 19 pseudowire, tagged inside
    eth(0x8848, labels(34) + CW + eth(0x0800, ip4(17, udp(S4, G4), dst=G4), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 20 multicast MPLS, pseudowire, IPv4 group behind a unicast MAC
    eth(0x8847, labels(35) + eth(0x0800, ip4(17, udp(S4, D4, b'nocw')), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 21 pseudowire without control word
    eth(0x8847, labels(36) + CW + eth(0x0806, struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + A + S4 + b'\0' * 6 + D4, d=M('ffffffffffff'))),  # 22 pseudowire, ARP
    eth(0x8847, labels(13) + ip4(17, udp(S4, D4))),                                    # 23 label 13 (GACH): 4.6 gives up
    eth(0x8847, labels(37) + b'\x50' + b'\x00' * 27),                                  # 24 payload nibble 5: 4.6 gives up
    eth(0x8847, labels(38, 39)[:6]),                                                   # 25 label stack cut short
    eth(0x8100, tag(5, 0x8847) + labels(40) + CW + eth(0x0800, ip4(17, udp(S4, D4)))),  # 26 VLAN in front of a pseudowire: 4.6 gives up
    eth(0x8847, labels(41) + ip4(6, tcp(S4, D4, sp=80, dp=40000), src=D4, dst=S4), d=A, s=B),  # 27 the reply, IPv4 TCP
    eth(0x0800, ip4(17, udp(S4, D4, b'bare'))),                                        # 28 no MPLS
    eth(0x8847, labels(42, 43) + ip4(6, tcp(S4, D4, big))),                            # 29 long IPv4 TCP, two labels
    eth(0x8847, labels(44) + CW + eth(0x86dd, ip6(6, tcp(S6, D6, big)), d=M('00000c0000c1'), s=M('00000c0000c2'))),  # 30 long IPv6 TCP in a pseudowire
]
out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
for i, fr in enumerate(frames):
    out.append(struct.pack('<IIII', 1704067200 + i, 0, len(fr), len(fr)) + fr)
open(sys.argv[1], 'wb').write(b''.join(out))
