#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --gso over a veth pair with MTU 1500: the TCP frames of a capture taken
# before TSO (30000 bytes over IPv4 and IPv6, CWR set, checksums left to
# offload) go to the kernel whole behind a virtio_net_hdr and the kernel
# cuts them; the UDP datagrams are still fragmented by replay.  The far
# side (tcpdump) must see exactly what --segment alone puts there: the same
# frames, bytes and order (pcapdiff), every checksum good (tshark), the TCP
# streams reassembled to the original payloads -- for each method that
# takes --gso.  The sending end has TSO, GSO and checksum offload off:
# veth passes a GSO frame to its peer whole (the far side would capture one
# 30000-byte frame whose checksum is never completed), so only with them
# off does the kernel cut and checksum in software before the driver, as
# it does for a NIC without TSO -- the path whose output can be compared.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

MKBIG="$(dirname "$0")/mkbig.py"

# far_side OUT.pcap JSON ARGS...: replay ARGS on A's end, the far side captured into OUT.pcap.
far_side() {
	local out=$1 js=$2
	shift 2
	tcpdump_start "$out"
	in_a "$REPLAY" -q -t --segment -i "$IF_A" --stats-json "$js" "$@" "$WORK/big.pcap" ||
		die "replay --segment $* exited $?"
	tcpdump_stop
}

# stream_md5 PCAP N: the md5 of TCP stream N's payload as the far side reassembles it.
stream_md5() {
	tshark -r "$1" -qz "follow,tcp,raw,$2" 2>/dev/null | grep -E '^[0-9a-f]+$' | tr -d '\n' |
		md5sum | cut -d' ' -f1
}

test_kernel_cuts_the_same() {
	local soft=$WORK/soft.pcap got js m bad s k methods="packet mmsg"
	python3 "$MKBIG" "$WORK/big.pcap" "$WORK" --cwr
	in_a ethtool -K "$IF_A" tso off gso off tx off >/dev/null || die "ethtool -K failed"
	far_side "$soft" "$WORK/soft.json" --method mmsg
	[ "$(json_get "$WORK/soft.json" packets_sent)" = 71 ] || die "--segment alone: not 71 frames sent"
	[ "$(tshark -r "$soft" 2>/dev/null | wc -l)" = 71 ] || die "--segment alone: not 71 frames on the far side"
	# uring where it is built in (read whole: grep -q closing the pipe early would fail it under pipefail).
	grep -q 'NAME:.*uring' <<<"$("$REPLAY" --help 2>&1)" && methods="$methods uring"
	for m in $methods; do
		got=$WORK/gso-$m.pcap
		js=$WORK/gso-$m.json
		far_side "$got" "$js" --gso --method "$m"
		# Two TCP frames went whole (43 segments cut by the kernel), the UDP ones as 28 fragments.
		[ "$(json_get "$js" packets_gso)" = 2 ] || die "$m: $(json_get "$js" packets_gso) frames to the kernel, not 2"
		[ "$(json_get "$js" gso_segments)" = 43 ] || die "$m: $(json_get "$js" gso_segments) kernel segments, not 43"
		[ "$(json_get "$js" segments)" = 28 ] || die "$m: $(json_get "$js" segments) fragments, not 28"
		[ "$(json_get "$js" packets_sent)" = 30 ] || die "$m: $(json_get "$js" packets_sent) sent, not 30"
		check_invariant_seg "$js"
		[ "$(tshark -r "$got" 2>/dev/null | wc -l)" = 71 ] || die "$m: $(tshark -r "$got" 2>/dev/null | wc -l) frames on the far side, not 71"
		"$PCAPDIFF" "$soft" "$got" >"$WORK/diff" || die "$m: the kernel's cut differs from ours: $(cat "$WORK/diff")"
		bad=$(tshark -r "$got" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE \
			-Y 'ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0' 2>/dev/null | wc -l)
		[ "$bad" = 0 ] || die "$m: $bad frames with a bad checksum"
		[ "$(tshark -r "$got" -o tcp.check_checksum:TRUE -Y 'tcp.checksum.status == 1' 2>/dev/null | wc -l)" = 43 ] ||
			die "$m: not every TCP segment's checksum was verified good"
		# CWR on the first segment of each frame only.
		[ "$(tshark -r "$got" -Y 'tcp.flags.cwr == 1' 2>/dev/null | wc -l)" = 2 ] || die "$m: CWR not on 2 segments"
		for s in 0 1; do
			k=$([ $s = 0 ] && echo tcp4 || echo tcp6)
			[ "$(stream_md5 "$got" $s)" = "$(md5sum <"$WORK/$k.hex" | cut -d' ' -f1)" ] ||
				die "$m: $k: the stream does not reassemble to the payload"
		done
		[ "$(tshark -r "$got" -T fields -e tcp.payload -e data.data 2>/dev/null | md5sum)" = \
			"$(tshark -r "$soft" -T fields -e tcp.payload -e data.data 2>/dev/null | md5sum)" ] ||
			die "$m: the far side's payloads differ between the paths"
	done
	info "$methods: the kernel's 43 segments equal ours, frame for frame; checksums good; streams reassembled"
}

# check_invariant_seg FILE: read + segments - segmented = sent + filtered + failed (a frame the kernel cuts is one sent).
check_invariant_seg() {
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

test_refused() {
	python3 "$MKBIG" "$WORK/big.pcap" "$WORK"
	expect_fail 2 "--gso needs --segment" in_a "$REPLAY" -q -t --gso -i "$IF_A" "$WORK/big.pcap"
	expect_fail 2 "--gso excludes -w" "$REPLAY" -q -t --segment --gso -w "$WORK/x.pcap" "$WORK/big.pcap"
	expect_fail 1 "the ring method cannot hand the kernel" in_a "$REPLAY" -q -t --segment --gso --method ring \
		-i "$IF_A" "$WORK/big.pcap"
}

require_root
if ! command -v tshark >/dev/null || ! command -v ethtool >/dev/null; then
	[ "${CI:-}" = true ] && die "tshark or ethtool is not installed (scripts/deps.sh installs them)"
	echo "SKIP: tshark or ethtool is not installed"
	exit $SKIP
fi
init_ns
run_tests test_kernel_cuts_the_same test_refused
