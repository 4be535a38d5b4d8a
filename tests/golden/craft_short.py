#!/usr/bin/env python3
# Ethernet frames of 4 to 21 bytes, most shorter than an Ethernet header plus FCS, for --efcs.
# Deterministic: python3 craft_short.py short.pcap rewrites the checked-in file.
import struct, sys

with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, n in enumerate(range(4, 22)):
        p = (bytes.fromhex('02000000000b02000000000a0800') + bytes(range(40)))[:n]
        f.write(struct.pack('<IIII', 1000 + i, 0, len(p), len(p)) + p)
