#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay-rx on the far side of a veth pair: it agrees with an independent
# receiver (tcpdump), catches injected faults exactly, puts VLAN tags back,
# filters in the kernel, reports the kernel's drops, measures latency from
# replay's send log, stops when told, refuses what it cannot do and draws
# its figures; and scripts/veth-check.sh passes and fails when it should.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}" "${PCAPDIFF:?}" "${PCAPFAULT:?}" "${VETH_CHECK:?}"

# gap_percentiles PCAP: "p50 p90 p99 p999 max" of the gaps between consecutive
# frames in ns, worked out from tcpdump's own reading of PCAP (nearest rank,
# as replay-rx defines it) -- nothing of replay-rx's code involved.
gap_percentiles() {
	tcpdump -r "$1" -tt -nn --time-stamp-precision=nano 2>/dev/null |
		awk '{ split($1, t, "."); if (NR == 1) s0 = t[1]
		       ns = (t[1] - s0) * 1000000000 + t[2]
		       if (NR > 1) printf "%d\n", ns - prev; prev = ns }' |
		sort -n >"$WORK/gaps"
	awk '{ v[NR] = $1 }
	     function rank(pm) { r = int((NR * pm + 999) / 1000); return v[r < 1 ? 1 : r] }
	     END { print rank(500), rank(900), rank(990), rank(999), v[NR] }' "$WORK/gaps"
}

# within_1pct A B: |A - B| <= 1 % of B (or 1 ns).
within_1pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b || d <= 1) }'
}

# agree NAME TRACE [REPLAY OPTIONS...]: tcpdump and replay-rx receive the same
# replay at once; their counts must be equal (and equal to what was sent) and
# their inter-arrival percentiles within 1 %, with no drops in either.
agree() {
	local name=$1 trace=$2
	shift 2
	local sent="$WORK/$name.sent.pcap" td="$WORK/$name.td.pcap" js="$WORK/$name.rx.json"
	local st="$WORK/$name.stats.json" n ours theirs i k
	local keys=(p50 p90 p99 p999 max)

	"$REPLAY" -q -w "$sent" "$@" "$trace"
	tcpdump_start "$td" 128
	rx_start "$js" --reference "$sent"
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$st" "$@" "$trace" || die "$name: replay failed"
	rx_stop
	tcpdump_stop
	n=$(json_get "$st" packets_sent)
	[ "$RX_RC" -eq 0 ] || die "$name: replay-rx says not exact: $(cat "$WORK/rx.out")"
	[ "$(json_get "$js" kernel_drops)" = 0 ] || die "$name: replay-rx's ring dropped frames"
	grep -q "^$n packets captured" "$WORK/tcpdump.err" ||
		die "$name: sent $n, tcpdump: $(cat "$WORK/tcpdump.err")"
	[ "$(json_get "$js" received)" -eq "$n" ] || die "$name: sent $n, replay-rx $(json_get "$js" received)"
	read -r -a theirs <<<"$(gap_percentiles "$td")"
	for i in "${!keys[@]}"; do
		k=${keys[$i]}
		ours=$(json_get "$js" "interarrival_${k}_ns")
		within_1pct "$ours" "${theirs[$i]}" ||
			die "$name: inter-arrival $k: replay-rx $ours ns, tcpdump ${theirs[$i]} ns"
	done
	info "$name: $n frames both; inter-arrival p50/p90/p99/p99.9/max tcpdump ${theirs[*]} ns, replay-rx agrees"
}

test_agrees_with_tcpdump() {
	agree recorded-1kpps "$TRACES/udp-1ms.pcap"
	"$GENTRACE" udp -o "$WORK/50k.pcap" --count 20000 --gap-us 20 >/dev/null
	agree recorded-50kpps "$WORK/50k.pcap"
	"$GENTRACE" udp -o "$WORK/many.pcap" --count 100000 --gap-ns 100 --nsec >/dev/null
	agree topspeed "$WORK/many.pcap" --topspeed
}

# faults NAME PCAPFAULT-ARGS...: replay a copy of base.pcap with those faults
# against base.pcap as the reference; replay-rx must say "not exact" (3).
faults() {
	local name=$1
	shift
	"$PCAPFAULT" "$WORK/base.pcap" "$WORK/$name.pcap" "$@" || die "pcapfault $*"
	rx_start "$WORK/$name.json" --reference "$WORK/base.pcap"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/$name.pcap" || die "$name: replay failed"
	rx_stop
	[ "$RX_RC" -eq 3 ] || die "$name: replay-rx exited $RX_RC, not 3: $(cat "$WORK/rx.out")"
	[ "$(json_get "$RX_JSON" kernel_drops)" = 0 ] || die "$name: the capture dropped frames"
}

# expect_list KEY VALUES: the JSON array KEY is exactly [VALUES] (comma-separated).
expect_list() {
	grep -q "\"$1\":\[$2\]" "$RX_JSON" || die "$1: expected [$2]: $(grep -o "\"$1\":\[[0-9,]*\]" "$RX_JSON")"
}

expect_counts() { # LOST DUP REORDERED FOREIGN
	local k want=("$@") keys=(lost duplicated reordered foreign)
	for k in 0 1 2 3; do
		[ "$(json_get "$RX_JSON" "${keys[$k]}")" = "${want[$k]}" ] ||
			die "${keys[$k]}: $(json_get "$RX_JSON" "${keys[$k]}"), expected ${want[$k]}: $(cat "$WORK/rx.out")"
	done
}

test_faults_caught_exactly() {
	"$GENTRACE" udp -o "$WORK/base.pcap" --count 2000 --gap-us 10 >/dev/null
	faults removed --drop 1 --drop 10 --drop 500 --drop 2000
	expect_counts 4 0 0 0
	expect_list lost_records "1,10,500,2000"
	faults duplicated --dup 20 --dup 700 --dup 701
	expect_counts 0 3 0 0
	expect_list duplicated_records "20,700,701"
	[ "$(json_get "$RX_JSON" received)" = 2003 ] || die "duplicated: received"
	faults swapped --swap 100 --swap 1500
	expect_counts 0 0 2 0
	expect_list reordered_records "100,1500"
	faults all --drop 3 --dup 50 --swap 60 --drop 1999
	expect_counts 2 1 1 0
	expect_list lost_records "3,1999"
	expect_list duplicated_records "50"
	expect_list reordered_records "60"

	# A trace played three times holds each packet three times: faults in the
	# second pass are told apart from the other passes.
	"$REPLAY" -q -w "$WORK/base.pcap" --topspeed --loop 3 "$TRACES/http.pcap"
	faults loop --drop 45 --dup 60 --swap 70
	expect_counts 1 1 1 0
	expect_list lost_records "45"
	expect_list duplicated_records "60"
	expect_list reordered_records "70"

	# Frames of another trace are foreign -- when they are captured at all: the
	# kernel filter made from the reference keeps them out, so this
	# takes everything (--no-ref-filter).
	"$GENTRACE" udp -o "$WORK/base.pcap" --count 100 >/dev/null
	rx_start "$WORK/foreign.json" --reference "$WORK/base.pcap" --no-ref-filter
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/base.pcap" "$TRACES/dns.pcap"
	rx_stop
	[ "$RX_RC" -eq 3 ] || die "foreign: replay-rx exited $RX_RC"
	expect_counts 0 0 0 8
	expect_list foreign_frames "101,102,103,104,105,106,107,108"
	[ "$(json_get "$RX_JSON" kernel_packets)" -eq 108 ] || die "foreign: the ring saw $(json_get "$RX_JSON" kernel_packets)"
	grep -q '"filter":null,"filter_user":null,"filter_reference":null,"filter_reference_basis":null,' "$RX_JSON" ||
		die "--no-ref-filter: a filter was made: $(cat "$RX_JSON")"
}

# With -i and --reference, the kernel filter accepts the reference's flows
# only: unrelated traffic never reaches the ring (its counters say so), and
# the filter used is reported; --filter is combined with it by "and".
test_reference_filter() {
	local want="(ip src 198.18.0.1 and ip dst 198.19.0.1 and udp src port 1024 and udp dst port 9)"
	"$GENTRACE" udp -o "$WORK/rf.pcap" --count 100 >/dev/null
	rx_start "$WORK/rf.json" --reference "$WORK/rf.pcap"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/rf.pcap" "$TRACES/dns.pcap" "$TRACES/mixed.pcap"
	rx_stop
	[ "$RX_RC" -eq 0 ] || die "reference filter: not exact ($RX_RC): $(cat "$WORK/rx.out")"
	expect_counts 0 0 0 0
	[ "$(json_get "$RX_JSON" kernel_packets)" -eq 100 ] ||
		die "reference filter: the ring saw $(json_get "$RX_JSON" kernel_packets) frames, 100 were the reference's"
	[ "$(json_get "$RX_JSON" received)" -eq 100 ] || die "reference filter: received $(json_get "$RX_JSON" received)"
	grep -qF "\"filter\":\"$want\"," "$RX_JSON" || die "reference filter: $(grep -o '"filter":"[^"]*"' "$RX_JSON")"
	grep -qF "\"filter_reference\":\"$want\",\"filter_reference_basis\":\"the reference's flows\"" "$RX_JSON" ||
		die "reference filter: basis: $(cat "$RX_JSON")"
	grep -qF "listening on $IF_B: " "$WORK/rx.err" && grep -qF "filter '$want'" "$WORK/rx.err" ||
		die "reference filter: not in the banner: $(cat "$WORK/rx.err")"
	grep -qF "filter '$want'" "$WORK/rx.out" && grep -q "(made from the reference's flows;" "$WORK/rx.out" ||
		die "reference filter: not in the report: $(cat "$WORK/rx.out")"

	# With --filter: both must pass (gentrace's TTL is not 1).
	rx_start "$WORK/rf2.json" --reference "$WORK/rf.pcap" --filter "ip[8] != 1"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/rf.pcap" "$TRACES/dns.pcap"
	rx_stop
	[ "$RX_RC" -eq 0 ] || die "reference and user filter: not exact ($RX_RC): $(cat "$WORK/rx.out")"
	[ "$(json_get "$RX_JSON" kernel_packets)" -eq 100 ] || die "reference and user filter: the ring saw $(json_get "$RX_JSON" kernel_packets)"
	grep -qF "\"filter\":\"(ip[8] != 1) and ($want)\",\"filter_user\":\"ip[8] != 1\"," "$RX_JSON" ||
		die "reference and user filter: $(cat "$RX_JSON")"

	# Real traces (IPv4, IPv6, ARP, ICMP, 802.3, TCP both ways): the filter made from
	# each lets every one of its frames through, and the run is exact.
	local t
	for t in mixed http6 ipv6 icmp-flood http dns; do
		"$REPLAY" -q -w "$WORK/rf-$t.pcap" --topspeed "$TRACES/$t.pcap"
		rx_start "$WORK/rf-$t.json" --reference "$WORK/rf-$t.pcap"
		in_a "$REPLAY" -q -i "$IF_A" --topspeed "$TRACES/$t.pcap"
		rx_stop
		[ "$RX_RC" -eq 0 ] || die "reference filter, $t: not exact ($RX_RC): $(cat "$WORK/rx.out")"
		grep -q '"filter_reference_basis":"the reference'"'"'s flows"' "$RX_JSON" ||
			die "reference filter, $t: none made: $(cat "$RX_JSON")"
	done

	# A VLAN-tagged reference makes none (the tags are metadata): everything is captured.
	"$REPLAY" -q -w "$WORK/rfv.pcap" --topspeed "$TRACES/vlan.pcap"
	rx_start "$WORK/rf3.json" --reference "$WORK/rfv.pcap"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$TRACES/vlan.pcap"
	rx_stop
	[ "$RX_RC" -eq 0 ] || die "vlan reference: not exact ($RX_RC): $(cat "$WORK/rx.out")"
	grep -qF '"filter_reference":null,"filter_reference_basis":"the reference has VLAN-tagged frames",' "$RX_JSON" ||
		die "vlan reference: $(cat "$RX_JSON")"
}

# --sequence over the wire: gentrace's numbers, no reference; a faulted trace's
# faults are found by number, and other traffic kept out with --filter.
test_sequence_live() {
	"$GENTRACE" udp -o "$WORK/sq.pcap" --count 1000 --gap-us 20 --flows 3 >/dev/null
	rx_start "$WORK/sq.json" --sequence --filter "udp dst port 9"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/sq.pcap" "$TRACES/dns.pcap"
	rx_stop
	[ "$RX_RC" -eq 0 ] || die "--sequence: not exact ($RX_RC): $(cat "$WORK/rx.out")"
	[ "$(json_get "$RX_JSON" sequence_expected)" -eq 1000 ] || die "--sequence: $(cat "$RX_JSON")"
	"$PCAPFAULT" "$WORK/sq.pcap" "$WORK/sqf.pcap" --drop 11 --drop 500 --dup 20 --swap 700
	rx_start "$WORK/sqf.json" --sequence --filter "udp dst port 9"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/sqf.pcap"
	rx_stop
	[ "$RX_RC" -eq 3 ] || die "--sequence with faults: exit $RX_RC"
	expect_counts 2 1 1 0
	expect_list lost_sequence "10,499"
	expect_list duplicated_sequence "19"
	expect_list reordered_sequence "699"
}

test_vlan_tags_reinserted() {
	local exp="$WORK/vlan.sent.pcap" got="$WORK/vlan.got.pcap" tagged
	"$REPLAY" -q -w "$exp" --topspeed "$TRACES/vlan.pcap"
	capture_start "$got" "$exp"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$TRACES/vlan.pcap"
	capture_stop
	rx_exact 40
	# Every frame with an outer tag (802.1Q or 802.1ad) had it moved to metadata by veth.
	tagged=$(tcpdump -r "$exp" -nn 'vlan or ether proto 0x88a8' 2>/dev/null | wc -l)
	[ "$tagged" -gt 30 ] || die "vlan.pcap has only $tagged tagged frames"
	[ "$(json_get "$RX_JSON" vlan_reinserted)" -eq "$tagged" ] ||
		die "re-inserted $(json_get "$RX_JSON" vlan_reinserted) tags, $tagged frames are tagged"
	"$PCAPDIFF" "$exp" "$got" >/dev/null || die "tagged frames differ: $("$PCAPDIFF" "$exp" "$got")"
}

# kernel_filter NAME TRACE EXPR: the kernel filter keeps exactly what tcpdump's
# reading of the sent frames with the same expression keeps.
kernel_filter() {
	local name=$1 trace=$2 expr=$3 want
	"$REPLAY" -q -w "$WORK/$name.sent.pcap" --topspeed "$trace"
	want=$(tcpdump -r "$WORK/$name.sent.pcap" -nn "$expr" 2>/dev/null | wc -l)
	[ "$want" -gt 0 ] || die "$name: '$expr' matches nothing in $trace"
	rx_start "$WORK/$name.json" --filter "$expr"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$trace"
	rx_stop
	[ "$(json_get "$RX_JSON" received)" -eq "$want" ] ||
		die "$name: '$expr' let $(json_get "$RX_JSON" received) through, tcpdump -r finds $want"
	# Filtered in the kernel: the ring saw only those.
	[ "$(json_get "$RX_JSON" kernel_packets)" -eq "$want" ] || die "$name: filtered in user space?"
	grep -q "listening on $IF_B: .*filter '$expr'" "$WORK/rx.err" || die "$name: no filter in the banner"
}

test_kernel_filter() {
	kernel_filter udp "$TRACES/mixed.pcap" udp
	kernel_filter tcp "$TRACES/mixed.pcap" "tcp and port 80"
	# VLAN tags are metadata to the kernel; libpcap compiles for that, as for tcpdump.
	kernel_filter vlan10 "$TRACES/vlan.pcap" "vlan 10"
}

test_kernel_drops_reported() {
	local js="$WORK/drops.json" pid n=2000
	"$GENTRACE" udp -o "$WORK/burst.pcap" --count $n >/dev/null
	# Two 4 KiB blocks hold ~50 frames; the receiver is stopped while the burst arrives.
	rx_start "$js" --blocks 2 --block-size 4096 --reference "$WORK/burst.pcap"
	pid=$CAP_PID
	kill -STOP "$pid"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$WORK/burst.pcap"
	kill -CONT "$pid"
	rx_stop
	[ "$RX_RC" -eq 3 ] || die "kernel drops must make the run not exact (exit 3), got $RX_RC"
	local drops recv
	drops=$(json_get "$js" kernel_drops)
	recv=$(json_get "$js" received)
	[ "$drops" -gt 0 ] || die "no kernel drops with a stopped receiver and a 8 KiB ring"
	[ "$((recv + drops))" -eq $n ] || die "received $recv + dropped $drops != sent $n"
	[ "$(json_get "$js" kernel_packets)" -eq $n ] || die "the kernel counted $(json_get "$js" kernel_packets)"
	[ "$(json_get "$js" lost)" -eq "$drops" ] || die "lost $(json_get "$js" lost) != kernel drops $drops"
	grep -q '"exact":false' "$js" || die "a measurement with drops was called exact"
	grep -q "the measurement does not count" "$WORK/rx.out" || die "no warning about the drops"
	info "stopped receiver: $drops of $n dropped by the ring, all reported"
}

test_send_log_latency() {
	local js="$WORK/lat.json" log="$WORK/send.log" n
	"$REPLAY" -q -w "$WORK/lat.sent.pcap" "$TRACES/udp-1ms.pcap"
	rm -f "$log"
	rx_start "$js" --reference "$WORK/lat.sent.pcap" --send-log "$log" --plot "$WORK/lat-plots"
	in_a "$REPLAY" -q -i "$IF_A" --send-log "$log" --stats-json "$WORK/lat.stats" "$TRACES/udp-1ms.pcap"
	rx_stop
	n=$(json_get "$WORK/lat.stats" packets_sent)
	[ "$RX_RC" -eq 0 ] || die "latency run not exact: $(cat "$WORK/rx.out")"
	[ "$(json_get "$js" send_log_matched)" -eq "$n" ] ||
		die "$(json_get "$js" send_log_matched) of $n frames found in the send log"
	grep -q '"jitter_rfc4689_basis":"send-log"' "$js" || die "RFC 4689 jitter not from the send log"
	# Same host, same clock: a frame cannot arrive before it was handed to the kernel.
	[ "$(json_get "$js" latency_min_ns)" -ge 0 ] || die "negative latency: $(json_get "$js" latency_min_ns) ns"
	[ "$(json_get "$js" latency_max_ns)" -lt 1000000000 ] || die "latency of a second: the clocks are not mapped"
	grep -q "^  latency " "$WORK/rx.out" || die "no latency row in the table"
	grep -q "e08000" "$WORK/lat-plots/timeline.svg" || die "the timeline lacks the send series"
	# The per-packet send series: one line per packet sent, the header, and latencies that
	# agree with the report's extremes.
	local ser="$WORK/lat-plots/send-series.tsv"
	[ "$(grep -vc '^#' "$ser")" -eq $((n + 1)) ] || die "send-series.tsv: $(grep -vc '^#' "$ser") lines for $n packets"
	[ "$(awk -F'\t' '!/^#/ && NR > 3 { if (!s || $5 < m) { m = $5; s = 1 } } END { print m }' "$ser")" -eq \
		"$(json_get "$js" latency_min_ns)" ] || die "send-series.tsv: the least latency is not the report's"
	[ "$(awk -F'\t' '!/^#/ && NR > 3 { if (!s || $5 > m) { m = $5; s = 1 } } END { print m }' "$ser")" -eq \
		"$(json_get "$js" latency_max_ns)" ] || die "send-series.tsv: the largest latency is not the report's"
	grep -q "#2a9d5c" "$WORK/lat-plots/send-series.svg" || die "send-series.svg lacks the latency series"
	info "latency p50 $(json_get "$js" latency_p50_ns) ns, max $(json_get "$js" latency_max_ns) ns"
	# Batches: every packet of a sendmmsg batch is logged, with the time before the call.
	"$REPLAY" -q -w "$WORK/lat2.sent.pcap" --topspeed "$TRACES/icmp-flood.pcap"
	rm -f "$log"
	rx_start "$js" --reference "$WORK/lat2.sent.pcap" --send-log "$log"
	in_a "$REPLAY" -q -i "$IF_A" --method mmsg --topspeed --send-log "$log" "$TRACES/icmp-flood.pcap"
	rx_stop
	[ "$RX_RC" -eq 0 ] || die "batched latency run not exact: $(cat "$WORK/rx.out")"
	[ "$(json_get "$js" send_log_matched)" -eq 1002 ] || die "batched: $(json_get "$js" send_log_matched) of 1002 logged"
	[ "$(json_get "$js" latency_min_ns)" -ge 0 ] || die "batched: negative latency"
}

test_plots_render() {
	local f
	[ -d "$WORK/lat-plots" ] || test_send_log_latency
	for f in interval interval-linear error-cdf interval-hist timeline send-series; do
		xmllint --noout "$WORK/lat-plots/$f.svg" || die "$f.svg is not well-formed XML"
		rsvg-convert -o "$WORK/$f.png" "$WORK/lat-plots/$f.svg" || die "$f.svg does not render"
		[ "$(head -c 8 "$WORK/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			die "$f.png is not a PNG"
	done
}

test_stopping() {
	local t0 t1
	# --count: exactly that many, then the report.
	ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" -c 5 --json "$WORK/c.json" >"$WORK/c.out" 2>"$WORK/c.err" &
	CAP_PID=$!
	wait_listening "$CAP_PID" "$WORK/c.err" replay-rx
	in_a "$REPLAY" -q -i "$IF_A" --topspeed "$TRACES/http.pcap"
	wait "$CAP_PID" || die "--count 5: exit $?"
	CAP_PID=""
	[ "$(json_get "$WORK/c.json" received)" = 5 ] || die "--count 5 received $(json_get "$WORK/c.json" received)"
	# --timeout with nothing arriving.
	t0=$(date +%s%N)
	in_b "$REPLAY_RX" -i "$IF_B" --timeout 0.5 -q || die "--timeout: exit $?"
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -ge 500 ] || die "--timeout 0.5 stopped after $(((t1 - t0) / 1000000)) ms"
	# --idle: stops by itself once the frames stop coming.
	ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --idle 0.3 --timeout 30 --json "$WORK/i.json" \
		>"$WORK/i.out" 2>"$WORK/i.err" &
	CAP_PID=$!
	wait_listening "$CAP_PID" "$WORK/i.err" replay-rx
	t0=$(date +%s%N)
	in_a "$REPLAY" -q -i "$IF_A" "$TRACES/dns.pcap"
	wait "$CAP_PID" || die "--idle: exit $?"
	CAP_PID=""
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 20000 ] || die "--idle 0.3 did not stop (the --timeout did)"
	[ "$(json_get "$WORK/i.json" received)" = 8 ] || die "--idle: received $(json_get "$WORK/i.json" received)"
}

# SIGINT and SIGTERM alike: during set-up (here an open() of a FIFO reference
# with no writer) nothing is captured or reported and the exit status says
# which signal; during the capture it ends and the report follows.
test_signals_consistent() {
	local sig want rc
	mkfifo "$WORK/ref.fifo"
	for sig in TERM INT; do
		want=$([ $sig = TERM ] && echo 143 || echo 130)
		rm -f "$WORK/s.json"
		ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --reference "$WORK/ref.fifo" --json "$WORK/s.json" \
			>"$WORK/s.out" 2>"$WORK/s.err" &
		CAP_PID=$!
		sleep 0.5
		kill -0 "$CAP_PID" || die "set-up: replay-rx ended before the signal: $(cat "$WORK/s.err")"
		kill -$sig "$CAP_PID"
		rc=0
		wait "$CAP_PID" || rc=$?
		CAP_PID=""
		[ "$rc" -eq "$want" ] || die "SIG$sig during set-up: exit $rc, expected $want: $(cat "$WORK/s.err")"
		grep -q "stopped by SIG$sig during set-up, before capturing: no report" "$WORK/s.err" ||
			die "SIG$sig during set-up: $(cat "$WORK/s.err")"
		! grep -q "listening on" "$WORK/s.err" || die "SIG$sig during set-up: it listened"
		[ ! -e "$WORK/s.json" ] || die "SIG$sig during set-up: a report was written"
		# During the capture: it ends, and the report of what came follows.
		ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --json "$WORK/s.json" >"$WORK/s.out" 2>"$WORK/s.err" &
		CAP_PID=$!
		wait_listening "$CAP_PID" "$WORK/s.err" replay-rx
		in_a "$REPLAY" -q -i "$IF_A" "$TRACES/dns.pcap"
		sleep 0.3
		kill -$sig "$CAP_PID"
		rc=0
		wait "$CAP_PID" || rc=$?
		CAP_PID=""
		[ "$rc" -eq 0 ] || die "SIG$sig during the capture: exit $rc: $(cat "$WORK/s.err")"
		[ "$(json_get "$WORK/s.json" received)" = 8 ] || die "SIG$sig during the capture: received $(json_get "$WORK/s.json" received)"
	done
}

# A non-interactive shell starts a background job with SIGINT ignored, and replay-rx inherits
# that (as the forwarder did: t_forward's test_sigint_ignored).  (1) A SIGINT before its
# handler is installed -- while it parses its options -- ends it (it used to be thrown away,
# and the capture ran on): --fanout's check of the CPUs online (sysconf() reads
# /sys/devices/system/cpu/online) is held on a FIFO bind-mounted over that file, in a mount
# namespace of its own, until the signal has been sent.  (2) Once listening, a SIGINT from the
# same kind of shell ends the capture, and the report follows.
test_sigint_ignored() {
	local fifo="$WORK/online.fifo" exe pid rc=0 i
	mkfifo "$fifo"
	: >"$WORK/ign.err"
	( trap '' INT; exec ip netns exec "$NS_B" unshare -m sh -c \
		'mount --bind "$1" /sys/devices/system/cpu/online && exec "$2" -i "$3" --fanout 1 --timeout 3 -q' \
		sh "$fifo" "$REPLAY_RX" "$IF_B" >"$WORK/ign.out" 2>"$WORK/ign.err" ) &
	pid=$!
	CAP_PID=$pid
	exe=$(realpath "$REPLAY_RX")
	for i in $(seq 200); do
		# replay-rx itself (ip, unshare and sh have exec'd it), waiting in open() for the FIFO's writer.
		if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] &&
			{ grep -qx wait_for_partner "/proc/$pid/wchan" 2>/dev/null ||
				grep -Eq "^(2|257) " "/proc/$pid/syscall" 2>/dev/null; }; then
			break
		fi
		[ "$i" -lt 200 ] || die "ignored: replay-rx never waited for the CPUs online: $(cat "$WORK/ign.err")"
		sleep 0.05
	done
	kill -INT "$pid"
	sleep 0.2
	# What the file holds (O_RDWR: no wait for a reader that may be gone).
	exec 3<>"$fifo"
	printf '0\n' >&3
	exec 3>&-
	wait "$pid" || rc=$?
	CAP_PID=""
	[ "$rc" -eq 130 ] || die "ignored: a SIGINT during the set-up was lost: exit $rc: $(cat "$WORK/ign.out" "$WORK/ign.err")"
	! grep -q "listening on" "$WORK/ign.err" || die "ignored: it went on to listen after a SIGINT"

	# (2) From the same kind of shell, listening: the capture ends on SIGINT, with its report.
	: >"$WORK/ign2.err"
	( trap '' INT; exec ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --json "$WORK/ign2.json" \
		>"$WORK/ign2.out" 2>"$WORK/ign2.err" ) &
	CAP_PID=$!
	wait_listening "$CAP_PID" "$WORK/ign2.err" replay-rx
	in_a "$REPLAY" -q -i "$IF_A" "$TRACES/dns.pcap"
	sleep 0.3
	kill -INT "$CAP_PID"
	rc=0
	wait "$CAP_PID" || rc=$?
	CAP_PID=""
	[ "$rc" -eq 0 ] || die "ignored: SIGINT during the capture: exit $rc: $(cat "$WORK/ign2.err")"
	[ "$(json_get "$WORK/ign2.json" received)" = 8 ] ||
		die "ignored: SIGINT during the capture: received $(json_get "$WORK/ign2.json" received)"
}

# -B: the ring laid out by its size, on the listening line (man page: -B's rule).
test_ring_layout() {
	in_b "$REPLAY_RX" -i "$IF_B" -B 2048 -s 64 --timeout 0.2 -q 2>"$WORK/l.err" || die "-B 2048: exit $?"
	grep -q "ring 8 x 256 KiB" "$WORK/l.err" || die "-B 2048: $(cat "$WORK/l.err")"
	in_b "$REPLAY_RX" -i "$IF_B" --timeout 0.2 -q 2>"$WORK/l.err" || die "default ring: exit $?"
	grep -q "ring 64 x 1024 KiB" "$WORK/l.err" || die "default ring: $(cat "$WORK/l.err")"
}

test_rx_errors() {
	expect_fail 2 "^replay-rx: nothing to receive" "$REPLAY_RX"
	expect_fail 2 "^replay-rx: unexpected argument 'udp'" "$REPLAY_RX" -i "$IF_B" udp
	expect_fail 1 "^replay-rx: nosuch0: no such interface$" in_b "$REPLAY_RX" -i nosuch0
	# A filter that does not compile is a bad option: exit 2, not 1.
	expect_fail 2 "^replay-rx: --filter 'udp port': " in_b "$REPLAY_RX" -i "$IF_B" --filter "udp port"
	expect_fail 1 "^replay-rx: /nonexistent/ref.pcap: " in_b "$REPLAY_RX" -i "$IF_B" -R /nonexistent/ref.pcap
	expect_fail 1 "^replay-rx: $IF_B: no hardware receive timestamps" in_b "$REPLAY_RX" -i "$IF_B" --hw-timestamps
	# Without the capability: refused before anything is opened, naming it and the setcap command.
	expect_fail 1 "^replay-rx: capturing on $IF_B needs cap_net_raw, which this process does not have: run as root, or grant it once \(as root\): setcap cap_net_raw=ep $REPLAY_RX$" \
		in_b setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$REPLAY_RX" -i "$IF_B"
	# Outputs are checked before the capture starts: no "listening", no wait.
	expect_fail 1 "^replay-rx: /nonexistent/r.json: cannot write the report" \
		in_b "$REPLAY_RX" -i "$IF_B" --json /nonexistent/r.json
	grep -q "listening" "$WORK/err" && die "started capturing with an unwritable report"
	expect_fail 1 "^replay-rx: /nonexistent/x.pcap: cannot write" in_b "$REPLAY_RX" -i "$IF_B" -w /nonexistent/x.pcap
	# A send log that is not one is reported after the capture.
	echo "not a log" >"$WORK/bad.log"
	expect_fail 1 "^replay-rx: $WORK/bad.log: not a send log" in_b "$REPLAY_RX" -i "$IF_B" --timeout 0.1 \
		--send-log "$WORK/bad.log"
}

# Reading files (-r): what replay converts, bounded memory and time.
test_rx_offline_inputs() {
	local lt n in
	# Filter syntax errors are usage errors, offline too, before anything is read.
	expect_fail 2 "^replay-rx: --filter 'ip proto nosuch': " "$REPLAY_RX" -r "$TRACES/dns.pcap" \
		--filter "ip proto nosuch"
	# A huge --count reserves nothing up front: done in seconds, not minutes (24 GB before).
	timeout 20 "$REPLAY_RX" -q -r "$TRACES/dns.pcap" --count 1000000000 --json "$WORK/c1.json" ||
		die "-r --count 1000000000: exit $? (124: timed out)"
	[ "$(json_get "$WORK/c1.json" received)" = 8 ] || die "--count 1e9: received $(json_get "$WORK/c1.json" received)"
	timeout 20 "$REPLAY_RX" -q -r "$TRACES/dns.pcap" --count 18446744073709551615 \
		--json "$WORK/c2.json" || die "-r --count 2^64-1: exit $? (124: timed out)"
	[ "$(json_get "$WORK/c2.json" received)" = 8 ] || die "--count 2^64-1: received $(json_get "$WORK/c2.json" received)"
	# A send log is held whole: one larger than the cap (1/8 of the RAM; a sparse file, a writer
	# that never closed it, so read to its end) is refused before it is read.
	local cap=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024 / 8))
	# magic, byte order, entry_bytes 24, id_bytes 128 (PKT_ID_BYTES), then zeros: count 0 = unclosed
	printf 'RPLYSLG1\x04\x03\x02\x01\x18\0\0\0\x80\0\0\0' >"$WORK/big.log"
	head -c 40 /dev/zero >>"$WORK/big.log"
	truncate -s $((cap + 56 + 24)) "$WORK/big.log"
	expect_fail 1 "^replay-rx: $WORK/big.log: [0-9]+ bytes: the send log would pass replay-rx's memory cap" \
		timeout 20 "$REPLAY_RX" -q -r "$TRACES/dns.pcap" --send-log "$WORK/big.log"
	rm -f "$WORK/big.log"
	# Link types replay turns into Ethernet: -r and --reference read them as replay sends them,
	# which is what reformat --expect writes with its own, independent conversion.
	for lt in raw ipv4 ipv6 null loop sll; do
		in=$TRACES/http.pcap
		[ "$lt" = ipv6 ] && in=$TRACES/http6.pcap
		"$REFORMAT" "$in" "$WORK/lt-$lt.pcap" "pcap-$lt" --expect "$WORK/lt-$lt.exp.pcap" ||
			die "reformat pcap-$lt"
		n=$(tcpdump -r "$WORK/lt-$lt.exp.pcap" 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] || die "pcap-$lt: nothing to compare"
		"$REPLAY_RX" -q -r "$WORK/lt-$lt.pcap" --reference "$WORK/lt-$lt.exp.pcap" \
			--json "$WORK/lt.json" 2>"$WORK/lt.err" || die "-r pcap-$lt: exit $?: $(cat "$WORK/lt.err")"
		[ "$(json_get "$WORK/lt.json" received)" -eq "$n" ] || die "-r pcap-$lt: received $(json_get "$WORK/lt.json" received) of $n"
		"$REPLAY_RX" -q -r "$WORK/lt-$lt.exp.pcap" --reference "$WORK/lt-$lt.pcap" \
			--json "$WORK/lt.json" 2>"$WORK/lt.err" || die "--reference pcap-$lt: exit $?: $(cat "$WORK/lt.err")"
		[ "$(json_get "$WORK/lt.json" matched)" -eq "$n" ] || die "--reference pcap-$lt: matched $(json_get "$WORK/lt.json" matched) of $n"
	done
	# A link type replay does not send (802.11): refused, naming it.
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x69\0\0\0' >"$WORK/wifi.pcap"
	expect_fail 1 "^replay-rx: $WORK/wifi.pcap: link type 105 has no Ethernet form" \
		"$REPLAY_RX" -q -r "$WORK/wifi.pcap"
	expect_fail 1 "^replay-rx: $WORK/wifi.pcap: link type 105 has no Ethernet form" \
		"$REPLAY_RX" -q -r "$TRACES/dns.pcap" --reference "$WORK/wifi.pcap"
	# A looped replay of one packet: matching is linear (300 000 took half a minute before).
	"$REPLAY" -q -w "$WORK/one.pcap" --limit 1 "$TRACES/dns.pcap"
	"$REPLAY" -q -w "$WORK/same.pcap" --topspeed --loop 300000 "$WORK/one.pcap"
	timeout 30 "$REPLAY_RX" -q -r "$WORK/same.pcap" --reference "$WORK/same.pcap" --json "$WORK/same.json" ||
		die "300 000 identical frames: exit $? (124: timed out)"
	[ "$(json_get "$WORK/same.json" matched)" = 300000 ] || die "identical frames: matched $(json_get "$WORK/same.json" matched)"
}

test_veth_check() {
	local pid rc=0 i
	"$VETH_CHECK" "$TRACES/dns.pcap" >"$WORK/vc.out" 2>&1 || die "veth-check failed: $(cat "$WORK/vc.out")"
	grep -q "^veth-check: PASS: 8 of 8 packets" "$WORK/vc.out" || die "veth-check: $(cat "$WORK/vc.out")"
	# A timing limit no replay meets.
	rc=0
	"$VETH_CHECK" --max-error-us 0.001 -- --loop 2 "$TRACES/http.pcap" >"$WORK/vc.out" 2>&1 || rc=$?
	[ $rc -eq 1 ] || die "impossible timing limit: exit $rc"
	grep -q "FAIL: inter-arrival error p99" "$WORK/vc.out" || die "veth-check: $(cat "$WORK/vc.out")"
	# A frame the link cannot carry is lost: replay counts it failed, replay-rx lost.
	"$GENTRACE" malformed jumbo -o "$WORK/jumbo.pcap" >/dev/null
	rc=0
	"$VETH_CHECK" "$TRACES/dns.pcap" "$WORK/jumbo.pcap" >"$WORK/vc.out" 2>&1 || rc=$?
	[ $rc -eq 1 ] || die "a lost frame: exit $rc"
	grep -q "FAIL: 1 packets lost (at most 0 allowed)" "$WORK/vc.out" || die "veth-check: $(cat "$WORK/vc.out")"
	rc=0
	"$VETH_CHECK" --max-loss 1 --mtu 1500 "$TRACES/dns.pcap" "$WORK/jumbo.pcap" >"$WORK/vc.out" 2>&1 || rc=$?
	grep -q "FAIL: replay exited 1" "$WORK/vc.out" || die "replay's own failure must fail the check"
	grep -q "packets lost" "$WORK/vc.out" && die "--max-loss 1 not honoured"
	rc=0
	"$VETH_CHECK" --max-loss x a.pcap >"$WORK/vc.out" 2>&1 || rc=$?
	[ $rc -eq 2 ] || die "usage error: exit $rc"
	# Stopped half-way: its namespaces go with it.  Only its own are counted
	# (named by its PID, scripts/veth-check.sh), not other tests' running at once.
	"$VETH_CHECK" -- --loop 5 "$TRACES/udp-1ms.pcap" >"$WORK/vc.out" 2>&1 &
	pid=$!
	own() { ip netns list | grep -cE "^vchk-[ab]-$pid( |\$)" || true; }
	for i in $(seq 100); do
		[ "$(own)" -eq 2 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	[ "$(own)" -eq 2 ] || die "veth-check $pid: its two namespaces never appeared: $(ip netns list | tr '\n' ' '); $(cat "$WORK/vc.out")"
	sleep 0.5
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	[ $rc -eq 143 ] || die "veth-check stopped by SIGTERM: exit $rc"
	[ "$(own)" -eq 0 ] || die "veth-check left network namespaces behind: $(ip netns list | grep -E "^vchk-[ab]-$pid")"
}

require_root
for tool in xmllint rsvg-convert setpriv; do
	command -v $tool >/dev/null || die "$tool is not installed (scripts/deps.sh installs it)"
done
init_ns
run_tests test_signals_consistent test_sigint_ignored test_ring_layout test_agrees_with_tcpdump test_faults_caught_exactly test_reference_filter test_sequence_live test_vlan_tags_reinserted \
	test_kernel_filter test_kernel_drops_reported test_send_log_latency test_plots_render \
	test_stopping test_rx_errors test_rx_offline_inputs test_veth_check
