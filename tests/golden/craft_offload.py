#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# offload.pcap: traces/http.pcap, dns.pcap and ipv6.pcap as a sender with
# checksum offload records them -- every TCP and UDP checksum left as the
# pseudo-header's partial sum the NIC would have completed -- then the same
# frames cut short by the capture (caplen 60 of the wire length), one
# record a millisecond from 2024-01-01T00:00:00Z.
# Deterministic: python3 craft_offload.py ../../traces offload.pcap rewrites the
# checked-in file.
import struct, sys

def records(path):
    b = open(path, 'rb').read()
    assert b[:4] == b'\xd4\xc3\xb2\xa1', path
    off = 24
    while off < len(b):
        ts, us, cap, wire = struct.unpack_from('<IIII', b, off)
        yield ts, us, wire, bytearray(b[off + 16:off + 16 + cap])
        off += 16 + cap

def fold(s):
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

def partial(f):
    """Overwrite the TCP/UDP checksum of an untagged IPv4/IPv6 frame with the pseudo-header sum."""
    et = struct.unpack_from('!H', f, 12)[0]
    if et == 0x0800:
        ihl = (f[14] & 15) * 4
        proto, l4, ln = f[23], 14 + ihl, struct.unpack_from('!H', f, 16)[0] - ihl
        ph = bytes(f[26:34]) + struct.pack('!xBH', proto, ln)
        if struct.unpack_from('!H', f, 20)[0] & 0x3fff:
            return
    elif et == 0x86dd:
        proto, l4, ln = f[20], 54, struct.unpack_from('!H', f, 18)[0]
        ph = bytes(f[22:54]) + struct.pack('!I3xB', ln, proto)
    else:
        return
    pos = {6: 16, 17: 6}.get(proto)
    if pos is None or len(f) < l4 + pos + 2:
        return
    s = fold(sum(struct.unpack('!%dH' % (len(ph) // 2), ph)))
    struct.pack_into('!H', f, l4 + pos, s)

out = [struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)]
recs = []
for name in ('http.pcap', 'dns.pcap', 'ipv6.pcap'):
    for ts, us, wire, f in records(sys.argv[1] + '/' + name):
        partial(f)
        recs.append((ts, us, wire, f))
for ts, us, wire, f in list(recs):
    if len(f) > 60:
        recs.append((ts, us, wire, f[:60]))
# One record a millisecond: the three captures' clocks do not follow each other.
for i, (ts, us, wire, f) in enumerate(recs):
    out.append(struct.pack('<IIII', 1704067200 + i // 1000, i % 1000 * 1000, len(f), wire) + bytes(f))
open(sys.argv[2], 'wb').write(b''.join(out))
