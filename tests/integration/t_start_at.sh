#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --start-at across a veth pair: the first frame reaches the far side (its
# kernel receive timestamp, read by tcpdump, on CLOCK_REALTIME) at the
# instant asked for, within a tolerance; every frame arrives, as the dry
# run writes them; the JSON reports the start error and it agrees with the
# far side.  A time in the past, an unreadable one, and SIGINT during the
# wait are refused or stop cleanly with nothing sent.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

# The far side's first frame must come within this of the instant (ns).  The
# start error itself is microseconds on an idle machine; the tolerance is
# for a loaded shared one (the integration tests run beside other jobs).
TOL_NS=${START_TOL_NS:-20000000}

now_ns() { date +%s%N; }

# rfc3339 NS: NS since the epoch as 2026-11-25T23:10:00.123456789Z.
rfc3339() { date -u -d "@$(($1 / 1000000000)).$(printf %09d $(($1 % 1000000000)))" +%Y-%m-%dT%H:%M:%S.%NZ; }

# first_arrival PCAP: the first frame's timestamp, ns since the epoch (tcpdump's reading).
first_arrival() {
	tcpdump -r "$1" -nn -tt --time-stamp-precision=nano -c 1 2>/dev/null | awk '{ print $1 }' | tr -d .
}

# started NAME CLOCK FORM [OPTIONS...]: replay --start-at 1.5 s ahead (on CLOCK, written as FORM:
# rfc3339 or epoch), counted from just before replay starts; check the far side.
started() {
	local name=$1 clock=$2 form=$3
	shift 3
	local exp="$WORK/$name.exp.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local first err delta sent now rt off at arg

	"$REPLAY" -q -w "$exp" "$WORK/g.pcap" || die "$name: dry run failed"
	tcpdump_start "$got"
	# The far side stamps in realtime: off is realtime minus the chosen clock.
	if [ "$clock" = tai ]; then
		read -r now rt < <(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_TAI), time.clock_gettime_ns(time.CLOCK_REALTIME))')
		off=$((rt - now))
	else
		now=$(now_ns)
		off=0
	fi
	at=$((now + 1500000000))
	if [ "$form" = rfc3339 ]; then
		arg=$(rfc3339 "$at")
	else
		arg="@$((at / 1000000000)).$(printf %09d $((at % 1000000000)))"
	fi
	in_a "$REPLAY" -i "$IF_A" --stats-json "$js" --start-at "$arg" "$@" "$WORK/g.pcap" >"$WORK/$name.out" ||
		die "$name: replay exited $?: $(cat "$WORK/$name.out")"
	tcpdump_stop
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$sent" = 50 ] || die "$name: sent $sent of 50"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs: $(cat "$WORK/diff")"
	grep -q "^Start: --start-at .*first packet sent .* after it (start error -\?[0-9]* ns)" "$WORK/$name.out" ||
		die "$name: no Start line in the summary: $(cat "$WORK/$name.out")"
	grep -q "\"start_at\":{\"clock\":\"$clock\",\"requested_ns\":$at," "$js" ||
		die "$name: JSON start_at lacks the request: $(cat "$js")"
	err=$(json_get "$js" error_ns)
	[ -n "$err" ] || die "$name: no start error in the JSON: $(cat "$js")"
	# Not before the instant, and within the tolerance after it.
	[ "$err" -ge 0 ] && [ "$err" -le "$TOL_NS" ] || die "$name: start error $err ns (tolerance $TOL_NS)"
	first=$(first_arrival "$got")
	delta=$((first - off - at))
	info "$name: first frame at the far side $delta ns after the instant; start error (JSON) $err ns"
	[ "$delta" -ge 0 ] || die "$name: the first frame arrived $((-delta)) ns BEFORE the instant"
	[ "$delta" -le "$TOL_NS" ] || die "$name: the first frame arrived $delta ns after the instant"
	# The frame arrives inside the send call, whose return ends the start error.
	[ "$delta" -le $((err + 1000000)) ] ||
		die "$name: far side $delta ns after the instant, but the reported start error is $err ns"
}

test_rfc3339_realtime() { started rfc3339 realtime rfc3339; }
test_epoch_seconds() { started epoch realtime epoch --clock realtime; }

# CLOCK_TAI: the instant is a TAI reading; the far side stamps in realtime.
test_tai() {
	command -v python3 >/dev/null || { info "no python3 to read CLOCK_TAI: skipped"; return 0; }
	started tai tai epoch --clock tai
}

test_refused() {
	local tx0
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	expect_fail 1 "^replay: --start-at 2020-01-01T00:00:00.000000000Z is [0-9.]* s in the past \(the realtime clock reads 20" \
		in_a "$REPLAY" -i "$IF_A" --start-at 2020-01-01T00:00:00Z --stats-json "$WORK/past.json" "$WORK/g.pcap"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || die "past: more than one line: $(cat "$WORK/err")"
	[ ! -e "$WORK/past.json" ] || die "past: --stats-json written"
	expect_fail 2 "'tomorrow' is not a time" in_a "$REPLAY" -i "$IF_A" --start-at tomorrow "$WORK/g.pcap"
	expect_fail 2 "'2026-11-25T23:10:00' is not a time: expected a time zone" \
		in_a "$REPLAY" -i "$IF_A" --start-at 2026-11-25T23:10:00 "$WORK/g.pcap"
	expect_fail 2 "^replay: --clock needs --start-at: it is the clock --start-at is read on$" in_a "$REPLAY" -i "$IF_A" --clock tai "$WORK/g.pcap"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "refused runs sent frames"
}

test_sigint_during_wait() {
	local tx0 pid rc=0 t0 t1 at
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	at=$(( $(now_ns) + 30000000000 ))
	ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" --start-at "$(rfc3339 "$at")" --stats-json "$WORK/int.json" \
		"$WORK/g.pcap" >"$WORK/int.out" 2>&1 &
	pid=$!
	sleep 1
	kill -0 $pid || die "replay did not wait: $(cat "$WORK/int.out")"
	t0=$(now_ns)
	kill -INT $pid
	wait $pid || rc=$?
	t1=$(now_ns)
	[ $rc -eq 130 ] || die "SIGINT during the wait: exit $rc: $(cat "$WORK/int.out")"
	[ $((t1 - t0)) -lt 2000000000 ] || die "SIGINT: took $(((t1 - t0) / 1000000)) ms to stop"
	grep -q "^Actual: 0 packets" "$WORK/int.out" || die "SIGINT: no summary of 0 packets: $(cat "$WORK/int.out")"
	[ "$(json_get "$WORK/int.json" packets_sent)" = 0 ] || die "SIGINT: JSON says packets were sent"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "SIGINT: frames were sent"
}

require_root
init_ns
"$GENTRACE" udp -o "$WORK/g.pcap" --count 50 --gap-us 1000 --size 200
run_tests test_rfc3339_realtime test_epoch_seconds test_tai test_refused test_sigint_during_wait
