#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A pcap of frames longer than a 1500-byte MTU, as a capture taken before
# TSO/GSO (or after GRO) holds them: a 30000-byte TCP segment and a
# 20000-byte UDP datagram over IPv4 and over IPv6, their checksums left
# to offload (wrong), the TCP ones with the timestamps option; with --df an
# IPv4 UDP datagram with DF set; with --cwr the TCP ones carry CWR (which
# only the first segment keeps).  Each payload is written to OUTDIR as
# hex, for the far side's reassembly to be compared with.
#   mkbig.py OUT.pcap OUTDIR [--df] [--cwr]
import struct
import sys

out, outdir = sys.argv[1], sys.argv[2]
df = '--df' in sys.argv[3:]
flags = 0x98 if '--cwr' in sys.argv[3:] else 0x18
MAC = bytes.fromhex('02000000000b02000000000a')
TS = b'\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02'
A4, B4 = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
A6, B6 = b'\xfd\x00' + b'\0' * 13 + b'\x01', b'\xfd\x00' + b'\0' * 13 + b'\x02'


def payload(n, k): return bytes((i * 7 + k + i // 251) & 255 for i in range(n))
def tcp(sport, body): return struct.pack('!HHIIBBHHH', sport, 40080, 1000, 1, 8 << 4, flags, 512, 0x1234, 0) + TS + body
def udp(body): return struct.pack('!HHHH', 40000, 40001, 8 + len(body), 0x1234) + body


def ip4(proto, l4, frag=0):
    return MAC + b'\x08\x00' + struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(l4), 0x100, frag, 64, proto,
                                           0x1234, A4, B4) + l4


def ip6(nh, l4):
    return MAC + b'\x86\xdd' + struct.pack('!IHBB16s16s', 0x60000000, len(l4), nh, 64, A6, B6) + l4


bodies = {'tcp4': payload(30000, 1), 'udp4': payload(20000, 2), 'tcp6': payload(30000, 3),
          'udp6': payload(20000, 4)}
frames = [ip4(6, tcp(40001, bodies['tcp4'])), ip4(17, udp(bodies['udp4'])),
          ip6(6, tcp(40002, bodies['tcp6'])), ip6(17, udp(bodies['udp6']))]
if df:
    frames = [ip4(17, udp(bodies['udp4']), frag=0x4000)]
with open(out, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
    for i, fr in enumerate(frames):
        f.write(struct.pack('<IIII', 1000 + i, 0, len(fr), len(fr)) + fr)
for k, v in bodies.items():
    with open('%s/%s.hex' % (outdir, k), 'w') as f:
        f.write(v.hex())
