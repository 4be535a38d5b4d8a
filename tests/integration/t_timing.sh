#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The timing engine across a veth pair: traces with known gaps replayed in
# every timing mode, timer and late policy.  On the far side every frame must
# arrive, in order and byte-identical to what -w writes for the same command
# line.  Order and count only: how well the timing is kept is measured by
# scripts/bench/timing.sh, not asserted here.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

# timed NAME TRACE [OPTIONS...]: dry run, real run, compare; the JSON is $WORK/NAME.json.
timed() {
	local name=$1 trace=$2
	shift 2
	local exp="$WORK/$name.expected.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local sn0 sent

	"$REPLAY" -q -w "$exp" "$@" "$trace" || die "$name: dry run failed"
	sn0=$(softnet_drops)
	capture_start "$got"
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$js" "$@" "$trace" || die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	[ "$(softnet_drops)" -eq "$sn0" ] || die "$name: a softnet backlog dropped frames"
	# One send-time error per packet sent, and the stall counters reported.
	[ "$(json_get "$js" count)" = "$sent" ] || die "$name: $(json_get "$js" count) send errors for $sent packets"
	grep -q '"late_stalls":[0-9]' "$js" || die "$name: no late_stalls in $(cat "$js")"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs: $(cat "$WORK/diff")"
	info "$name: $(cat "$WORK/diff"), $sent sent, timer $(grep -o '"timer":"[a-z]*"' "$js" | cut -d'"' -f4)"
}

# The sequence gentrace writes (IP ID = sequence number mod 2^16), as it arrived, read
# by tcpdump rather than by our own code: 0, 1, 2, ... in order, nothing missing.
check_sequence() {
	local got=$1 n=$2 ids
	ids=$(tcpdump -r "$got" -nn -v 2>/dev/null | grep -o ' id [0-9]*' | awk '{ print $2 }')
	[ "$(echo "$ids" | wc -l)" -eq "$n" ] || die "expected $n frames with IP IDs in $got"
	echo "$ids" | awk '$1 != (NR - 1) % 65536 { print "frame " NR " has sequence " $1; bad = 1 }
		END { exit bad }' || die "frames arrived out of order"
}

make_traces() {
	"$GENTRACE" udp -o "$WORK/g20.pcap" --count 3000 --gap-us 20
	"$GENTRACE" udp -o "$WORK/g1ms.pcap" --count 300 --gap-us 1000 --size 300
	"$GENTRACE" udp -o "$WORK/g-mixed.pcap" --count 500 --gap-us 100 --size 1514 --flows 7
}

test_recorded_gaps() {
	timed hybrid-20us "$WORK/g20.pcap"
	check_sequence "$WORK/hybrid-20us.got.pcap" 3000
	timed sleep-1ms "$WORK/g1ms.pcap" --timer sleep
	timed spin-1ms "$WORK/g1ms.pcap" --timer spin --speed 4
	timed fixed-margin "$WORK/g1ms.pcap" --spin-us 50 --speed 0.5 --limit 40
}

test_rates() {
	timed pps "$WORK/g20.pcap" --pps 50000
	check_sequence "$WORK/pps.got.pcap" 3000
	timed mbps "$WORK/g-mixed.pcap" --mbps 200 --wire-overhead
	timed pps-loop "$WORK/g1ms.pcap" --pps 20000 --loop 3
	[ "$(json_get "$WORK/pps-loop.json" packets_sent)" = 900 ] || die "pps-loop: not every pass sent"
}

test_late_policies() {
	# A threshold far below the wake-up lateness: stalls happen, and both policies
	# still deliver every packet in order.
	timed shift "$WORK/g1ms.pcap" --timer sleep --late shift --late-threshold 1
	[ "$(json_get "$WORK/shift.json" late_stalls)" -gt 0 ] ||
		die "a 1 us threshold under the sleep timer saw no stall; the test proves nothing"
	timed catchup "$WORK/g20.pcap" --timer sleep --late catchup --late-threshold 1
	[ "$(json_get "$WORK/catchup.json" late_packets)" -gt 0 ] || die "catchup: no late packets counted"
}

test_realtime() {
	# SCHED_FIFO, pinned, memory locked (root may; a refusal would only warn).
	timed rt "$WORK/g20.pcap" --rt-priority 10 --cpu 0
	check_sequence "$WORK/rt.got.pcap" 3000
	in_a "$REPLAY" -i "$IF_A" --rt-priority 10 --cpu 0 --limit 1 --debug "$WORK/g20.pcap" \
		>"$WORK/rt.out" 2>"$WORK/rt.err" || die "rt: exited $?"
	grep -q "SCHED_FIFO" "$WORK/rt.err" || die "rt: not running under SCHED_FIFO: $(cat "$WORK/rt.err")"
	# A CPU that does not exist is a warning, not a failure.
	in_a "$REPLAY" -i "$IF_A" --cpu 1023 --limit 1 "$WORK/g20.pcap" >"$WORK/cpu.out" 2>"$WORK/cpu.err" ||
		die "--cpu 1023 failed the run"
	grep -q "warning: --cpu 1023" "$WORK/cpu.err" || die "no warning for --cpu 1023"
}

# Capture times (tcpdump -tt): the span from first to last frame, and the gap before frame N, s.
cap_span() { tcpdump -tt -r "$1" 2>/dev/null | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.6f\n", b - a }'; }
cap_gap() { tcpdump -tt -r "$1" 2>/dev/null | awk -v n="$2" 'NR == n - 1 { a = $1 } NR == n { printf "%.6f\n", $1 - a }'; }
# The latest any frame of the run left after its deadline, s, by the sender's own count
# (--stats-json's send_error_ns.max): a gap on the wire is shorter than scheduled by at most
# that -- the frame before it late, the one after on time -- as the deadlines are absolute.
send_late() { python3 -c 'import json, sys; print("%.6f" % (json.load(open(sys.argv[1]))["send_error_ns"]["max"] / 1e9))' "$1"; }
# awk-checked comparison: ok EXPR (with x = the value) or die.
within() { awk -v x="$1" "BEGIN { exit !($2) }" || die "$3: $1 s is not $2"; }

# tcpreplay's loop and sleep limits, measured on the far side.
test_loop_options() {
	timed loopdelay "$WORK/g1ms.pcap" --loop 2 --loopdelay-ms 200
	[ "$(json_get "$WORK/loopdelay.json" packets_sent)" = 600 ] || die "loopdelay: not every pass sent"
	# Frame 301 opens pass 2: 200 ms after frame 300 (plus scheduling noise; less only by as
	# much as frame 300 left late).
	within "$(cap_gap "$WORK/loopdelay.got.pcap" 301)" \
		"x >= 0.199 - $(send_late "$WORK/loopdelay.json") && x < 0.4" "--loopdelay-ms 200: gap"
	# 100 ms recorded gaps, each cut to 2 ms: 49 gaps take about 0.1 s, not 4.9 s (less only by
	# as much as the first frame left late).
	timed maxsleep "$WORK/g1ms.pcap" --speed 0.01 --maxsleep 2 --limit 50
	within "$(cap_span "$WORK/maxsleep.got.pcap")" \
		"x >= 0.097 - $(send_late "$WORK/maxsleep.json") && x < 0.6" "--maxsleep 2: span"
	# Looped forever, 1 ms apart: --duration 1 ends the run after about a second.
	timed duration "$WORK/g1ms.pcap" --loop 0 --duration 1
	within "$(cap_span "$WORK/duration.got.pcap")" "x >= 0.99 && x < 1.3" "--duration 1: span"
}

require_root
init_ns
make_traces
run_tests test_recorded_gaps test_rates test_late_policies test_realtime test_loop_options
