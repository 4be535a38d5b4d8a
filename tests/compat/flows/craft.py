#!/usr/bin/env python3
# Frames at the edges of tcpreplay 4.6's flow definition (see t_flows.sh):
# VLAN/QinQ/MPLS, 802.3 frames, short and odd IP headers, ICMP type/code,
# IPv6 extension headers and fragments, tunnels, and timestamps around a
# --flow-expiry of 2 s.  Deterministic: python3 craft.py edge.pcap writes the
# checked-in file.
import struct, sys

A = bytes.fromhex('02000000000a'); B = bytes.fromhex('02000000000b')
S4, D4 = bytes([192, 0, 2, 10]), bytes([192, 0, 2, 11])
S6 = bytes.fromhex('20010db800000000000000000000000a')
D6 = bytes.fromhex('20010db800000000000000000000000b')

def ip4(proto, payload, src=S4, dst=D4, ihl=5, ver=4, frag=0):
    opts = b'\0' * (max(ihl, 5) * 4 - 20)
    return struct.pack('!BBHHHBBH4s4s', (ver << 4) | ihl, 0, 20 + len(opts) + len(payload), 1, frag, 64,
                       proto, 0, src, dst) + opts + payload

def ip6(nh, payload, src=S6, dst=D6):
    return struct.pack('!IHBB16s16s', 0x60000000, len(payload), nh, 64, src, dst) + payload

def l4(sp, dp, n=8): return struct.pack('!HH', sp, dp) + b'\0' * (n - 4)
def tcp(sp, dp): return l4(sp, dp, 20)
def udp(sp, dp): return l4(sp, dp, 8) + b'x' * 4
def icmp(t, c): return struct.pack('!BBH', t, c, 0) + b'\0' * 4
def eth(t, payload, d=B, s=A): return d + s + struct.pack('!H', t) + payload
def vlan(vid, t): return struct.pack('!HH', vid, t)

frames = []  # (time in s, frame)
def f(t, fr): frames.append((t, fr))

u = lambda sp=1000, dp=53: ip4(17, udp(sp, dp))
f(0.0, eth(0x0800, u()))                                    # flow 1
f(0.1, eth(0x0800, ip4(17, udp(53, 1000), D4, S4)))         # reverse: another flow
f(0.2, eth(0x8100, vlan(10, 0x0800) + u()))                 # same 5-tuple on VLAN 10
f(0.3, eth(0x8100, vlan(20, 0x0800) + u()))                 # ... and VLAN 20
f(0.4, eth(0x88a8, vlan(30, 0x8100) + vlan(40, 0x0800) + u(1001)))  # QinQ
f(0.5, eth(0x8847, struct.pack('!I', (100 << 12) | 0x100 | 64) + u(1002)))  # MPLS, one label
f(0.6, eth(0x8847, struct.pack('!II', (100 << 12) | 64, (200 << 12) | 0x100 | 64) + u(1003)))  # two labels
f(0.7, eth(0x0806, b'\0' * 28))                             # ARP: non-flow
f(0.8, eth(0x88cc, b'\0' * 32))                             # LLDP: non-flow
f(0.9, eth(38, b'\x42\x42\x03' + b'\0' * 35))               # 802.3 LLC (STP)
f(1.0, eth(46, u(1004)))                                    # 802.3 length, IPv4 inside
f(1.1, A + B + b'\x08')                                     # 13 bytes
f(1.2, eth(0x0800, b''))                                    # 14 bytes
f(1.3, eth(0x0800, u()[:19]))                               # IPv4 header cut short
f(1.4, eth(0x0800, ip4(17, udp(1005, 53), ver=5)))          # version 5 under 0x0800
f(1.5, eth(0x0800, ip4(17, udp(1006, 53), ihl=4)))          # IHL 4
f(1.6, eth(0x0800, ip4(17, udp(1007, 53), ihl=6)))          # IHL 6 (options)
f(1.7, eth(0x0800, ip4(17, udp(1008, 53))[:24]))            # UDP header cut short
f(1.8, eth(0x0800, ip4(6, tcp(1009, 80))[:36]))             # TCP header cut short (16 of 20)
f(1.9, eth(0x0800, ip4(6, tcp(1009, 80))))                  # TCP
f(2.0, eth(0x0800, ip4(1, icmp(8, 0))))                     # echo request
f(2.1, eth(0x0800, ip4(1, icmp(0, 0))))                     # echo reply (same addresses)
f(2.2, eth(0x0800, ip4(1, icmp(3, 3))))                     # unreachable
f(2.3, eth(0x0800, ip4(1, icmp(8, 0)[:6])))                 # ICMP cut short
f(2.4, eth(0x0800, ip4(17, udp(1010, 53), frag=0x2000)))    # first fragment
f(2.5, eth(0x0800, ip4(17, b'\x03\xf2\x00\x35' + b'y' * 8, frag=0x0002)))  # later fragment (ports in data)
f(2.6, eth(0x0800, ip4(47, struct.pack('!HH', 0, 0x0800) + u(1011))))  # GRE, IPv4 inside
f(2.7, eth(0x0800, ip4(17, udp(1012, 4789)[:8] + b'\x08\0\0\0\0\0\x01\0' + eth(0x0800, u(1013)))))  # VXLAN
f(2.8, eth(0x0800, ip4(4, u(1014))))                        # IPv4 in IPv4
f(2.9, eth(0x0800, ip4(50, b'\0' * 16)))                    # ESP: ports 0
f(3.0, eth(0x86dd, ip6(17, udp(1000, 53))))                 # IPv6 UDP
f(3.1, eth(0x86dd, ip6(0, struct.pack('!BB', 17, 0) + b'\0' * 6 + udp(1015, 53))))  # hop-by-hop
f(3.2, eth(0x86dd, ip6(60, struct.pack('!BB', 17, 0) + b'\0' * 6 + udp(1016, 53))))  # destination options
f(3.3, eth(0x86dd, ip6(44, struct.pack('!BBHI', 17, 0, 1, 7) + udp(1017, 53))))       # fragment header
f(3.4, eth(0x86dd, ip6(43, struct.pack('!BBBB', 17, 0, 0, 0) + b'\0' * 4 + udp(1018, 53))))  # routing
f(3.5, eth(0x86dd, ip6(58, icmp(128, 0))))                  # ICMPv6 echo
f(3.6, eth(0x86dd, ip6(17, udp(1019, 53))[:50]))            # IPv6 cut short
f(3.7, eth(0x86dd, ip4(17, udp(1020, 53))))                 # IPv4 under 0x86dd
f(3.8, eth(0x0800, ip4(17, udp(1000, 53), src=bytes(4), dst=bytes(4))))  # all-zero IPv4
f(3.9, eth(0x86dd, ip6(17, udp(1000, 53), src=bytes(16), dst=bytes(16))))  # all-zero IPv6: same key?
f(4.0, eth(0x8864, struct.pack('!BBHHH', 0x11, 0, 1, 22, 0x0021) + u(1021)))  # PPPoE session
f(4.1, eth(0x8100, vlan(10, 0x0806) + b'\0' * 28))          # ARP on VLAN
# where keys meet or part (each beside its twin: the counts say whether they are one flow)
f(4.15, eth(0x0800, ip4(47, struct.pack('!HH', 0, 0x0800) + u(2011))))  # GRE, other inner: the same flow
f(4.15, eth(0x0800, u(1011)))                               # GRE's inner flow alone: another
f(4.15, eth(0x0800, ip4(17, udp(1010, 53))))                # what the later fragment's data reads as
f(4.15, eth(0x0800, ip4(17, udp(1000, 53), src=bytes([1, 2, 3, 4]), dst=bytes(4))))
f(4.15, eth(0x86dd, ip6(17, udp(1000, 53), src=bytes([1, 2, 3, 4]) + bytes(12), dst=bytes(16))))
f(4.15, eth(0x86dd, ip6(17, udp(1015, 53))))                # the hop-by-hop one's flow
f(4.15, eth(0x86dd, ip6(17, udp(1016, 53))))                # not the destination-options one's
f(4.15, eth(0x0800, ip4(17, udp(1007, 53))))                # the IHL 6 one's
f(4.15, eth(0x8848, struct.pack('!I', (100 << 12) | 0x100 | 64) + u(1002)))  # multicast MPLS
f(4.15, eth(0x8847, struct.pack('!I', (100 << 12) | 0x100 | 64) + ip6(17, udp(1, 2))))  # IPv6 under MPLS
f(4.15, eth(0x8847, struct.pack('!I', (2 << 12) | 0x100 | 64) + u(3, 4)))  # label 2, IPv4 inside
f(4.15, eth(0x8847, struct.pack('!I', (100 << 12) | 0x100 | 64) + b'\0' * 4 + eth(0x0800, u(5, 6))))  # pseudowire
f(4.15, eth(0x8847, struct.pack('!I', (13 << 12) | 0x100 | 64) + u(9, 9)))  # GAL: invalid
f(4.15, eth(0x8847, struct.pack('!I', (100 << 12) | 0x100 | 64) + b'\x50' + b'\0' * 30))  # nibble 5
f(4.15, eth(0x8847, struct.pack('!I', (100 << 12) | 64)))   # no bottom of stack
f(4.15, eth(0x9100, vlan(30, 0x0800) + u(1001)))            # 0x9100 tag
f(4.15, eth(0x8100, vlan(1, 0x8100) + vlan(2, 0x8100) + vlan(3, 0x0800) + u(1001)))  # three tags
f(4.15, eth(0x8100, vlan(1, 40) + u(9, 9)))                 # 802.3 under a tag
f(4.15, eth(0x0806, b'\0' * 4))                             # 18 bytes: invalid
f(4.15, eth(0x0806, b'\0' * 5))                             # 19 bytes: non-flow
f(4.15, eth(0x8100, vlan(1, 0x0806) + b'\0'))               # 19 bytes with a tag: non-flow
f(4.15, eth(1535, u(9, 9)))                                 # below 0x0600: invalid
f(4.15, eth(1536, u(9, 9)))                                 # 0x0600: non-flow
f(4.15, eth(0x0800, ip4(1, icmp(8, 0) + b'\0' * 20)))       # ICMP of 28 bytes: a flow
f(4.15, eth(0x0800, ip4(1, struct.pack('!BBHHH', 8, 0, 0, 5, 9) + b'\0' * 20)))  # other id: the same
f(4.15, eth(0x0800, ip4(17, udp(8, 0))))                    # UDP 8 -> 0 is not ICMP 8/0
f(4.15, eth(0x0800, ip4(58, icmp(128, 0) + b'\0' * 20)))    # protocol 58 under IPv4: type/code
f(4.15, eth(0x0800, ip4(132, l4(1, 2, 12))))                # SCTP: ports 0
f(4.15, eth(0x0800, ip4(132, l4(3, 4, 12))))                # ... the same flow
f(4.15, eth(0x86dd, ip6(0, struct.pack('!BB', 60, 0) + b'\0' * 6 + struct.pack('!BB', 17, 0) + b'\0' * 6 + udp(1, 53))))
f(4.15, eth(0x86dd, ip6(0, struct.pack('!BB', 60, 0) + b'\0' * 6 + struct.pack('!BB', 17, 0) + b'\0' * 6 + udp(2, 53))))
f(4.15, eth(0x86dd, ip6(0, struct.pack('!BB', 17, 1) + b'\0' * 14 + udp(1022, 53))))  # hop-by-hop of 16 bytes
f(4.15, eth(0x0800, ip4(17, udp(1023, 53), ihl=0)))         # IHL 0: ports from the IP header
# expiry around 2 s: flow 1 again at 4.2 (last 0.0), then 6.2, 8.3, 9.0, 11.99
for t in (4.2, 6.2, 8.3, 9.0, 11.99, 12.0, 14.5):
    f(t, eth(0x0800, u()))

def write(path):
    out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
    base = 1704067200
    for t, fr in frames:
        us = round(t * 1e6)
        out.append(struct.pack('<IIII', base + us // 1000000, us % 1000000, len(fr), len(fr)) + fr)
    open(path, 'wb').write(b''.join(out))

write(sys.argv[1] if len(sys.argv) > 1 else 'edge.pcap')
