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
	# --stats-json: one object per pass (http.pcap: 40 frames), summing to the totals.
	[ "$(check_passes "$WORK/http-loop3.json" 3)" = "40 40 40" ] || die "--loop 3: passes $(check_passes "$WORK/http-loop3.json" 3)"
	[ "$(check_passes "$WORK/http-limit.json" 1)" = 25 ] || die "--limit 25: passes wrong"
	replay_and_compare http-limit100 "$TRACES/http.pcap" --topspeed --loop 0 --limit 100
	[ "$(check_passes "$WORK/http-limit100.json" 3)" = "40 40 20" ] || die "--loop 0 --limit 100: passes wrong"
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

# Progress while sending: on a terminal (script(1) gives one) a status line rewritten in place
# about twice a second and erased before the summary; --stats N gives tcpreplay's lines instead;
# nothing of either when stdout is not a terminal, with -q or with --no-progress.
test_progress() {
	local out=$WORK/progress.out n
	command -v script >/dev/null || die "script(1) is missing (util-linux)"
	in_a script -qec "$REPLAY -i $IF_A --pps 400 --limit 800 --loop 0 $TRACES/udp-1ms.pcap" /dev/null >"$out" ||
		die "replay under a terminal failed: $(tr '\r' '\n' <"$out")"
	n=$(tr '\r' '\n' <"$out" | grep -cE '^sent [0-9.]+k? packets \(.*pps, .*bit/s, 0:0[0-9], p99 .* stalls, 0 failed' || true)
	[ "$n" -ge 2 ] || die "expected status lines on the terminal, got $n: $(tr '\r' '\n' <"$out")"
	tr '\r' '\n' <"$out" | grep -q "^Actual: 800 packets" || die "no summary after the status line: $(cat "$out")"
	# Not a terminal: no status line, the summary alone.
	in_a "$REPLAY" -i "$IF_A" --pps 2000 --limit 200 --loop 0 "$TRACES/udp-1ms.pcap" >"$out"
	! grep -q $'\r' "$out" || die "a status line went to a file"
	in_a script -qec "$REPLAY -i $IF_A --no-progress --pps 2000 --limit 400 --loop 0 $TRACES/udp-1ms.pcap" /dev/null >"$out"
	! grep -q "^sent " <(tr '\r' '\n' <"$out") || die "--no-progress printed a status line"
	# --stats 1: tcpreplay's two lines every second, then the summary.
	in_a "$REPLAY" -i "$IF_A" --stats 1 --pps 500 --limit 1300 --loop 0 "$TRACES/udp-1ms.pcap" >"$out"
	n=$(grep -cE '^Actual: [0-9]+ packets \([0-9]+ bytes\) sent in [0-9]+\.[0-9]{2} seconds$' "$out" || true)
	[ "$n" -ge 2 ] || die "--stats 1 over 2.6 s: expected 2 periodic lines, got $n: $(cat "$out")"
	grep -qE '^Rated: [0-9.]+ Bps, [0-9.]+ Mbps, [0-9.]+ pps$' "$out" || die "--stats: no Rated line: $(cat "$out")"
	# --stats 0: a line after every loop pass (udp-1ms.pcap holds 1000 frames).
	in_a "$REPLAY" -i "$IF_A" --stats 0 -t --loop 3 "$TRACES/udp-1ms.pcap" >"$out"
	for k in 1000 2000 3000; do
		grep -qE "^Actual: $k packets .* sent in [0-9]+\.[0-9]{2} seconds$" "$out" ||
			die "--stats 0: no line after pass $((k / 1000)): $(cat "$out")"
	done
	info "progress: status line on a terminal, tcpreplay's --stats lines"
}

require_root
init_ns
run_tests test_every_trace_topspeed test_recorded_timing test_loop_and_limit \
	test_encodings_identical test_backpressure_retried test_progress
