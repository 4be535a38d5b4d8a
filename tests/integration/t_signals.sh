#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT/SIGTERM stop the run after the current packet; the summary and the
# statistics still come out, everything sent is accounted for, exit 130/143.
# SIGUSR1 suspends the run and the next resumes it.
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

# SIGUSR1 suspends a timed run and the next resumes it: while suspended nothing
# leaves (the TX counter stands still), then every packet arrives at the far
# side; the schedule moved back by the pause (no packet found late), and the
# summary and --stats-json count it.
test_sigusr1_suspends() {
	local js="$WORK/usr1.json" got="$WORK/usr1.pcap" rc=0 n=40 pid tx0 tx1 tx2 sent
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$got"
	ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" --pps 40 --limit $n --stats-json "$js" \
		"$TRACES/udp-1ms.pcap" >"$WORK/usr1.out" 2>&1 &
	pid=$!
	sleep 0.4
	kill -USR1 "$pid"
	sleep 0.2 # a packet already handed to the kernel
	tx1=$(ifstat "$NS_A" "$IF_A" tx_packets)
	sleep 1
	tx2=$(ifstat "$NS_A" "$IF_A" tx_packets)
	kill -0 "$pid" 2>/dev/null || die "SIGUSR1 ended the run: $(cat "$WORK/usr1.out")"
	[ "$tx2" -eq "$tx1" ] || die "SIGUSR1: $((tx2 - tx1)) packets sent while suspended"
	sent=$((tx1 - tx0))
	[ "$sent" -gt 0 ] && [ "$sent" -lt $n ] || die "SIGUSR1: $sent of $n packets sent before the suspension"
	kill -USR1 "$pid"
	wait "$pid" || rc=$?
	capture_stop
	[ "$rc" -eq 0 ] || die "SIGUSR1: exit $rc: $(cat "$WORK/usr1.out")"
	grep -qE "^Suspended: 1 time by SIGUSR1, [0-9]+\.[0-9]{3} seconds in all" "$WORK/usr1.out" ||
		die "SIGUSR1: no Suspended line: $(cat "$WORK/usr1.out")"
	[ "$(json_get "$js" suspends)" -eq 1 ] || die "SIGUSR1: suspends $(json_get "$js" suspends)"
	[ "$(json_get "$js" suspended_ns)" -ge 1000000000 ] || die "SIGUSR1: suspended_ns $(json_get "$js" suspended_ns)"
	# Had the schedule not moved back by the pause, the packets after it would go more than a
	# second after their deadlines; a loaded machine makes a few milliseconds of that at most.
	[ "$(json_get "$js" max)" -lt 500000000 ] ||
		die "SIGUSR1: a packet went $(json_get "$js" max) ns late: the schedule did not move back by the pause"
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq $n ] || die "SIGUSR1: sent $(json_get "$js" packets_sent) of $n"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq $((tx0 + n)) ] || die "SIGUSR1: TX counter disagrees"
	"$PCAPDIFF" "$got" "$got" >"$WORK/d" || die "SIGUSR1: capture unreadable"
	grep -q "^$n frames identical" "$WORK/d" || die "SIGUSR1: sent $n, far side $(cat "$WORK/d")"
	[ "$(json_get "$RX_JSON" received)" -eq $n ] || die "SIGUSR1: replay-rx counted otherwise"
}

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
run_tests test_sigint test_sigterm test_sigusr1_suspends test_sigint_dry_run_forever
