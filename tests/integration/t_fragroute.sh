#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --fragroute over a veth pair: http.pcap through "tcp_seg 16", through
# "ip_frag 24" then "order reverse", and through tcp_opt and tcp_chaff.  On the far side (tcpdump) every frame
# the rules made arrived, equal to what -w writes; tshark reassembles the
# fragments (reversed, each datagram's last first) into the TCP segments
# the trace holds, and the segments into the trace's TCP streams; every
# checksum is good.  The accounting holds: read + frames - fragrouted =
# sent + filtered + failed.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

TRACE=$TRACES/http.pcap

# frag_invariant FILE: read + segments - segmented = sent + filtered + failed.
frag_invariant() {
	local r s f x g n
	r=$(json_get "$1" packets_read)
	s=$(json_get "$1" packets_sent)
	f=$(json_get "$1" packets_filtered)
	x=$(json_get "$1" packets_failed)
	g=$(json_get "$1" packets_segmented)
	n=$(json_get "$1" segments)
	[ $((r + n - g)) -eq $((s + f + x)) ] ||
		die "accounting: read $r + frames $n - fragrouted $g != sent $s + filtered $f + failed $x"
	# Frames without IP (ARP) go out as they are, not through the rules.
	[ "$g" = "$(tshark -r "$TRACE" -Y ip 2>/dev/null | wc -l)" ] || die "$g of $r frames went through the rules"
	[ "$n" -gt "$r" ] || die "the rules made $n frames of $r"
}

# streams FILE: tshark's reassembled TCP payload of every stream, one md5.
streams() {
	local s out=""
	for s in $(tshark -r "$1" -T fields -e tcp.stream 2>/dev/null | sort -un); do
		out+=$(tshark -r "$1" -qz "follow,tcp,raw,$s" 2>/dev/null | grep -E '^[0-9a-f]+$' | tr -d '\n')
		out+=/
	done
	echo "$out" | md5sum | cut -d' ' -f1
}

# run_rules NAME RULES: replay -w and over the veth through RULES; the far side's capture in $WORK/NAME.got.
run_rules() {
	local name=$1 js=$WORK/$1.json got=$WORK/$1.got exp=$WORK/$1.exp
	printf '%b' "$2" >"$WORK/$name.rules"
	"$REPLAY" -q -t --fragroute "$WORK/$name.rules" -w "$exp" "$TRACE" || die "$name: -w failed"
	tcpdump_start "$got"
	in_a "$REPLAY" -q -t --fragroute "$WORK/$name.rules" -i "$IF_A" --stats-json "$js" "$TRACE" ||
		die "$name: replay exited $?"
	tcpdump_stop
	frag_invariant "$js"
	[ "$(json_get "$js" packets_sent)" = $(($(json_get "$js" segments) + $(json_get "$js" packets_read) -
		$(json_get "$js" packets_segmented))) ] || die "$name: not every frame was sent"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs from -w: $(cat "$WORK/diff")"
}

test_tcp_seg() {
	local bad
	run_rules seg 'tcp_seg 16\n'
	bad=$(tshark -r "$WORK/seg.got" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-Y 'ip.checksum.status == 0 || tcp.checksum.status == 0' 2>/dev/null | wc -l)
	[ "$bad" = 0 ] || die "tcp_seg: $bad frames with a bad checksum"
	[ "$(tshark -r "$WORK/seg.got" -Y 'tcp.len > 16' 2>/dev/null | wc -l)" = 0 ] || die "tcp_seg: a segment over 16 bytes"
	[ "$(streams "$WORK/seg.got")" = "$(streams "$TRACE")" ] || die "tcp_seg: the streams do not reassemble"
	info "tcp_seg 16: $(json_get "$WORK/seg.json" segments) frames; checksums good; streams reassembled"
}

test_ip_frag() {
	local n
	run_rules frag 'ip_frag 24\norder reverse\n'
	# Each datagram cut is sent last fragment first: tshark reassembles every one.
	n=$(tshark -r "$WORK/frag.got" -o ip.defragment:TRUE -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-Y 'tcp && !(ip.checksum.status == 0) && !(tcp.checksum.status == 0)' 2>/dev/null | wc -l)
	[ "$n" = "$(tshark -r "$TRACE" -Y tcp 2>/dev/null | wc -l)" ] || die "ip_frag: $n TCP segments reassembled"
	[ "$(streams "$WORK/frag.got")" = "$(streams "$TRACE")" ] || die "ip_frag: the streams do not reassemble"
	info "ip_frag 24, order reverse: $(json_get "$WORK/frag.json" segments) frames; every segment reassembled"
}

# Options and chaff: every TCP segment carries the added MSS option and
# every data segment goes twice, the real one and its chaff of the same
# sequence number (rexmit), both with good checksums.
test_opt_chaff() {
	local tcp bad odd
	run_rules chaff 'tcp_seg 1000\ntcp_opt mss 1400\ntcp_chaff rexmit\n'
	tcp=$(tshark -r "$WORK/chaff.got" -Y tcp 2>/dev/null | wc -l)
	[ "$tcp" -gt 0 ] || die "opt/chaff: no TCP arrived"
	[ "$(tshark -r "$WORK/chaff.got" -Y 'tcp.options.mss_val == 1400' 2>/dev/null | wc -l)" = "$tcp" ] ||
		die "opt/chaff: a TCP segment without the added MSS option"
	bad=$(tshark -r "$WORK/chaff.got" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-Y 'ip.checksum.status == 0 || tcp.checksum.status == 0' 2>/dev/null | wc -l)
	[ "$bad" = 0 ] || die "opt/chaff: $bad frames with a bad checksum"
	odd=$(tshark -r "$WORK/chaff.got" -o tcp.relative_sequence_numbers:FALSE -Y 'tcp.len > 0' \
		-T fields -e tcp.srcport -e tcp.seq 2>/dev/null | sort | uniq -c | awk '$1 != 2' | wc -l)
	[ "$odd" = 0 ] || die "opt/chaff: $odd data segments not sent exactly twice (real and chaff)"
	info "tcp_opt mss, tcp_chaff rexmit: $(json_get "$WORK/chaff.json" segments) frames; every segment with its option and its chaff"
}

require_root
if ! command -v tshark >/dev/null; then
	[ "${CI:-}" = true ] && die "tshark is not installed (scripts/deps.sh installs it)"
	echo "SKIP: tshark is not installed"
	exit $SKIP
fi
init_ns
run_tests test_tcp_seg test_ip_frag test_opt_chaff
