#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Seeds for the seam targets, pipeline and prep, and edit's frame-limit cases (tests/fuzz/fuzz_pipeline.c and
# fuzz_prep.c say how an input is read): the sample traces under a few edit
# configurations, and synthesised records at the frame limit that reach the
# bugs the frame-limit checks fixed (conversion past the edit buffer, VLAN del + padding,
# wrapped wire lengths).  Committed; run again after changing either target.
#   tests/fuzz/make-seeds-seams.py
import os
import struct

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
corpus = os.path.join(root, 'tests', 'fuzz', 'corpus')

DMAC, SMAC = 1 << 0, 1 << 2
VLAN, VLAN_DEL = 1 << 3, 1 << 4
TTL = 1 << 21
MTU = 1 << 26
FIXLEN, FIXLEN_PAD = 1 << 27, 0 << 28  # fixlen = 1 + (o >> 28) % 3: 0 -> pad
FIXCSUM = 1 << 30
PAD_PAYLOAD = 1 << 59
PNAT = 1 << 5


def opts(o):
    return struct.pack('<Q', o)


def trace(name):
    with open(os.path.join(root, name), 'rb') as f:
        return f.read()


def write(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


ipv4 = bytes([0x45, 0, 0xff, 0xff, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
              0x03, 0xe8, 0, 53, 0, 8, 0, 0])
tagged = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0, 0, 7, 8, 0]) + ipv4
null = struct.pack('<I', 2) + ipv4

# Synthesised recipes: linktype index (ETHERNET, RAW, IPV4, IPV6, NULL, LOOP, SLL, SLL2),
# record count - 1, (a, w) per record, template.
def syn(lt, recs, tmpl):
    return bytes([lt, len(recs) - 1]) + b''.join(bytes([a, w]) for a, w in recs) + tmpl

AT_LIMIT = 0x80 | 16       # caplen = 262144
wire_over = lambda k: 3 | ((8 + k) << 2)  # wirelen = 262144 + k

pipeline = {
    # RAW / NULL records at the readers' cap, with a writing edit: the 14-byte overflow.
    'syn-raw-cap-dmac': bytes([1]) + opts(DMAC) + syn(1, [(AT_LIMIT, 0)], ipv4),
    'syn-null-cap-ttl': bytes([3 | 4 << 2]) + opts(TTL | 5 << 24 | 1 << 22) + syn(4, [(AT_LIMIT, 0)], null),
    # Tagged frames whose wire length is 262145..262148, VLAN del + --fixlen pad / --pad-payload.
    'syn-vlandel-fixlen': bytes([1]) + opts(VLAN | VLAN_DEL | FIXLEN) +
        syn(0, [(12, wire_over(k)) for k in range(1, 5)], tagged),
    'syn-vlandel-pad': bytes([1]) + opts(VLAN | VLAN_DEL | PAD_PAYLOAD) +
        syn(0, [(12, wire_over(k)) for k in range(1, 5)], tagged),
    # Wire lengths at the top of 32 bits through conversion and VLAN add.
    'syn-wire-top-vlanadd': bytes([1]) + opts(VLAN | FIXLEN) + syn(4, [(12, 2), (12, 2 | 4 << 2)], null),
    # pcapng blocks at the 1 MiB block cap (RAW, frames of about 5 KB): just under, at, over.
    'syn-ng-block-cap': bytes([1]) + opts(DMAC) + syn(0x40 | 1, [(0x4f, 0), (0x50, 0), (0x51, 0)], ipv4),
    # A frame at the limit and a VLAN tag.
    'syn-eth-cap-vlanadd': bytes([3 | 9 << 2]) + opts(VLAN) + syn(0, [(AT_LIMIT, 0), (AT_LIMIT - 1, 1 << 2)], tagged),
}
for t, o in [('dns.pcap', DMAC | SMAC), ('vlan.pcap', VLAN | VLAN_DEL | FIXCSUM), ('mixed.pcap', MTU | 20 << 48),
             ('http6.pcap', PAD_PAYLOAD | TTL)]:
    pipeline['trace-' + t] = bytes([0]) + opts(o) + trace('traces/' + t)
    pipeline['pipe-' + t] = bytes([2 | 5 << 2]) + opts(o) + trace('traces/' + t)
for f in ['dns.pcap-raw', 'dns.pcap-null', 'dns.pcap-sll2']:
    pipeline['conv-' + f] = bytes([0]) + opts(DMAC | PAD_PAYLOAD) + trace('tests/fuzz/corpus/pcap/' + f)
for f in ['dns.ng-mixedlink', 'dns.erf-ip']:
    p = os.path.join(corpus, 'pcapng' if 'ng' in f else 'erf', f)
    if os.path.exists(p):
        pipeline['conv-' + f] = bytes([2]) + opts(TTL | 1 << 22) + open(p, 'rb').read()
for k, v in pipeline.items():
    write('pipeline', k, v)

prep = {
    'dns-pad': opts(PAD_PAYLOAD) + b'\0\0\0\0' + trace('traces/dns.pcap'),
    'vlan-dmac-vlanadd': opts(DMAC | VLAN | 9 << 8) + b'\0\0\0\0' + trace('traces/vlan.pcap'),
    'mixed-ttl-fixcsum': opts(TTL | FIXCSUM) + b'\0\0\0\0' + trace('traces/mixed.pcap'),
    'mixed-pnat-damaged-record': opts(PNAT | PAD_PAYLOAD) + struct.pack('<I', (64 + 40 * 3 + 8) << 8 | 0x40) +
        trace('traces/mixed.pcap'),
    'dns-pad-damaged-header': opts(PAD_PAYLOAD) + struct.pack('<I', 20 << 8 | 1) + trace('traces/dns.pcap'),
    'raw-seed': opts(1 << 20 | 42 << 32 | PAD_PAYLOAD) + b'\0\0\0\0' + trace('tests/fuzz/corpus/pcap/dns.pcap-raw'),
    # Truncated while mapped (XOR 0): a 1000-record sidecar (40 064 bytes) cut inside its
    # second page, on a record boundary inside its first, and inside its header.
    'udp-fixcsum-cut-page2': opts(FIXCSUM) + struct.pack('<I', 5000 << 8) + trace('traces/udp-1ms.pcap'),
    'udp-fixcsum-cut-record': opts(FIXCSUM) + struct.pack('<I', (64 + 40 * 50) << 8) + trace('traces/udp-1ms.pcap'),
    'udp-ttl-cut-header': opts(TTL | 1 << 22 | 9 << 24) + struct.pack('<I', 40 << 8) + trace('traces/udp-1ms.pcap'),
}
for k, v in prep.items():
    write('prep', k, v)

# fuzz_edit: a tagged frame whose wire length (mode 6) is 262145..262148, VLAN del + padding.
for k in range(4):
    write('edit', f'vlandel-pad-wire{262145 + k}', opts(VLAN | VLAN_DEL | PAD_PAYLOAD | 6 << 56 | k << 32) + tagged + bytes(58))
    write('edit', f'vlandel-fixlen-wire{262145 + k}', opts(VLAN | VLAN_DEL | FIXLEN | 6 << 56 | k << 32) + tagged + bytes(58))
write('edit', 'vlanadd-wire-top', opts(VLAN | 7 << 8 | FIXLEN | 7 << 56) + tagged + bytes(58))
