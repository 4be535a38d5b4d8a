#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Seeds for fuzz_frag (rules files) and fuzz_frag_apply (a rules file's
# length in two bytes, the file, one Ethernet frame): every module, and
# IPv4 and IPv6 frames with TCP, UDP and ICMP.  Run from tests/fuzz/.
import struct

RULES = {
    'valid': b"# every module, as fragroute's man page spells them\nip_frag 24\nip_frag 16 old\ntcp_seg 8 new\n"
             b"order reverse\norder random\ndup first 50\ndrop last 10\ndelay random 5\nip_ttl 9\nip_tos 0x10\n"
             b"ip6_qos 2e 12345\necho hello world\nprint\nip_chaff dup\ntcp_chaff paws\n"
             b"ip_opt lsrr 4 10.0.0.1 10.0.0.2\nip_opt raw 44 4 01 02\ntcp_opt mss 536\ntcp_opt raw 1e 4 00 00\n"
             b"ip6_opt route 1 2001:db8::1\nip6_opt raw 3a 00 00 00 00 00 00\n",
    'negsize': b"ip_frag -8\n",
    'badrules': b"ip_frag 24\nfragment 8\n",
    'crlf': b"ip_frag 8\r\n\r\n  # indented comment\r\n\ttcp_seg 1\r\n",
    'opts': b"ip_opt ssrr 8 10.0.0.9\nip_opt raw 94 4 00 00\ntcp_opt wscale 7\ntcp_opt raw 22 3 05\n"
            b"ip6_opt route 2 2001:db8::1 2001:db8::2\nip6_opt raw 3c 01 04 00 00 00 00\n",
    'chaff': b"ip_chaff dup\nip_chaff opt\nip_chaff 0\ntcp_chaff cksum\ntcp_chaff null\ntcp_chaff paws\n"
             b"tcp_chaff rexmit\ntcp_chaff seq\ntcp_chaff syn\ntcp_chaff 3\n",
}
APPLY = {
    'frag8': b"ip_frag 8\n",
    'frag16old': b"ip_frag 16 old\norder reverse\n",
    'frag16new': b"ip_frag 16 new\n",
    'seg5': b"tcp_seg 5\n",
    'seg4old': b"tcp_seg 4 old\ndup last 100\n",
    'mix': b"ip_frag 24\norder random\ndup random 50\ndrop first 30\nip_ttl 3\nip_tos 7\nip6_qos ff fffff\n",
    'opt': b"dup first 100\nip_opt lsrr 4 10.0.0.1 10.0.0.2\ntcp_opt mss 536\nip6_opt route 1 2001:db8::1\n",
    'ipchaff': b"ip_chaff dup\nip_chaff opt\nip_chaff 1\n",
    'tcpchaff': b"tcp_seg 20\ntcp_chaff paws\ntcp_chaff cksum\ntcp_chaff syn\norder random\n",
}

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def eth(t): return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + struct.pack('!H', t)

def ip4(proto, pay, df=False):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(pay), 0x1234, 0x4000 if df else 0, 64, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
    return eth(0x0800) + h + pay

def ip6(nh, pay):
    h = struct.pack('!IHBB16s16s', 6 << 28, len(pay), nh, 64, b'\x20\x01\x0d\xb8' + b'\0' * 11 + b'\1',
                    b'\x20\x01\x0d\xb8' + b'\0' * 11 + b'\2')
    return eth(0x86dd) + h + pay

def tcp(data, flags=0x18):
    return struct.pack('!HHIIBBHHH', 1234, 80, 1000, 2000, 5 << 4, flags, 8192, 0, 0) + data

def udp(data): return struct.pack('!HHHH', 5353, 53, 8 + len(data), 0) + data

FRAMES = {
    'tcp4': ip4(6, tcp(bytes(range(100)))),
    'tcp4df': ip4(6, tcp(bytes(range(60))), df=True),
    'udp4': ip4(17, udp(bytes(range(70)))),
    'icmp4': ip4(1, b'\x08\0\0\0\0\1\0\1' + bytes(40)),
    'tcp6': ip6(6, tcp(bytes(range(90)))),
    'udp6': ip6(17, udp(bytes(range(50)))),
    'arp': eth(0x0806) + bytes(28),
}

for name, r in RULES.items():
    open('corpus/frag/' + name, 'wb').write(r)
for rn, r in APPLY.items():
    for fn, f in FRAMES.items():
        open('corpus/frag_apply/%s-%s' % (rn, fn), 'wb').write(struct.pack('!H', len(r)) + r + f)
