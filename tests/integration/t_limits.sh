#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Crafted traces at the pipeline's limits: one frame limit
# (262144 bytes) through reader, conversion, edits and writer; 32-bit wire
# lengths that would wrap; --mtu-trunc below the IP header; a stale --prep
# sidecar; and the messages for what is actually wrong.  Each used to crash
# (the ASan build), corrupt the heap, or go out wrong with exit 0.  Needs no
# network: everything is written with -w.
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /tmp/replay-limits.XXXXXX)
trap '[ "${KEEP:-0}" = 1 ] && echo "# kept $WORK" || rm -rf "$WORK"' EXIT
python3 "$(dirname "$0")/mklimits.py" "$WORK"
O="$WORK/o.pcap"
JS="$WORK/s.json"

# The conversion refuses a packet whose Ethernet form would pass the limit, per record:
# counted failed, the next packet still sent.  pcap, pcapng and a pipe alike.
test_conversion_limit() {
	local f
	for f in raw-cap.pcap raw-cap.pcapng; do
		expect_fail 1 "^replay: $WORK/$f: record 1 at offset 0x[0-9a-f]+: RAW packet has no Ethernet form: its Ethernet frame would be 262158 bytes, longer than the frame limit \(262144\)$" \
			"$REPLAY" --topspeed -w "$O" --stats-json "$JS" --dmac 00:11:22:33:44:55 "$WORK/$f"
		[ "$(json_get "$JS" packets_sent)" = 1 ] && [ "$(json_get "$JS" packets_failed)" = 1 ] ||
			die "$f: expected 1 sent, 1 failed: $(cat "$JS")"
	done
	expect_fail 1 "^replay: -: record 1 at offset 0x18: RAW packet has no Ethernet form: its Ethernet frame would be 262158 bytes" \
		sh -c "'$REPLAY' --topspeed -w '$O' --ttl 9 - <'$WORK/raw-cap.pcap'"
	# replay prep walks the same chain: the same error, no sidecar.
	expect_fail 1 "raw-cap.pcap: record 1 at offset 0x18: RAW packet has no Ethernet form" \
		"$REPLAY" prep "$WORK/raw-cap.pcap" -o "$WORK/raw.prep" --dmac 00:11:22:33:44:55
	[ ! -e "$WORK/raw.prep" ] || die "a failed prep left a sidecar"
}

# VLAN del then padding to wire lengths 262145..262148: 262141..262144 bytes, all inside
# the buffer (this read 1-4 bytes past it), every padded byte zero.
test_vlan_del_pad() {
	local mode
	for mode in "--fixlen pad" "--pad-payload"; do
		# shellcheck disable=SC2086
		"$REPLAY" -q --topspeed -w "$O" --enet-vlan del $mode "$WORK/vlan-wire.pcap" ||
			die "vlan del + $mode failed"
		"$REPLAY" --info "$O" >"$WORK/info"
		grep -q "^packets: *4$" "$WORK/info" || die "$mode: $(cat "$WORK/info")"
		python3 - "$O" <<'PY' || die "vlan del + $mode: wrong frames"
import struct, sys
b = open(sys.argv[1], 'rb').read()
at, n = 24, 0
while at < len(b):
    cap = struct.unpack_from('<I', b, at + 8)[0]
    f = b[at + 16:at + 16 + cap]
    assert cap == 262141 + n, (n, cap)
    assert f[12:14] == b'\x08\x00', f[12:14]   # the tag is gone
    assert not any(f[96:]), 'padding is not zero'
    at += 16 + cap
    n += 1
assert n == 4
PY
	done
}

# A wire length of 2^32 - 1 never wraps to a small one (which went out unpadded, exit 0).
test_wire_top() {
	expect_fail 1 "wire-top.pcap: record 1 at offset 0x18: edit: a VLAN tag would overflow the wire length 4294967295$" \
		"$REPLAY" --topspeed -w "$O" --enet-vlan add --enet-vlan-tag 5 --fixlen pad "$WORK/wire-top.pcap"
	expect_fail 1 "null-wire-top.pcap: record 1 at offset 0x18: NULL packet has no Ethernet form: its wire length 4294967295 would overflow as an Ethernet frame$" \
		"$REPLAY" --topspeed -w "$O" --fixlen pad "$WORK/null-wire-top.pcap"
}

# --mtu-trunc never cuts into the IP header (it wrote a total length of 20 under a 24-byte one).
test_mtu_ip_header() {
	expect_fail 1 "ipopt.pcap: record 1 at offset 0x18: edit: --mtu 20 is shorter than this packet's IPv4 header \(24 bytes\); --mtu-trunc never cuts IP headers$" \
		"$REPLAY" --topspeed -w "$O" --mtu-trunc --mtu 20 "$WORK/ipopt.pcap"
	"$REPLAY" -q --topspeed -w "$O" --mtu-trunc --mtu 24 "$WORK/ipopt.pcap" || die "--mtu 24"
	python3 - "$O" <<'PY' || die "--mtu 24: wrong frame"
import struct, sys
b = open(sys.argv[1], 'rb').read()
cap = struct.unpack_from('<I', b, 24 + 8)[0]
assert cap == 14 + 24, cap
assert struct.unpack_from('>H', b, 40 + 16)[0] == 24
PY
}

# The sidecar is bound to the whole trace: one payload byte changed (same size, mtime put
# back with touch -r) is refused; a trace only touched keeps its sidecar.
test_prep_stale() {
	local t="$WORK/payload.pcap" s="$WORK/payload.prep"
	"$REPLAY" prep -q "$t" -o "$s" --pad-payload || die "prep"
	touch "$t"
	"$REPLAY" -q --topspeed -w "$O" --pad-payload --prep "$s" "$t" || die "a touched trace lost its sidecar"
	cp -p "$t" "$WORK/ref"
	printf '\x55' | dd of="$t" bs=1 seek=2900 conv=notrunc status=none
	touch -r "$WORK/ref" "$t"
	[ "$(stat -c %s.%Y "$t")" = "$(stat -c %s.%Y "$WORK/ref")" ] || die "size or mtime differ"
	expect_fail 1 "^replay: $s: stale or foreign sidecar: it was made for a trace of 3072 bytes with content hash [0-9a-f]{16}, $t is 3072 bytes with content hash [0-9a-f]{16}; run 'replay prep' again$" \
		"$REPLAY" --topspeed -w "$O" --pad-payload --prep "$s" "$t"
}

# Messages that say what is wrong.
test_messages() {
	: >"$WORK/x.prep"
	expect_fail 1 "^replay: --prep: the trace - is standard input, not a regular file; a sidecar is checked against the whole trace file, so give its path$" \
		sh -c "'$REPLAY' -w '$O' --prep '$WORK/x.prep' - <'$TRACES/dns.pcap'"
	expect_fail 2 "^replay: --include: 'P:5-x': expected the packet number that ends the range at 'x'$" \
		"$REPLAY" -w "$O" --include P:5-x "$TRACES/dns.pcap"
	expect_fail 2 "^replay: --include: 'P:5-3': the range 5-3 goes from high to low$" \
		"$REPLAY" -w "$O" --include P:5-3 "$TRACES/dns.pcap"
	expect_fail 1 "^replay: $WORK/bad-first.erf: record 1 at offset 0x0: record length 8 is shorter than the 16-byte header$" \
		"$REPLAY" -w "$O" "$WORK/bad-first.erf"
}

run_tests test_conversion_limit test_vlan_del_pad test_wire_top test_mtu_ip_header test_prep_stale test_messages
