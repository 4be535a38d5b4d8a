#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# rfc2544: the throughput, latency and frame-loss-rate tests of RFC 2544
# (Bradner and McQuaid, "Benchmarking Methodology for Network Interconnect
# Devices", 1999) through a device under test, with replay as the sender and
# replay-rx as the receiver.
#
#   sudo scripts/rfc2544.sh [OPTIONS]
#
# By default it builds its own bench: three throw-away network namespaces,
# sender -> DUT -> receiver, joined by veth pairs; the DUT is a Linux bridge
# (it forwards frames unchanged, so the receiver can tell each frame by its
# bytes and take one-way latency from the sender's send log), or with
# --dut-mode router a router between two subnets (198.18.0.0/16 on the
# sender's side, 198.19.0.0/16 on the receiver's), optionally rate-limited by
# a token bucket (tc tbf) on its egress.  Or it is given a bench: the
# sender's and the receiver's interface, each in a named namespace or in
# this one (a lab's ports) -- the DUT between them forwards the frames
# unchanged, as a bridge or a switch, or routes them: --dut-mode router
# with --dut-mac, the MAC address the sender sends to.
#
# Through a router the test stream is addressed to the DUT (replay
# --enet-dmac rewrites each frame's destination MAC), and the frames change
# on the way (MAC addresses, TTL, checksum): the receiver counts them by the
# flow, but the send log cannot identify them, so there is no latency test.
#
# Frames: gentrace's UDP/IPv4 frames (198.18.0.0/15, the range RFC 2544
# sets aside), 02:00:00:00:00:01 -> 02:00:00:00:00:02.  A frame size is
# RFC 2544's, with the 4-byte FCS: a 64-byte frame is sent as 60 bytes.
#
# Exit status: 0 done, 1 a program or the bench failed, 2 usage error.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: rfc2544.sh [OPTIONS]
RFC 2544 throughput (highest rate with no loss, by binary search), latency at
that rate, and the frame-loss-rate curve, per frame size, through a DUT.

Trials:
  --sizes LIST          frame sizes with FCS, bytes (default 64,128,256,512,1024,1280,1518)
  --duration SECONDS    length of each trial (default 10; RFC 2544 says 60)
  --loss-tolerance PCT  a trial passes with at most PCT % of its frames lost (default 0)
  --retries N           run a trial that lost frames up to N times more; the rate passes
                        if one of them loses no more than the tolerance (default 0: for a
                        software DUT on a busy host, whose stalls lose frames at any rate)
  --max-mbps MBPS       the highest rate tried, Mbit/s of frames with FCS (default 1000)
  --resolution PCT      stop the search when it brackets the rate within PCT % (default 0.5)
  --tests LIST          which of throughput, latency (at the throughput rate: needs
                        throughput) and loss (the frame-loss-rate curve: 100 %, 90 %, ...
                        of --max-mbps until two trials in a row lose nothing) to run
                        (default throughput,latency,loss)
Bench (default: one built here, a bridge between two veth pairs):
  --dut-mode MODE       bridge (default: frames forwarded unchanged) or router (routed
                        between 198.18.0.0/16 and 198.19.0.0/16; the frames are sent to the
                        DUT's MAC address; no latency test: the frames change on the way;
                        default tests throughput,loss)
  --dut-mac MAC         with --dut-mode router and a bench of your own: the MAC address of
                        the DUT's interface on the sender's side (default, built here:
                        02:00:00:00:00:fe)
  --dut-rate RATE       limit the DUT's egress with tc tbf at RATE (tc syntax: 20mbit)
  --dut-burst BYTES     tbf bucket size (default 5000)
  --dut-latency TIME    tbf queue, as time at RATE (default 30ms)
  --tx-if IF [--tx-ns NS]  send from interface IF (a bench of your own), in namespace NS
                           or, without --tx-ns, in this one (a lab's ports)
  --rx-if IF [--rx-ns NS]  receive on interface IF, in namespace NS or in this one
Output:
  --json FILE           the results as JSON
  -q, --quiet           no progress lines
  -h, --help            this help
Environment: REPLAY, REPLAY_RX, GENTRACE name the programs (default: this
script's own directory, then build/ beside it, then PATH).
EOF
}

die() { echo "rfc2544: $*" >&2; exit 1; }
bad_usage() { echo "rfc2544: $* (try --help)" >&2; exit 2; }
is_num() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
say() { [ "$QUIET" = 1 ] || echo "# $*" >&2; }

SIZES=64,128,256,512,1024,1280,1518 DURATION=10 RETRIES=0 TOLERANCE=0 MAX_MBPS=1000 RESOLUTION=0.5
THROUGHPUT=1 LATENCY=1 CURVE=1 DUT_RATE="" DUT_BURST=5000 DUT_LATENCY=30ms JSON_OUT="" QUIET=0
TX_NS="" TX_IF="" RX_NS="" RX_IF="" DUT_MODE=bridge DUT_MAC="" TESTS_GIVEN=0
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) [[ ${2:-} =~ ^[0-9]+(,[0-9]+)*$ ]] || bad_usage "--sizes needs a comma-separated list of sizes"
		SIZES=$2; shift 2 ;;
	--duration) is_num "${2:-}" && awk -v d="$2" 'BEGIN { exit !(d > 0) }' ||
		bad_usage "--duration needs a number of seconds above 0"; DURATION=$2; shift 2 ;;
	--loss-tolerance) is_num "${2:-}" && awk -v d="$2" 'BEGIN { exit !(d < 100) }' ||
		bad_usage "--loss-tolerance needs a percentage below 100"; TOLERANCE=$2; shift 2 ;;
	--max-mbps) is_num "${2:-}" && awk -v d="$2" 'BEGIN { exit !(d > 0) }' ||
		bad_usage "--max-mbps needs a rate above 0"; MAX_MBPS=$2; shift 2 ;;
	--resolution) is_num "${2:-}" && awk -v d="$2" 'BEGIN { exit !(d > 0 && d < 100) }' ||
		bad_usage "--resolution needs a percentage above 0 and below 100"; RESOLUTION=$2; shift 2 ;;
	--retries) [[ ${2:-} =~ ^[0-9]+$ ]] || bad_usage "--retries needs a count"; RETRIES=$2; shift 2 ;;
	--tests) [[ ${2:-} =~ ^(throughput|latency|loss)(,(throughput|latency|loss))*$ ]] ||
		bad_usage "--tests needs a list of throughput, latency, loss"
		THROUGHPUT=0 LATENCY=0 CURVE=0 TESTS_GIVEN=1
		[[ ,$2, == *,throughput,* ]] && THROUGHPUT=1
		[[ ,$2, == *,latency,* ]] && LATENCY=1
		[[ ,$2, == *,loss,* ]] && CURVE=1
		[ "$LATENCY" = 0 ] || [ "$THROUGHPUT" = 1 ] || bad_usage "--tests: latency is measured at the throughput rate: add throughput"
		shift 2 ;;
	--dut-mode) [[ ${2:-} =~ ^(bridge|router)$ ]] || bad_usage "--dut-mode needs bridge or router"
		DUT_MODE=$2; shift 2 ;;
	--dut-mac) [[ ${2:-} =~ ^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$ ]] || bad_usage "--dut-mac needs a MAC address (02:00:00:00:00:fe)"
		DUT_MAC=$2; shift 2 ;;
	--dut-rate) [[ ${2:-} =~ ^[0-9]+([.][0-9]+)?[a-zA-Z]*$ ]] || bad_usage "--dut-rate needs a tc rate (20mbit)"
		DUT_RATE=$2; shift 2 ;;
	--dut-burst) [[ ${2:-} =~ ^[0-9]+$ ]] || bad_usage "--dut-burst needs bytes"; DUT_BURST=$2; shift 2 ;;
	--dut-latency) [[ ${2:-} =~ ^[0-9]+([.][0-9]+)?(s|ms|us)$ ]] || bad_usage "--dut-latency needs a time (10ms)"
		DUT_LATENCY=$2; shift 2 ;;
	--tx-ns) [ -n "${2:-}" ] || bad_usage "--tx-ns needs a namespace"; TX_NS=$2; shift 2 ;;
	--tx-if) [ -n "${2:-}" ] || bad_usage "--tx-if needs an interface"; TX_IF=$2; shift 2 ;;
	--rx-ns) [ -n "${2:-}" ] || bad_usage "--rx-ns needs a namespace"; RX_NS=$2; shift 2 ;;
	--rx-if) [ -n "${2:-}" ] || bad_usage "--rx-if needs an interface"; RX_IF=$2; shift 2 ;;
	--json) [ -n "${2:-}" ] || bad_usage "--json needs a file"; JSON_OUT=$2; shift 2 ;;
	-q | --quiet) QUIET=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
for s in ${SIZES//,/ }; do
	[ "$s" -ge 64 ] && [ "$s" -le 9216 ] || bad_usage "--sizes: $s is not a frame size from 64 to 9216 bytes"
done
if [ -n "$TX_NS$TX_IF$RX_NS$RX_IF" ]; then
	[ -n "$TX_IF" ] && [ -n "$RX_IF" ] ||
		bad_usage "a bench of your own needs --tx-if and --rx-if (--tx-ns and --rx-ns when they are in namespaces)"
	[ "$TX_NS/$TX_IF" != "$RX_NS/$RX_IF" ] ||
		bad_usage "--tx-if and --rx-if name one interface${TX_NS:+ in $TX_NS}: the frames must cross the DUT"
	[ -z "$DUT_RATE" ] || bad_usage "--dut-rate shapes the bench built here, not one given with --tx-if"
fi
if [ "$DUT_MODE" = router ]; then
	[ "$TESTS_GIVEN" = 1 ] || LATENCY=0
	[ "$LATENCY" = 0 ] || bad_usage "--tests latency: a routing DUT changes the frames, the send log cannot identify them"
	if [ -n "$TX_IF" ]; then
		[ -n "$DUT_MAC" ] || bad_usage "--dut-mode router with a bench of your own needs --dut-mac"
	else
		[ -z "$DUT_MAC" ] || bad_usage "--dut-mac is for a bench of your own (--tx-if); the one built here is 02:00:00:00:00:fe"
		DUT_MAC=02:00:00:00:00:fe
	fi
else
	[ -z "$DUT_MAC" ] || bad_usage "--dut-mac is for --dut-mode router"
fi
if [ -n "$JSON_OUT" ]; then
	d=$(dirname -- "$JSON_OUT")
	[ -d "$d" ] && [ -w "$d" ] || bad_usage "--json $JSON_OUT: $d is not a writable directory"
	[ ! -d "$JSON_OUT" ] || bad_usage "--json $JSON_OUT: is a directory"
fi
[ "$(id -u)" = 0 ] || die "needs root for network namespaces (try: sudo $0 ...)"

here=$(cd "$(dirname "$0")/.." && pwd)
find_prog() { # VAR NAME: $VAR from the environment, beside this script, the build directory, or PATH
	local var=$1 name=$2
	if [ -n "${!var:-}" ]; then echo "${!var}"
	elif [ -x "$(dirname "$0")/$name" ]; then echo "$(dirname "$0")/$name"
	elif [ -x "$here/build/$name" ]; then echo "$here/build/$name"
	elif command -v "$name" >/dev/null; then command -v "$name"
	else die "cannot find $name: build it (meson setup build && ninja -C build) or set $var"
	fi
}
REPLAY=$(find_prog REPLAY replay)
REPLAY_RX=$(find_prog REPLAY_RX replay-rx)
GENTRACE=$(find_prog GENTRACE gentrace)

ID=$$
NS_S="r2544-s-$ID" NS_D="r2544-d-$ID" NS_R="r2544-r-$ID"
WORK=$(mktemp -d /tmp/rfc2544.XXXXXX)
RX_PID="" BUILT=0
cleanup() {
	local rc=$?
	if [ -n "$RX_PID" ] && kill -0 "$RX_PID" 2>/dev/null; then
		kill -TERM "$RX_PID" 2>/dev/null || true
		wait "$RX_PID" 2>/dev/null || true
	fi
	if [ "$BUILT" = 1 ]; then
		ip netns del "$NS_S" 2>/dev/null || true
		ip netns del "$NS_D" 2>/dev/null || true
		ip netns del "$NS_R" 2>/dev/null || true
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

quiet_ns() { # NS: no IPv6 (no DAD, RS, MLD): only the trial's frames cross
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set dev lo up
}

# sender s0 -- d0 [bridge br0, or routing, DUT] d1 -- r0 receiver; tbf on d1 (the DUT's egress).
build_bench() {
	BUILT=1
	ip netns add "$NS_S"
	ip netns add "$NS_D"
	ip netns add "$NS_R"
	for ns in "$NS_S" "$NS_D" "$NS_R"; do quiet_ns "$ns"; done
	ip link add name s0 netns "$NS_S" address 02:00:00:00:00:01 type veth peer name d0 netns "$NS_D"
	ip link add name r0 netns "$NS_R" address 02:00:00:00:00:02 type veth peer name d1 netns "$NS_D"
	if [ "$DUT_MODE" = bridge ]; then
		ip -n "$NS_D" link add name br0 type bridge stp_state 0 mcast_snooping 0
		ip -n "$NS_D" link set dev d0 master br0
		ip -n "$NS_D" link set dev d1 master br0
		ip -n "$NS_D" link set dev br0 multicast off up
	else
		# Two subnets; the receiver's address is not on r0 (its kernel would answer
		# the test stream with ICMP), the DUT knows its MAC address without ARP.
		ip -n "$NS_D" link set dev d0 address "$DUT_MAC"
		ip -n "$NS_D" addr add 198.18.255.254/16 dev d0
		ip -n "$NS_D" addr add 198.19.255.254/16 dev d1
		ip netns exec "$NS_D" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 \
			net.ipv4.conf.default.send_redirects=0
	fi
	for l in "$NS_S s0" "$NS_R r0" "$NS_D d0" "$NS_D d1"; do
		set -- $l
		ip -n "$1" link set dev "$2" multicast off up
	done
	[ "$DUT_MODE" = bridge ] ||
		ip -n "$NS_D" neigh replace 198.19.0.1 lladdr 02:00:00:00:00:02 dev d1 nud permanent
	if [ -n "$DUT_RATE" ]; then
		ip netns exec "$NS_D" tc qdisc add dev d1 root tbf rate "$DUT_RATE" burst "$DUT_BURST" \
			latency "$DUT_LATENCY" || die "tc tbf rate $DUT_RATE burst $DUT_BURST latency $DUT_LATENCY failed"
	fi
	# Ready when every device on the path is operationally up, not when its carrier
	# is (LOWER_UP): the kernel attaches a device's qdisc -- until then noop, which
	# drops every frame -- from its link-watch work, which runs at most about once a
	# second, and sets the operational state in the same step.  Waiting for LOWER_UP
	# only, the first trial lost its first ~0.7 s on some machines (82 % lost at
	# 30 Mbit/s through the 20 Mbit/s bucket, where 33 % is right).
	for _ in $(seq 100); do
		ip -n "$NS_S" link show s0 | grep -q "state UP" && ip -n "$NS_R" link show r0 | grep -q "state UP" &&
			ip -n "$NS_D" link show d0 | grep -q "state UP" && ip -n "$NS_D" link show d1 | grep -q "state UP" &&
			{ [ "$DUT_MODE" != bridge ] || ip -n "$NS_D" link show br0 | grep -q "state UP"; } && break
		sleep 0.05
	done
	TX_NS=$NS_S TX_IF=s0 RX_NS=$NS_R RX_IF=r0
}

get() { grep -o "\"$2\":[-0-9.]*" "$1" | awk -F: 'NR == 1 { print $2 }'; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# trial SIZE FPS [latency]: one trial of DURATION seconds at FPS frames/s of SIZE-byte
# frames.  Sets T_SENT T_RECV T_LOST T_LOSS (percent) T_RATE (achieved fps) and, with
# "latency", T_LAT (the latency figures, as JSON members).  The frames are a trace of
# at most BASE_MAX played in a loop up to the count; the receiver counts those of the
# trial's flow that arrive (its kernel filter keeps anything else out).
BASE_MAX=50000
trial() {
	local size=$1 fps=$2 lat=${3:-} n base v
	n=$(awk -v r="$fps" -v d="$DURATION" 'BEGIN { n = int(r * d + 0.5); print n < 1 ? 1 : n }')
	base=$((n < BASE_MAX ? n : BASE_MAX))
	if [ "$(cat "$WORK/base.key" 2>/dev/null)" != "$size $base" ]; then
		"$GENTRACE" udp -o "$WORK/base.pcap" --count "$base" --size $((size - 4)) --gap-us 1 >/dev/null ||
			die "gentrace could not make $base frames of $size bytes"
		echo "$size $base" >"$WORK/base.key"
	fi
	rm -f "$WORK/rx.json" "$WORK/tx.json" "$WORK/send.log"
	# $! must be replay-rx itself: ip netns exec execs it, and in this namespace it runs as it is.
	${RX_NS:+ip netns exec "$RX_NS"} "$REPLAY_RX" -i "$RX_IF" --filter "udp and dst host 198.19.0.1 and dst port 9" \
		--json "$WORK/rx.json" ${lat:+--send-log "$WORK/send.log"} -q >"$WORK/rx.out" 2>"$WORK/rx.err" &
	RX_PID=$!
	for _ in $(seq 200); do
		grep -q "listening on" "$WORK/rx.err" && break
		kill -0 "$RX_PID" 2>/dev/null || die "replay-rx did not start: $(cat "$WORK/rx.err")"
		sleep 0.05
	done
	${TX_NS:+ip netns exec "$TX_NS"} "$REPLAY" -q -i "$TX_IF" --pps "$fps" --loop 0 --limit "$n" \
		${DUT_MAC:+--enet-dmac "$DUT_MAC"} \
		--stats-json "$WORK/tx.json" ${lat:+--send-log "$WORK/send.log"} "$WORK/base.pcap" ||
		die "replay failed at $fps frames/s"
	# The last frames through the DUT's queue, then the receiver's report.
	sleep 0.3
	kill -TERM "$RX_PID"
	wait "$RX_PID" || true
	RX_PID=""
	[ -s "$WORK/rx.json" ] || die "replay-rx failed: $(cat "$WORK/rx.err")"
	[ "$(get "$WORK/rx.json" kernel_drops)" = 0 ] ||
		die "the receiver's ring dropped frames at $fps frames/s: the trial does not count"
	T_SENT=$(get "$WORK/tx.json" packets_sent)
	[ "$T_SENT" = "$n" ] || die "replay sent $T_SENT of $n frames"
	T_RECV=$(get "$WORK/rx.json" received)
	[ "$T_RECV" -le "$T_SENT" ] || die "$T_RECV frames received of $T_SENT sent: the DUT duplicates frames"
	T_LOST=$((T_SENT - T_RECV))
	T_LOSS=$(awk -v l="$T_LOST" -v n="$T_SENT" 'BEGIN { printf "%.4f", 100 * l / n }')
	T_RATE=$(awk -v n="$T_SENT" -v e="$(get "$WORK/tx.json" elapsed_ns)" \
		'BEGIN { printf "%.1f", (e > 0 && n > 1) ? (n - 1) * 1e9 / e : 0 }')
	if [ -n "$lat" ]; then
		T_LAT=""
		for k in count min_ns p50_ns p90_ns p99_ns max_ns mean_ns stddev_ns; do
			v=$(get "$WORK/rx.json" "latency_$k")
			T_LAT+="${T_LAT:+,}\"$k\":${v:-null}"
		done
	fi
	say "$size bytes, $fps frames/s (sent at $T_RATE): $T_SENT sent, $T_RECV received, $T_LOSS % lost"
}

passes() { awk -v l="$T_LOSS" -v t="$TOLERANCE" 'BEGIN { exit !(l <= t) }'; }

# search_trial SIZE FPS: a trial of the search, again (--retries) while it fails; adds
# each to $trials; succeeds if one passed.
search_trial() {
	local try
	for ((try = 0; try <= RETRIES; try++)); do
		trial "$1" "$2"
		trials+="${trials:+,}{\"fps\":$2,\"sent\":$T_SENT,\"received\":$T_RECV,\"loss_pct\":$T_LOSS,\"achieved_fps\":$T_RATE}"
		passes && return 0
	done
	return 1
}
fps_of() { awk -v m="$1" -v s="$2" 'BEGIN { printf "%.0f", m * 1e6 / (8 * s) }'; } # MBPS SIZE
mbps_of() { awk -v f="$1" -v s="$2" 'BEGIN { printf "%.3f", f * 8 * s / 1e6 }'; }  # FPS SIZE

# link_of NS IF: IF's line from ip link, in namespace NS or (NS empty) in this one.
link_of() { ip ${1:+-n "$1"} link show dev "$2" 2>/dev/null; }
if [ -n "$TX_IF" ]; then
	for side in "tx $TX_NS $TX_IF" "rx $RX_NS $RX_IF"; do
		set -- $side
		[ $# = 3 ] || set -- "$1" "" "$2"
		[ -z "$2" ] || ip netns list | grep -q "^$2\( \|$\)" || die "--$1-ns $2: no such network namespace"
		link_of "$2" "$3" >/dev/null || die "--$1-if $3: no such interface${2:+ in namespace $2}"
	done
else
	build_bench
fi
printf '%-6s %14s %12s %12s %12s %12s\n' size throughput_fps mbps latency_p50 latency_p99 latency_max >"$WORK/table"
results=""
for size in ${SIZES//,/ }; do
	max=$(fps_of "$MAX_MBPS" "$size")
	trials=""
	# RFC 2544 26.1: the highest rate at which no frame is lost -- first the
	# highest rate offered, then a binary search below it.
	lo=0 hi=$max best=null
	if [ "$THROUGHPUT" = 1 ]; then
		best=0
		if search_trial "$size" "$max"; then
			best=$max
		else
			while awk -v l="$lo" -v h="$hi" -v r="$RESOLUTION" 'BEGIN { exit !(h - l > h * r / 100 && h - l >= 2) }'; do
				mid=$(( (lo + hi) / 2 ))
				if search_trial "$size" "$mid"; then lo=$mid best=$mid; else hi=$mid; fi
			done
		fi
	fi
	latency=null
	lat_row=("-" "-" "-")
	if [ "$LATENCY" = 1 ] && [ "$best" -gt 0 ]; then
		# RFC 2544 26.2: latency at the throughput rate.
		trial "$size" "$best" latency
		latency="{\"fps\":$best,\"loss_pct\":$T_LOSS,$T_LAT}"
		lat_row=("$(get "$WORK/rx.json" latency_p50_ns)" "$(get "$WORK/rx.json" latency_p99_ns)"
			"$(get "$WORK/rx.json" latency_max_ns)")
	fi
	curve=null
	if [ "$CURVE" = 1 ]; then
		# RFC 2544 26.3: the loss at 100 %, 90 %, ... of the highest rate, until two
		# trials in a row lose nothing.
		curve="" clean=0
		for pct in 100 90 80 70 60 50 40 30 20 10; do
			f=$(( max * pct / 100 ))
			[ "$f" -ge 1 ] || break
			trial "$size" "$f"
			curve+="${curve:+,}{\"pct\":$pct,\"fps\":$f,\"sent\":$T_SENT,\"received\":$T_RECV,\"loss_pct\":$T_LOSS}"
			printf '%-6s %5s %% %12s %12s %10s %%\n' "$size" "$pct" "$f" "$(mbps_of "$f" "$size")" "$T_LOSS" >>"$WORK/curve"
			if [ "$T_LOST" = 0 ]; then clean=$((clean + 1)); else clean=0; fi
			[ "$clean" -lt 2 ] || break
		done
		curve="[$curve]"
	fi
	[ "$best" != null ] && mbps=$(mbps_of "$best" "$size") || mbps=null
	printf '%-6s %14s %12s %12s %12s %12s\n' "$size" "${best/null/-}" "${mbps/null/-}" \
		"${lat_row[0]}" "${lat_row[1]}" "${lat_row[2]}" >>"$WORK/table"
	results+="${results:+,}{\"frame_size\":$size,\"throughput_fps\":$best,\"throughput_mbps\":$mbps,\"max_fps\":$max,\"trials\":$([ "$THROUGHPUT" = 1 ] && echo "[$trials]" || echo null),\"latency\":$latency,\"loss_curve\":$curve}"
done

cat "$WORK/table"
if [ -s "$WORK/curve" ]; then
	printf '\nFrame loss rate (RFC 2544 26.3):\n%-6s %7s %12s %12s %12s\n' size of_max fps mbps loss
	cat "$WORK/curve"
fi
if [ -n "$JSON_OUT" ]; then
	dut=null
	[ -z "$DUT_RATE" ] || dut="\"$DUT_RATE\""
	printf '{"rfc":2544,"duration_s":%s,"loss_tolerance_pct":%s,"resolution_pct":%s,"max_mbps":%s,"dut_mode":"%s","dut_rate":%s,"results":[%s]}\n' \
		"$DURATION" "$TOLERANCE" "$RESOLUTION" "$MAX_MBPS" "$DUT_MODE" "$dut" "$results" >"$JSON_OUT.$$.tmp" &&
		mv -f "$JSON_OUT.$$.tmp" "$JSON_OUT" || { rm -f "$JSON_OUT.$$.tmp"; die "$JSON_OUT: cannot write the results"; }
fi
