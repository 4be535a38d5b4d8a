#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Replay every bundled trace across a veth pair; on the far side (replay-rx)
# every frame must arrive, byte-identical and in order, matching what -w
# writes for the same command line; the sender's TX counter must agree with
# packets_sent.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

# replay_and_compare NAME TRACE [OPTIONS...]: dry run, real run, compare.
replay_and_compare() {
	local name=$1 trace=$2
	shift 2
	local exp="$WORK/$name.expected.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local tx0 txd0 sn0 sent tx1

	"$REPLAY" -q -w "$exp" "$@" "$trace" || die "$name: dry run failed"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	txd0=$(ifstat "$NS_A" "$IF_A" tx_dropped)
	sn0=$(softnet_drops)
	capture_start "$got" "$exp"
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$js" "$@" "$trace" ||
		die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	tx1=$(ifstat "$NS_A" "$IF_A" tx_packets)
	[ $((tx1 - tx0)) -eq "$sent" ] || die "$name: interface sent $((tx1 - tx0)), replay says $sent"
	[ "$(ifstat "$NS_A" "$IF_A" tx_dropped)" -eq "$txd0" ] || die "$name: veth dropped on send"
	# B's rx_dropped is not checked: it counts frames B's stack discards after
	# the capture has seen them (VLAN tags with no 802.1Q module, unknown
	# EtherTypes).  Loss shows in A's tx_dropped, the backlogs, the receiver's
	# own drop count, its match against the reference, and the frame-by-frame
	# comparison below.
	[ "$(softnet_drops)" -eq "$sn0" ] || die "$name: a softnet backlog dropped frames"
	rx_exact "$sent"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs: $(cat "$WORK/diff")"
	info "$name: $(cat "$WORK/diff"), $sent sent"
}

test_every_trace_topspeed() {
	local n=0 t
	for t in "$TRACES"/*.pcap; do
		replay_and_compare "$(basename "$t" .pcap)-top" "$t" --topspeed
		n=$((n + 1))
	done
	[ $n -ge 5 ] || die "expected the bundled traces in $TRACES, found $n"
}

test_recorded_timing() {
	# Real gaps (a DNS exchange; 1000 frames 1 ms apart): order and count, not timing.
	replay_and_compare dns-timed "$TRACES/dns.pcap"
	replay_and_compare udp-1ms-timed "$TRACES/udp-1ms.pcap"
}

test_loop_and_limit() {
	replay_and_compare http-loop3 "$TRACES/http.pcap" --topspeed --loop 3
	replay_and_compare http-limit "$TRACES/http.pcap" --topspeed --loop 0 --limit 25
	[ "$(json_get "$WORK/http-limit.json" packets_sent)" = 25 ] || die "limit not honoured"
}

test_encodings_identical() {
	# The same capture as a µs little-endian and a ns big-endian pcap: the same wire.
	"$PCAPDIFF" "$TRACES/http.pcap" "$TRACES/http-nsec-be.pcap" >/dev/null ||
		die "http-nsec-be.pcap does not hold http.pcap's frames"
	replay_and_compare http-nsec-be "$TRACES/http-nsec-be.pcap" --topspeed
	"$PCAPDIFF" "$WORK/http-top.got.pcap" "$WORK/http-nsec-be.got.pcap" >/dev/null ||
		die "the two encodings put different frames on the wire"
}

test_backpressure_retried() {
	# A token bucket far slower than the sender: the qdisc fills, send() says
	# ENOBUFS, and every packet must still arrive -- retried, not dropped.
	# (tbf queues limit minus burst bytes: limit = burst leaves no queue at all.)
	local js="$WORK/tbf.json"
	in_a tc qdisc add dev "$IF_A" root tbf rate 5mbit burst 1600 limit 1600
	# (64-byte frames are paced by the kernel inside send() instead; larger ones are refused.)
	replay_and_compare tbf "$TRACES/icmp-flood.pcap" --topspeed
	in_a tc qdisc del dev "$IF_A" root
	[ "$(json_get "$WORK/tbf.json" packets_retried)" -gt 0 ] ||
		die "the token bucket never pushed back; the test proves nothing"
	[ "$(json_get "$WORK/tbf.json" packets_sent)" = 1002 ] || die "not every packet was sent"
}

require_root
init_ns
run_tests test_every_trace_topspeed test_recorded_timing test_loop_and_limit \
	test_encodings_identical test_backpressure_retried
