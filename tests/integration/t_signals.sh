#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT/SIGTERM stop the run after the current packet; the summary and the
# statistics still come out, everything sent is accounted for, exit 130/143.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

# stop_run SIGNAL STATUS: replay a long timed run, signal it, check the aftermath.
stop_run() {
	local sig=$1 want=$2 js="$WORK/$1.json" got="$WORK/$1.pcap" rc=0 pid tx0
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$got"
	# $! must be replay itself (ip netns exec execs it), not a subshell.
	ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" --loop 0 --stats-json "$js" "$TRACES/udp-1ms.pcap" \
		>"$WORK/$sig.out" 2>&1 &
	pid=$!
	sleep 0.7
	kill -"$sig" "$pid"
	wait "$pid" || rc=$?
	capture_stop
	[ "$rc" -eq "$want" ] || die "SIG$sig: exit $rc, expected $want: $(cat "$WORK/$sig.out")"
	grep -q "^Actual: [0-9]* packets" "$WORK/$sig.out" || die "SIG$sig: no summary"
	check_invariant "$js"
	local sent
	sent=$(json_get "$js" packets_sent)
	[ "$sent" -gt 100 ] || die "SIG$sig: only $sent packets before the signal"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq $((tx0 + sent)) ] || die "SIG$sig: TX counter disagrees"
	"$PCAPDIFF" "$got" "$got" >"$WORK/d" || die "SIG$sig: capture unreadable"
	grep -q "^$sent frames identical" "$WORK/d" || die "SIG$sig: sent $sent, far side $(cat "$WORK/d")"
	[ "$(json_get "$RX_JSON" received)" -eq "$sent" ] || die "SIG$sig: replay-rx counted otherwise"
}

test_sigint() { stop_run INT 130; }
test_sigterm() { stop_run TERM 143; }

test_sigint_dry_run_forever() {
	local rc=0 pid
	"$REPLAY" -w /dev/null --loop 0 "$TRACES/dns.pcap" >"$WORK/f.out" 2>&1 &
	pid=$!
	sleep 0.3
	kill -INT $pid
	wait $pid || rc=$?
	[ $rc -eq 130 ] || die "dry run: exit $rc"
	grep -q "^Actual: [0-9]* packets" "$WORK/f.out" || die "dry run: no summary"
	[ -c /dev/null ] || die "/dev/null is no longer a device"
}

require_root
init_ns
run_tests test_sigint test_sigterm test_sigint_dry_run_forever
