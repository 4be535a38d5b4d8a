#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Seeds for fuzz_layers (tests/fuzz/fuzz_layers.c): one Ethernet frame per file,
# one per encapsulation the walk follows and per place it stops.  Committed;
# run again after changing the walk.
#   tests/fuzz/make-seeds-layers.py
import os
import struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'layers')
MACS = bytes.fromhex('02000000000b02000000000a')


def tag(tpid, vid): return struct.pack('!HH', tpid, vid)
def label(v, bottom): return struct.pack('!I', v << 12 | (0x100 if bottom else 0) | 64)
def udp(): return struct.pack('!HHHH', 53, 1053, 16, 0) + b'payload!'
def tcp(doff=5): return struct.pack('!HHIIBBHHH', 1234, 80, 1, 0, doff << 4, 0x18, 512, 0, 0) + b'\0' * (doff * 4 - 20)


def ip4(proto, payload, ihl=5, frag=0):
    opts = b'\x01' * (max(ihl, 5) * 4 - 20)
    return struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, 20 + len(opts) + len(payload), 1, frag, 64, proto, 0,
                       bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + opts + payload


def ip6(nh, payload):
    return struct.pack('!IHBB16s16s', 0x60000000, len(payload), nh, 64, b'\x20\x01' + b'\0' * 13 + b'\x01',
                       b'\x20\x01' + b'\0' * 13 + b'\x02') + payload


def ext(nh, n=0): return bytes([nh, n]) + b'\0' * ((n + 1) * 8 - 2)
def ah(nh, n=4): return bytes([nh, n]) + b'\0' * ((n + 2) * 4 - 2)
def frag(nh, off, m): return struct.pack('!BBHI', nh, 0, off << 3 | m, 7)
def pw(): return b'\0\0\0\0' + bytes.fromhex('02000000000c02000000000d')


seeds = {
    'short': MACS[:10],
    'udp4': MACS + b'\x08\x00' + ip4(17, udp()),
    'tcp4-options': MACS + b'\x08\x00' + ip4(6, tcp(8), ihl=7),
    'ihl4': MACS + b'\x08\x00' + ip4(6, tcp(), ihl=4),
    'frag4-first': MACS + b'\x08\x00' + ip4(17, udp(), frag=0x2000),
    'frag4-later': MACS + b'\x08\x00' + ip4(17, udp(), frag=0x0010),
    'icmp4': MACS + b'\x08\x00' + ip4(1, b'\x08\0\0\0\0\x01\0\x01'),
    'gre4': MACS + b'\x08\x00' + ip4(47, b'\0\0\x08\0' + ip4(17, udp())),
    'vlan-8100': MACS + tag(0x8100, 10) + b'\x08\x00' + ip4(17, udp()),
    'qinq-88a8': MACS + tag(0x88a8, 10) + tag(0x8100, 20) + b'\x86\xdd' + ip6(17, udp()),
    'qinq-9100': MACS + tag(0x9100, 30) + b'\x08\x00' + ip4(6, tcp()),
    'vlan-x10': MACS + b''.join(tag(0x8100, i) for i in range(10)) + b'\x08\x00' + ip4(17, udp()),
    'vlan-cut': MACS + tag(0x8100, 10) + b'\x81',
    '8023-llc': MACS + b'\x00\x26\x42\x42\x03' + b'\0' * 35,
    'arp': MACS + b'\x08\x06' + bytes.fromhex('0001080006040001') + b'\0' * 20,
    'mpls-ip4': MACS + b'\x88\x47' + label(100, 1) + ip4(17, udp()),
    'mpls3-ip6': MACS + tag(0x8100, 7) + b'\x88\x48' + label(1, 0) + label(2, 0) + label(3, 1) + ip6(6, tcp()),
    'mpls-gal-bottom': MACS + b'\x88\x47' + label(13, 1) + b'\x10\0\0\0' + b'\0' * 20,
    'mpls-gal-above': MACS + b'\x88\x47' + label(13, 0) + label(100, 1) + ip4(17, udp()),
    'mpls-nibble5': MACS + b'\x88\x47' + label(100, 1) + b'\x50' + b'\0' * 30,
    'mpls-nobottom': MACS + b'\x88\x47' + label(100, 0) + label(101, 0),
    'mpls-pw-vlan': MACS + tag(0x88a8, 1) + b'\x88\x47' + label(300, 0) + label(301, 1) + pw() +
        tag(0x8100, 2) + b'\x08\x00' + ip4(17, udp()),
    'mpls-pw-pw': MACS + b'\x88\x47' + label(1, 1) + pw() + b'\x88\x47' + label(2, 1) + pw() + b'\x08\x00' +
        ip4(6, tcp()),
    'ip6-chain': MACS + b'\x86\xdd' + ip6(0, ext(43) + ext(60, 1) + ext(51) + ah(17) + udp()),
    'ip6-frag-first': MACS + b'\x86\xdd' + ip6(44, frag(6, 0, 1) + tcp()),
    'ip6-frag-later': MACS + b'\x86\xdd' + ip6(44, frag(60, 185, 0) + b'\0' * 24),
    'ip6-ext9': MACS + b'\x86\xdd' + ip6(60, b''.join(ext(60) for _ in range(8)) + ext(17) + udp()),
    'ip6-ext-long': MACS + b'\x86\xdd' + ip6(0, bytes([17, 255]) + b'\0' * 30),
    'ip6-under-0800': MACS + b'\x08\x00' + ip6(17, udp()),
}
os.makedirs(out, exist_ok=True)
for name, frame in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(frame)
