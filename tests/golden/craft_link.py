#!/usr/bin/env python3
# The IP packets of traces/dns.pcap and traces/http6.pcap under other link layers than
# Ethernet, for --dlt from what replay reads: LINUX_SLL (a cooked capture, outgoing, with
# the source MAC) and RAW; and the IP frames of traces/vlan.pcap with their 802.1Q and
# 802.1ad tags (its ARP frames left out: tcprewrite 4.6 --dlt raw writes those whole).
# Deterministic:
#   python3 craft_link.py ../../traces sll.pcap rawip.pcap vlanip.pcap
# rewrites the checked-in files.
import struct, sys


def frames(path):
    b = open(path, 'rb').read()
    off = 24
    while off + 16 <= len(b):
        sec, usec, cl, wl = struct.unpack('<IIII', b[off:off + 16])
        yield sec, usec, wl, b[off + 16:off + 16 + cl]
        off += 16 + cl


def ip_packets(traces):
    for name in ('dns.pcap', 'http6.pcap'):
        for sec, usec, wl, d in frames(traces + '/' + name):
            if d[12:14] in (b'\x08\x00', b'\x86\xdd'):
                yield sec, usec, wl - 14, d[6:12], d[12:14], d[14:]


traces, sll, raw, vlanip = sys.argv[1:5]
with open(sll, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 113))
    for sec, usec, wl, src, typ, p in ip_packets(traces):
        # pkttype 4 (outgoing), ARPHRD_ETHER, 6-byte address padded to 8, protocol
        h = struct.pack('>HHH', 4, 1, 6) + src + b'\0\0' + typ
        f.write(struct.pack('<IIII', sec, usec, len(h) + len(p), wl + 16) + h + p)
with open(raw, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
    for sec, usec, wl, src, typ, p in ip_packets(traces):
        f.write(struct.pack('<IIII', sec, usec, len(p), wl) + p)
with open(vlanip, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for sec, usec, wl, d in frames(traces + '/vlan.pcap'):
        n = 12
        while d[n:n + 2] in (b'\x81\x00', b'\x88\xa8'):
            n += 4
        if d[n:n + 2] in (b'\x08\x00', b'\x86\xdd'):
            f.write(struct.pack('<IIII', sec, usec, len(d), wl) + d)
