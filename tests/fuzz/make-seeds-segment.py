#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Seeds for fuzz_segment (tests/fuzz/fuzz_segment.c): two bytes of MTU, then one
# Ethernet frame longer than it, per kind of cut (TCP over IPv4 and IPv6 with the
# timestamps option, UDP fragmented over IPv4, IPv6 with a Hop-by-Hop header, a
# fragment cut again, DF, GRO's zero lengths, VLAN).  Committed; run again after
# changing the segmenter.  The same frames, each followed by a 60-byte one, seed
# fuzz_segment_loop (tests/fuzz/fuzz_segment_loop.c: an MTU byte, a flags byte,
# then frames as two-byte lengths and their bytes).  The same seeds, with TCP
# with CWR set and padding past the IP length, seed fuzz_segment_vnet.
#   tests/fuzz/make-seeds-segment.py
import os
import struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'segment')
ETH4 = bytes.fromhex('02000000000b02000000000a') + b'\x08\x00'
ETH6 = bytes.fromhex('02000000000b02000000000a') + b'\x86\xdd'
TS = b'\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02'


def body(n): return bytes((i * 7) & 255 for i in range(n))
def tcp(): return struct.pack('!HHIIBBHHH', 1234, 80, 0xfffff000, 1, 8 << 4, 0x99, 512, 0, 0) + TS
def udp(n): return struct.pack('!HHHH', 5000, 6000, 8 + n, 0xbeef)


def ip4(proto, payload, frag=0, tot=None):
    tot = 20 + len(payload) if tot is None else tot
    return struct.pack('!BBHHHBBH4s4s', 0x45, 0, tot, 0xfffe, frag, 64, proto, 0,
                       bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + payload


def ip6(nh, payload, plen=None):
    plen = len(payload) if plen is None else plen
    return struct.pack('!IHBB16s16s', 0x60000000, plen, nh, 64, b'\x20\x01' + b'\0' * 13 + b'\x01',
                       b'\x20\x01' + b'\0' * 13 + b'\x02') + payload


seeds = {
    'tcp4': (1500, ETH4 + ip4(6, tcp() + body(4000))),
    'tcp4-gro': (576, ETH4 + ip4(6, tcp() + body(3000), tot=0)),
    'tcp6': (1280, ETH6 + ip6(6, tcp() + body(4000))),
    'tcp6-gro': (1500, ETH6 + ip6(6, tcp() + body(3000), plen=0)),
    'udp4': (1500, ETH4 + ip4(17, udp(4000) + body(4000))),
    'udp4-df': (1500, ETH4 + ip4(17, udp(4000) + body(4000), frag=0x4000)),
    'frag4-again': (576, ETH4 + ip4(17, body(2000), frag=0x2000 | 100)),
    'udp6-hbh': (1280, ETH6 + ip6(0, b'\x11\x00\x01\x04\x00\x00\x00\x00' + udp(3000) + body(3000))),
    'udp6-route': (1280, ETH6 + ip6(60, b'\x2b\x00\x01\x04\x00\x00\x00\x00' +
                                    b'\x11\x00\x00\x00\x00\x00\x00\x00' + udp(3000) + body(3000))),
    'vlan-tcp4': (1500, bytes.fromhex('02000000000b02000000000a') + b'\x81\x00\x00\x05\x08\x00' +
                  ip4(6, tcp() + body(4000))),
    'icmp6': (1280, ETH6 + ip6(58, b'\x80\x00\x00\x00' + body(3000))),
}
os.makedirs(out, exist_ok=True)
os.makedirs(out + '_loop', exist_ok=True)
os.makedirs(out + '_vnet', exist_ok=True)
# The kernel's cut only: CWR (the ECN GSO type); padding after the IP packet (not sent).
with open(os.path.join(out + '_vnet', 'tcp4-cwr-pad'), 'wb') as f:
    f.write(struct.pack('!H', 1500) + ETH4 + ip4(6, tcp()[:13] + b'\x90' + tcp()[14:] + body(4000)) + bytes(40))
for name, (mtu, frame) in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(struct.pack('!H', mtu) + frame)
    with open(os.path.join(out + '_vnet', name), 'wb') as f:
        f.write(struct.pack('!H', mtu) + frame)
    # --mtu 68 + 8 x byte 0; --batch 4 for the GRO frames, --loop 2 for the IPv6 UDP ones.
    flags = 1 if 'gro' in name else 2 if 'udp6' in name else 0
    with open(os.path.join(out + '_loop', name), 'wb') as f:
        f.write(bytes([(mtu - 68) // 8, flags]) + struct.pack('!H', len(frame)) + frame +
                struct.pack('!H', 60) + bytes(60))
