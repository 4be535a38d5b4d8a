#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# -v/--verbose and -A/--decode (tcpreplay's meaning): over a veth
# pair, each packet sent is printed by tcpdump as it goes -- one line a
# packet, the lines tcpdump itself prints for the trace -- and every packet
# still arrives on the far side; -A's arguments reach tcpdump; without
# tcpdump on PATH, one line and exit 1 with nothing sent; a tcpdump that
# stops reading (-A "-c 2") costs one warning, not the run; SIGINT ends a
# decoded run at once.
. "$(dirname "$0")/lib.sh"
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump" >&2; [ "${CI:-}" = true ] && exit 1; exit "$SKIP"; }

test_lines_and_arrival() {
	local exp=$WORK/dns.exp.pcap got=$WORK/dns.got.pcap js=$WORK/dns.json
	"$REPLAY" -q -w "$exp" "$TRACES/dns.pcap" || die "dry run failed"
	capture_start "$got" "$exp"
	in_a "$REPLAY" -q -v -i "$IF_A" --stats-json "$js" "$TRACES/dns.pcap" >"$WORK/out" 2>"$WORK/err" ||
		die "replay -v exited $?: $(cat "$WORK/err")"
	capture_stop
	rx_exact 8
	[ "$(json_get "$js" packets_sent)" = 8 ] || die "sent $(json_get "$js" packets_sent), not 8"
	# One line a packet, and exactly what tcpdump prints reading the trace itself (record times).
	[ "$(wc -l <"$WORK/out")" -eq 8 ] || die "-v printed $(wc -l <"$WORK/out") lines, not 8: $(cat "$WORK/out")"
	tcpdump -n -r "$TRACES/dns.pcap" >"$WORK/want" 2>/dev/null
	diff -u "$WORK/want" "$WORK/out" >"$WORK/diff" || die "-v lines differ from tcpdump -r: $(cat "$WORK/diff")"
	sed -n 3p "$WORK/out" | grep -qF "IP 192.0.2.10.57294 > 192.0.2.11.53: 18945+ A? www.example.com. (33)" ||
		die "third line is not the first DNS query: $(sed -n 3p "$WORK/out")"
	grep -q "reading from file -, link-type EN10MB" "$WORK/err" || die "tcpdump's stderr line missing: $(cat "$WORK/err")"
}

test_decode_args_and_edits() {
	local exp=$WORK/http.exp.pcap got=$WORK/http.got.pcap js=$WORK/http.json
	"$REPLAY" -q -t --enet-dmac 02:00:00:00:00:99 -w "$exp" "$TRACES/http.pcap" || die "dry run failed"
	capture_start "$got" "$exp"
	in_a "$REPLAY" -q -t -v -A "-e -x" --enet-dmac 02:00:00:00:00:99 -i "$IF_A" --stats-json "$js" \
		"$TRACES/http.pcap" >"$WORK/out" 2>"$WORK/err" || die "replay -v -A exited $?: $(cat "$WORK/err")"
	capture_stop
	rx_exact 40
	# -e: the link-layer header, edited as sent; -x: hex lines under each packet.
	[ "$(grep -c '^[0-9][0-9]:' "$WORK/out")" -eq 40 ] || die "expected 40 packet lines: $(head "$WORK/out")"
	[ "$(grep -c '^[0-9][0-9]:.* > 02:00:00:00:00:99, ethertype' "$WORK/out")" -eq 40 ] ||
		die "-A -e: not every line shows the edited destination MAC: $(head -3 "$WORK/out")"
	[ "$(grep -c '^	0x0000: ' "$WORK/out")" -eq 40 ] || die "-A -x: hex dump missing: $(head -5 "$WORK/out")"
	# The same through the -w path (tcprewrite's -v): the same lines.
	"$REPLAY" -q -t -v -A "-e -x" --enet-dmac 02:00:00:00:00:99 -w "$WORK/w.pcap" "$TRACES/http.pcap" \
		>"$WORK/wout" 2>/dev/null || die "-w -v failed"
	diff -u "$WORK/out" "$WORK/wout" >"$WORK/diff" || die "-w -v lines differ: $(cat "$WORK/diff")"
}

test_no_tcpdump() {
	local tx0 rc=0
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	in_a env PATH=/nonexistent-replay-test "$REPLAY" -v -i "$IF_A" "$TRACES/dns.pcap" >"$WORK/out" 2>"$WORK/err" ||
		rc=$?
	[ "$rc" -eq 1 ] || die "no tcpdump: exit $rc, not 1"
	[ "$(cat "$WORK/err")" = "replay: -v decodes with tcpdump, which is not on PATH: install tcpdump (or drop -v)" ] ||
		die "no tcpdump: stderr is '$(cat "$WORK/err")'"
	[ ! -s "$WORK/out" ] || die "no tcpdump: stdout not empty: $(cat "$WORK/out")"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "no tcpdump: packets were sent"
	# -w: no output file either.
	rc=0
	env PATH=/nonexistent-replay-test "$REPLAY" -v -w "$WORK/none.pcap" "$TRACES/dns.pcap" 2>/dev/null || rc=$?
	[ "$rc" -eq 1 ] && [ ! -e "$WORK/none.pcap" ] || die "no tcpdump, -w: exit $rc or a file written"
}

test_tcpdump_stops() {
	local exp=$WORK/u.exp.pcap got=$WORK/u.got.pcap js=$WORK/u.json
	"$REPLAY" -q -w "$exp" "$TRACES/udp-1ms.pcap" || die "dry run failed"
	capture_start "$got" "$exp"
	in_a "$REPLAY" -t -v -A "-c 2" -i "$IF_A" --stats-json "$js" "$TRACES/udp-1ms.pcap" \
		>"$WORK/out" 2>"$WORK/err" || die "replay exited $? when tcpdump stopped: $(cat "$WORK/err")"
	capture_stop
	rx_exact 1000
	[ "$(grep -c '^[0-9][0-9]:' "$WORK/out")" -eq 2 ] || die "tcpdump -c 2 printed other than 2 lines"
	[ "$(grep -c 'decoding stops, sending goes on' "$WORK/err")" -eq 1 ] ||
		die "expected one warning: $(cat "$WORK/err")"
}

# decode_child PID: tcpdump, once replay (PID) has started it (set-up is slow under ASan), or die.
decode_child() {
	local c
	for _ in $(seq 200); do
		c=$(pgrep -P "$1" -x tcpdump) && { echo "$c"; return 0; }
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	die "no tcpdump child of replay: $(cat "$WORK/err")"
}

test_sigint() {
	local pid cpid="" rc=0 t0
	# udp-1ms.pcap at recorded timing: about a second; SIGINT after 0.3 s ends it (and tcpdump) at once.
	ip netns exec "$NS_A" "$REPLAY" -v -i "$IF_A" "$TRACES/udp-1ms.pcap" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	cpid=$(decode_child "$pid")
	sleep 0.3
	t0=$(date +%s%N)
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] || die "SIGINT: exit $rc, not 130: $(cat "$WORK/err")"
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 3000 ] || die "SIGINT: took more than 3 s to end"
	! kill -0 "$cpid" 2>/dev/null || die "tcpdump ($cpid) left behind"
	[ "$(grep -c '^[0-9][0-9]:' "$WORK/out")" -ge 1 ] || die "SIGINT: no packet decoded before it"
}

test_ctrl_c() {
	local pid rc=0 js=$WORK/cc.json sent failed
	# As a terminal's Ctrl-C: SIGINT to replay's whole process group (setsid gives it its own).
	# tcpdump is in a group of its own, so it outlives the signal and prints every packet staged.
	setsid ip netns exec "$NS_A" "$REPLAY" -q -v -i "$IF_A" --stats-json "$js" "$TRACES/udp-1ms.pcap" \
		>"$WORK/out" 2>"$WORK/err" &
	pid=$!
	decode_child "$pid" >/dev/null
	sleep 0.4
	kill -INT -- "-$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] || die "Ctrl-C: exit $rc, not 130: $(cat "$WORK/err")"
	sent=$(json_get "$js" packets_sent)
	failed=$(json_get "$js" packets_failed)
	[ "$sent" -gt 0 ] && [ "$sent" -lt 1000 ] || die "Ctrl-C: $sent sent; the run was not cut short"
	[ "$(grep -c '^[0-9][0-9]:' "$WORK/out")" -eq $((sent + failed)) ] ||
		die "Ctrl-C: $(grep -c '^[0-9][0-9]:' "$WORK/out") lines for $sent sent + $failed failed"
	! grep -q "warning" "$WORK/err" || die "Ctrl-C: a warning: $(cat "$WORK/err")"
}

require_root
init_ns
run_tests test_lines_and_arrival test_decode_args_and_edits test_no_tcpdump test_tcpdump_stops test_sigint \
	test_ctrl_c
