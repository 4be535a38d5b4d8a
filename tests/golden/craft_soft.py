#!/usr/bin/env python3
# Frames tcprewrite 4.6 rejects with a soft error (tcpedit's TCPEDIT_SOFT_ERROR: no layer 3 it
# can edit) next to frames it edits, for --skip-soft-errors (see tests/golden/golden.sh).
# Deterministic: python3 craft_soft.py soft.pcap rewrites the checked-in file.
import struct, sys

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

def mac(s): return bytes(int(x, 16) for x in s.split(':'))
A, B = mac('02:00:00:00:00:0a'), mac('02:00:00:00:00:0b')
S4, D4 = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11])
S6 = bytes.fromhex('20010db8' + '00' * 11 + '0a')
D6 = bytes.fromhex('20010db8' + '00' * 11 + '0b')

def eth(t, payload, dst=B, src=A): return dst + src + struct.pack('!H', t) + payload
def vlan(vid, t): return struct.pack('!HH', vid, t)

def ip4(proto, payload, ihl=5, opts=b'', total=None):
    tl = total if total is not None else 4 * ihl + len(payload)
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, tl, 1, 0, 64, proto, 0, S4, D4) + opts
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + payload

def udp4(payload, sp=1000, dp=2000):
    ln = 8 + len(payload)
    h = struct.pack('!HHHH', sp, dp, ln, 0) + payload
    c = csum(S4 + D4 + struct.pack('!xBH', 17, ln) + h) or 0xffff
    return h[:6] + struct.pack('!H', c) + h[8:]

def udp6(payload, sp=1000, dp=2000):
    ln = 8 + len(payload)
    h = struct.pack('!HHHH', sp, dp, ln, 0) + payload
    c = csum(S6 + D6 + struct.pack('!IxxxB', ln, 17) + h) or 0xffff
    return h[:6] + struct.pack('!H', c) + h[8:]

def ip6(nh, payload, plen=None):
    pl = plen if plen is not None else len(payload)
    return struct.pack('!IHBB', 0x60000000, pl, nh, 64) + S6 + D6 + payload

good4 = eth(0x0800, ip4(17, udp4(b'good')))
good6 = eth(0x86dd, ip6(17, udp6(b'six!')))
frames = [
    good4,
    eth(0x0800, ip4(17, udp4(b'cut')))[:14 + 12],            # IPv4 header cut short
    A + B[:4],                                                 # shorter than an Ethernet header
    eth(0x0800, b''),                                          # Ethernet header only, IPv4 type
    eth(0x0800, ip4(17, udp4(b'ihl'), ihl=4)),                 # IHL 4 (< 5)
    eth(0x0800, ip4(17, udp4(b'opts'), ihl=15, opts=b'\x01' * 40))[:14 + 30],  # options past the capture
    (eth(0x0800, ip4(6, b'\x00\x50' + b'\x00' * 18))[:14 + 22], 54),  # TCP header cut short by the capture
    eth(0x86dd, ip6(17, udp6(b'cut6')))[:14 + 30],             # IPv6 header cut short
    eth(0x86dd, ip6(0, b'\x11\x05' + b'\x01' * 6))[:14 + 44],  # hop-by-hop claims 48 bytes, 4 captured
    eth(0x86dd, ip6(0, b'\x11\x00\x01\x04\x00\x00\x00\x00' + udp6(b'hbh'))),  # complete hop-by-hop
    eth(0x8100, vlan(5, 0x0800)[:2]),                          # VLAN tag cut short
    eth(0x8100, vlan(5, 0x0800) + ip4(17, udp4(b'vlan'))),     # tagged IPv4
    eth(0x8100, vlan(5, 0x0800) + ip4(17, udp4(b'vcut')))[:18 + 10],  # tagged, IPv4 cut short
    eth(0x0026, b'\x42\x42\x03' + b'\x00' * 35, dst=mac('01:80:c2:00:00:00')),  # 802.3/LLC (STP)
    eth(0x0806, struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + A + S4 + b'\0' * 6 + D4),  # ARP
    eth(0x0806, b'\x00\x01'),                                  # ARP cut short
    eth(0x88cc, b'\x02\x07\x04' + A + b'\x00' * 4),            # LLDP
    eth(0x0806, b'\x00\x01\x08'),                              # 17 bytes: under 4.6's 18-byte minimum
    eth(0x0806, b'\x00\x01\x08\x00'),                          # 18 bytes
    eth(0x0800, ip4(17, udp4(b'ihl0'), ihl=0)),                # IHL 0
    eth(0x86dd, ip6(44, b'\x11\x00\x00\x01\x00\x00\x00\x07')),  # fragment header, nothing after it
    eth(0x86dd, ip6(44, b'\x11\x00\x00'))[:14 + 43],          # fragment header cut short
    eth(0x86dd, ip6(43, b'\x11\x00\x00\x00\x00\x00\x00\x00' + udp6(b'rt'))),  # routing header
    eth(0x86dd, ip6(60, b'\x11\x02' + b'\x01' * 6))[:14 + 48],  # destination options past the capture
    eth(0x86dd, ip6(59, b'')),                                 # no next header
    eth(0x86dd, ip6(51, b'\x11\x04' + b'\x00' * 6)),           # AH, cut short of its length
    eth(0x8100, vlan(5, 0x8100) + vlan(6, 0x0800) + ip4(17, udp4(b'qq'))),  # two tags
    eth(0x8100, vlan(5, 0x0026) + b'\x42\x42\x03' + b'\x00' * 35),  # tagged 802.3
    eth(0x88a8, vlan(5, 0x8100) + vlan(6, 0x86dd) + ip6(17, udp6(b'qinq'))),  # QinQ IPv6
    eth(0x8847, struct.pack('!I', (16 << 12) | 0x100 | 64) + ip4(17, udp4(b'mpls'))),  # MPLS
    eth(0x8847, struct.pack('!I', (16 << 12) | 0x100 | 64) + b'\x45\x00'),  # MPLS, IPv4 cut short
    good6,
]

out = open(sys.argv[1], 'wb')
out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, f in enumerate(frames):
    f, wire = f if isinstance(f, tuple) else (f, len(f))
    out.write(struct.pack('<IIII', 1700000000 + i, 0, len(f), wire) + f)
