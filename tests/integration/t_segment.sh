#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --segment over a veth pair with MTU 1500: a capture's 30000-byte TCP
# segments and 20000-byte UDP datagrams (IPv4 and IPv6, checksums left to
# offload) leave as MSS-sized segments and fragments.  On the far side
# (tcpdump) every frame fits the MTU and arrived, matches what -w writes,
# has valid IPv4, TCP and UDP checksums (tshark), and the TCP streams and
# UDP datagrams reassemble to the original payloads.  Without --segment
# each such frame fails; with IPv4 DF a UDP datagram fails, said once.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

MKBIG="$(dirname "$0")/mkbig.py"

# seg_invariant FILE: read + segments - segmented = sent + filtered + failed.
seg_invariant() {
	local r s f x g n
	r=$(json_get "$1" packets_read)
	s=$(json_get "$1" packets_sent)
	f=$(json_get "$1" packets_filtered)
	x=$(json_get "$1" packets_failed)
	g=$(json_get "$1" packets_segmented)
	n=$(json_get "$1" segments)
	[ $((r + n - g)) -eq $((s + f + x)) ] ||
		die "accounting: read $r + segments $n - segmented $g != sent $s + filtered $f + failed $x"
}

# tshark_md5 ARGS...: the md5 of what tshark prints.
tshark_md5() { tshark "$@" 2>/dev/null | md5sum | cut -d' ' -f1; }

test_segments_reassemble() {
	local js=$WORK/seg.json got=$WORK/got.pcap exp=$WORK/exp.pcap bad s k
	python3 "$MKBIG" "$WORK/big.pcap" "$WORK"
	"$REPLAY" -q -t --segment -w "$exp" "$WORK/big.pcap" || die "-w --segment failed"
	tcpdump_start "$got"
	in_a "$REPLAY" -q -t --segment -i "$IF_A" --stats-json "$js" "$WORK/big.pcap" ||
		die "replay --segment exited $?"
	tcpdump_stop
	seg_invariant "$js"
	[ "$(json_get "$js" packets_read)" = 4 ] || die "read $(json_get "$js" packets_read), not 4"
	[ "$(json_get "$js" packets_segmented)" = 4 ] || die "not every frame was cut"
	# 30000 / 1448 (MSS: 1500 - 20 - 32) = 21; 20008 / 1480 = 14; 30000 / 1428 = 22; 20008 / 1448 = 14.
	[ "$(json_get "$js" segments)" = 71 ] || die "$(json_get "$js" segments) segments, not 71"
	[ "$(json_get "$js" packets_sent)" = 71 ] || die "$(json_get "$js" packets_sent) sent, not 71"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "far side differs from -w: $(cat "$WORK/diff")"
	[ "$(tshark -r "$got" -Y 'frame.len > 1514' 2>/dev/null | wc -l)" = 0 ] || die "a frame longer than the MTU"
	bad=$(tshark -r "$got" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-Y 'ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0' 2>/dev/null | wc -l)
	[ "$bad" = 0 ] || die "$bad frames with a bad checksum"
	[ "$(tshark -r "$got" -o tcp.check_checksum:TRUE -Y 'tcp.checksum.status == 1' 2>/dev/null | wc -l)" = 43 ] ||
		die "not every TCP segment's checksum was verified good"
	for s in 0 1; do
		k=$([ $s = 0 ] && echo tcp4 || echo tcp6)
		[ "$(tshark -r "$got" -qz "follow,tcp,raw,$s" 2>/dev/null | grep -E '^[0-9a-f]+$' | tr -d '\n' |
			md5sum | cut -d' ' -f1)" = "$(md5sum <"$WORK/$k.hex" | cut -d' ' -f1)" ] ||
			die "$k: the stream does not reassemble to the payload"
	done
	tshark -r "$got" -o udp.check_checksum:TRUE -Y 'udp.checksum.status == 1' -T fields -e data.data \
		2>/dev/null >"$WORK/udp.txt"
	[ "$(wc -l <"$WORK/udp.txt")" = 2 ] || die "$(wc -l <"$WORK/udp.txt") UDP datagrams reassembled with a good checksum, not 2"
	for k in 1 2; do
		s=$([ $k = 1 ] && echo udp4 || echo udp6)
		[ "$(sed -n "${k}p" "$WORK/udp.txt" | tr -d '\n' | md5sum | cut -d' ' -f1)" = \
			"$(md5sum <"$WORK/$s.hex" | cut -d' ' -f1)" ] || die "$s: the datagram does not reassemble"
	done
	info "71 segments and fragments of 4 frames; checksums good; streams and datagrams reassembled"
}

test_passes_account() {
	# A batch of 8 holds fewer than a frame's segments: passes end with some in flight.
	python3 "$MKBIG" "$WORK/big.pcap" "$WORK"
	"$REPLAY" -q -t --segment --batch 8 --loop 3 -w "$WORK/loop.pcap" --stats-json "$WORK/loop.json" \
		"$WORK/big.pcap" || die "--loop 3 --segment failed"
	[ "$(check_passes "$WORK/loop.json" 3)" = "4 4 4" ] || die "--loop 3: passes do not account"
	[ "$(json_get "$WORK/loop.json" segments)" = 213 ] || die "--loop 3: not 3 x 71 segments"
}

test_without_segment_fails() {
	local js=$WORK/noseg.json
	python3 "$MKBIG" "$WORK/big.pcap" "$WORK"
	expect_fail 1 "exceeds .*MTU 1500" in_a "$REPLAY" -q -t -i "$IF_A" --stats-json "$js" "$WORK/big.pcap"
	[ "$(json_get "$js" packets_failed)" = 4 ] || die "without --segment: $(json_get "$js" packets_failed) failed, not 4"
	! grep -q segments "$js" || die "without --segment the JSON speaks of segments"
}

test_df_refused() {
	local js=$WORK/df.json
	python3 "$MKBIG" "$WORK/df.pcap" "$WORK" --df
	expect_fail 1 "DF" in_a "$REPLAY" -q -t --segment --loop 3 -i "$IF_A" --stats-json "$js" "$WORK/df.pcap"
	[ "$(json_get "$js" packets_failed)" = 3 ] || die "DF: $(json_get "$js" packets_failed) failed, not 3"
	[ "$(json_get "$js" packets_segmented)" = 0 ] || die "DF: a frame was cut"
	[ "$(grep -c DF "$WORK/err")" = 1 ] || die "DF: said $(grep -c DF "$WORK/err") times, not once"
	seg_invariant "$js"
}

require_root
if ! command -v tshark >/dev/null; then
	[ "${CI:-}" = true ] && die "tshark is not installed (scripts/deps.sh installs it)"
	echo "SKIP: tshark is not installed"
	exit $SKIP
fi
init_ns
run_tests test_segments_reassemble test_passes_account test_without_segment_fails test_df_refused
