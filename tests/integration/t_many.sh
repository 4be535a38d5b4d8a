#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Many inputs: a directory of 2000 one-packet captures (as a rotation
# leaves them) plays under ulimit -n 64, in name order, every frame
# arriving once and in order; a bad file among them is refused before a
# frame leaves; --merge of three taps sends the frames in the order
# mergecap -w merges them, ties and all.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"
command -v mergecap >/dev/null || die "mergecap (wireshark-common) is not installed: scripts/deps.sh installs it"

require_root
init_ns

# mkcaps DIR N: N one-packet UDP captures DIR/capI.pcap (I from 1), stamped 100 us apart,
# each frame its own (its number in the payload).
mkcaps() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d, n = sys.argv[1], int(sys.argv[2])
hdr = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
def frame(tag, i):
    payload = struct.pack('>HI', tag, i) + bytes(26)
    udp = struct.pack('>HHHH', 40000, 9, 8 + len(payload), 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    s = sum(struct.unpack('>10H', ip))
    s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    ip = ip[:10] + struct.pack('>H', ~s & 0xffff) + ip[12:]
    return bytes.fromhex('020000000002020000000001') + b'\x08\x00' + ip + udp
for i in range(1, n + 1):
    f = frame(0, i)
    us = i * 100
    with open('%s/cap%d.pcap' % (d, i), 'wb') as o:
        o.write(hdr + struct.pack('<IIII', 1000 + us // 1000000, us % 1000000, len(f), len(f)) + f)
PY
}

test_thousands_of_files() {
	local d="$WORK/rot" ref="$WORK/rot.ref.pcap" rc=0
	mkdir "$d"
	mkcaps "$d" 2000
	# The order is strverscmp's: cap9 before cap10, as written.
	"$REPLAY" -q -t -w "$ref" "$d" || die "dry run of the directory failed"
	python3 - "$ref" <<'PY' || die "the directory was not played in name order"
import struct, sys
b = open(sys.argv[1], 'rb').read(); o = 24; want = 1
while o < len(b):
    cl = struct.unpack('<I', b[o + 8:o + 12])[0]
    tag, i = struct.unpack('>HI', b[o + 16 + 42:o + 16 + 48])
    assert i == want, (i, want)
    want += 1; o += 16 + cl
assert want == 2001, want
PY
	capture_start "$WORK/rot.cap.pcap" "$ref"
	(ulimit -n 64 && exec ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --pps 10000 \
		--stats-json "$WORK/rot.json" "$d") 2>"$WORK/rot.err" || rc=$?
	capture_stop
	[ "$rc" -eq 0 ] || die "2000 files under ulimit -n 64: exit $rc: $(cat "$WORK/rot.err")"
	rx_exact 2000
	[ "$(json_get "$WORK/rot.json" packets_sent)" -eq 2000 ] || die "replay did not count 2000 sent"
	grep -q '"name":"'"$d"'/cap2000.pcap","format":"pcap","records":1' "$WORK/rot.json" ||
		die "--stats-json has no files entry for the last capture"
}

test_bad_file_before_sending() {
	local d="$WORK/bad"
	mkdir "$d"
	mkcaps "$d" 300
	echo "not a capture" >"$d/zz-notes.txt"
	capture_start "$WORK/bad.cap.pcap"
	(ulimit -n 64 && exec ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --pps 10000 "$d") \
		>"$WORK/out" 2>"$WORK/err" && die "a directory with a non-trace file was played"
	capture_stop
	grep -q "zz-notes.txt: not a trace file" "$WORK/err" || die "the bad file was not named: $(cat "$WORK/err")"
	[ "$(json_get "$RX_JSON" received)" -eq 0 ] ||
		die "$(json_get "$RX_JSON" received) frames left before the bad file was found"
}

test_merge_like_mergecap() {
	local t k
	# Three taps, each in its own order, with timestamps shared across them (ties).
	python3 - "$WORK" <<'PY'
import random, struct, sys
random.seed(7)
hdr = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for tap in range(3):
    out, ms = hdr, 0
    for i in range(300):
        ms += random.choice([0, 0, 1, 2])
        f = bytes.fromhex('020000000002020000000001') + b'\x08\x00' + bytes([0x45, 0, 0, 46]) + \
            struct.pack('>HI', tap, i) + bytes(36)
        out += struct.pack('<IIII', 1000, ms * 1000, len(f), len(f)) + f
    open('%s/tap%d.pcap' % (sys.argv[1], tap), 'wb').write(out)
PY
	t="$WORK/tap0.pcap $WORK/tap1.pcap $WORK/tap2.pcap"
	mergecap -F pcap -w "$WORK/merged.pcap" $t || die "mergecap failed"
	"$REPLAY" -q -t --merge -w "$WORK/ours.pcap" $t || die "replay --merge -w failed"
	"$PCAPDIFF" "$WORK/merged.pcap" "$WORK/ours.pcap" >"$WORK/diff" ||
		die "--merge differs from mergecap -w: $(cat "$WORK/diff")"
	capture_start "$WORK/merge.cap.pcap" "$WORK/merged.pcap"
	in_a "$REPLAY" -q -i "$IF_A" --pps 5000 --merge $t 2>"$WORK/err" || die "--merge over veth: $(cat "$WORK/err")"
	capture_stop
	rx_exact 900
	"$PCAPDIFF" "$WORK/merged.pcap" "$WORK/merge.cap.pcap" >"$WORK/diff" ||
		die "far side differs from mergecap's order: $(cat "$WORK/diff")"
	expect_fail 2 "--merge.*standard input" "$REPLAY" -q --merge -w "$WORK/x.pcap" - -
	expect_fail 2 "--merge.*--dualfile" "$REPLAY" -q --merge -2 -i "$IF_A" -I lo $t
}

run_tests test_thousands_of_files test_bad_file_before_sending test_merge_like_mergecap
