#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Two-interface replay (-I): two veth pairs into one far namespace, a "device
# under test" with two ports.  For each split (--split first, client, cidr,
# and a tcpprep 4.6 cache with -c), every packet of a bundled trace must
# arrive on the far port of its side -- byte-exact, in order, each once --
# and nothing on the other port.  The expected halves come from the split
# module itself (splitdump) and are cut out of the trace with replay -w
# --include; replay's own per-side accounting (--stats-json intf1/intf2)
# must agree.  Then the refusals: the same interface twice, -I with -w, a
# missing interface on either side (named), --split without -I.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${SPLITDUMP:?}"
TCPPREP=${TCPPREP:-/work/shared/anchors/tcpreplay-4.6.0-beta2/bin/tcpprep}

require_root
init_ns
IF_A2="rqa$ID"
IF_B2="rqb$ID"
ip link add name "$IF_A2" netns "$NS_A" type veth peer name "$IF_B2" netns "$NS_B"
for side in "$NS_A $IF_A2" "$NS_B $IF_B2"; do
	set -- $side
	ip -n "$1" link set dev "$2" multicast off
	ip -n "$1" link set dev "$2" up
done
for _ in $(seq 50); do
	ip -n "$NS_A" link show "$IF_A2" | grep -q LOWER_UP && break
	sleep 0.1
done
RX2_PID=""
# lib.sh's teardown, after stopping the second port's receiver; the exit status is kept.
teardown2() {
	local rc=$?
	if [ -n "$RX2_PID" ]; then
		kill -TERM "$RX2_PID" 2>/dev/null || true
		wait "$RX2_PID" 2>/dev/null || true
	fi
	(exit $rc)
	teardown
}
trap teardown2 EXIT

# half SIDES SIDE TRACE OUT: the frames of TRACE whose line in SIDES is SIDE, to OUT; prints their count.
half() {
	local list n
	list=$(awk -v s="$2" '$1 == s { printf "%s%d", (n++ ? "," : ""), NR }' "$1")
	n=$(grep -cx "$2" "$1" || true)
	[ "$n" -gt 0 ] || die "side $2 of $3 is empty: the case tests nothing"
	"$REPLAY" -q -t -w "$4" --include "P:$list" "$3" || die "cutting side $2 out of $3"
	echo "$n"
}

# rx_on NS IF JSON CAP REF: replay-rx on the far port IF, every frame kept (--no-ref-filter); its PID in $RX_PID.
rx_on() {
	ip netns exec "$1" "$REPLAY_RX" -i "$2" --json "$3" -s 9216 -w "$4" --reference "$5" --no-ref-filter \
		>"$3.out" 2>"$3.err" &
	RX_PID=$!
}

# check_port JSON CAP REF N PID: replay-rx stopped; exactly the N frames of REF arrived, byte-exact.
check_port() {
	local rc=0 k
	kill -TERM "$5"
	wait "$5" || rc=$?
	[ "$rc" -eq 0 ] || die "replay-rx on $(basename "$1"): exit $rc: $(cat "$1.out" "$1.err")"
	[ "$(json_get "$1" received)" -eq "$4" ] ||
		die "$(basename "$1"): received $(json_get "$1" received) frames, $4 belong to this port"
	for k in lost duplicated reordered foreign kernel_drops; do
		[ "$(json_get "$1" $k)" = 0 ] || die "$(basename "$1"): $k $(json_get "$1" $k)"
	done
	"$PCAPDIFF" "$3" "$2" >"$WORK/diff" || die "$(basename "$1"): far side differs: $(cat "$WORK/diff")"
}

# dual NAME TRACE SIDES REPLAY-ARGS...: replay TRACE over both pairs; check each far port.
dual() {
	local name=$1 trace=$2 sides=$3 n1 n2 p1 p2 st
	shift 3
	n1=$(half "$sides" 1 "$trace" "$WORK/$name.ref1.pcap")
	n2=$(half "$sides" 2 "$trace" "$WORK/$name.ref2.pcap")
	rx_on "$NS_B" "$IF_B" "$WORK/$name.rx1.json" "$WORK/$name.cap1.pcap" "$WORK/$name.ref1.pcap"
	p1=$RX_PID
	CAP_PID=$p1
	rx_on "$NS_B" "$IF_B2" "$WORK/$name.rx2.json" "$WORK/$name.cap2.pcap" "$WORK/$name.ref2.pcap"
	p2=$RX_PID
	RX2_PID=$p2
	wait_listening "$p1" "$WORK/$name.rx1.json.err" replay-rx
	wait_listening "$p2" "$WORK/$name.rx2.json.err" replay-rx
	st=$WORK/$name.stats.json
	in_a "$REPLAY" -i "$IF_A" -I "$IF_A2" --pps 2000 --stats-json "$st" "$@" "$trace" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || die "$name: replay failed: $(cat "$WORK/$name.err")"
	sleep 0.3
	check_port "$WORK/$name.rx1.json" "$WORK/$name.cap1.pcap" "$WORK/$name.ref1.pcap" "$n1" "$p1"
	CAP_PID=""
	check_port "$WORK/$name.rx2.json" "$WORK/$name.cap2.pcap" "$WORK/$name.ref2.pcap" "$n2" "$p2"
	RX2_PID=""
	# replay's own account, per side and in total.
	check_invariant "$st"
	grep -q "\"intf1\":{[^}]*\"interface\":\"$IF_A\",[^}]*\"packets_read\":$n1,\"packets_sent\":$n1,\"packets_failed\":0," "$st" ||
		die "$name: intf1 account wrong: $(cat "$st")"
	grep -q "\"intf2\":{[^}]*\"interface\":\"$IF_A2\",[^}]*\"packets_read\":$n2,\"packets_sent\":$n2,\"packets_failed\":0," "$st" ||
		die "$name: intf2 account wrong: $(cat "$st")"
	[ "$(json_get "$st" packets_sent)" -eq $((n1 + n2)) ] || die "$name: total sent wrong: $(cat "$st")"
	grep -q "^intf1: .* on $IF_A; read $n1, sent $n1 " "$WORK/$name.out" ||
		die "$name: summary lacks the intf1 line: $(cat "$WORK/$name.out")"
	grep -q "^intf2: .* on $IF_A2; read $n2, sent $n2 " "$WORK/$name.out" ||
		die "$name: summary lacks the intf2 line: $(cat "$WORK/$name.out")"
	info "$name: $n1 frames on port 1, $n2 on port 2, each where it belongs"
}

test_split_first() {
	"$SPLITDUMP" first "$TRACES/http.pcap" >"$WORK/first.sides"
	# first is the default: no --split given.
	dual first "$TRACES/http.pcap" "$WORK/first.sides"
}

test_split_client() {
	"$SPLITDUMP" client "$TRACES/mixed.pcap" >"$WORK/client.sides"
	dual client "$TRACES/mixed.pcap" "$WORK/client.sides" --split client
}

test_split_cidr() {
	local m=cidr:192.0.2.10/32,2001:db8::a/128
	"$SPLITDUMP" "$m" "$TRACES/mixed.pcap" >"$WORK/cidr.sides"
	dual cidr "$TRACES/mixed.pcap" "$WORK/cidr.sides" --split "$m"
}

# replay prep --split: the sides come from the sidecar (no learning pass), the same as computing them.
test_prep_split() {
	"$SPLITDUMP" client "$TRACES/mixed.pcap" >"$WORK/prep.sides"
	"$REPLAY" prep -q "$TRACES/mixed.pcap" -o "$WORK/mixed.prep" --split client ||
		die "replay prep --split client failed"
	dual prep "$TRACES/mixed.pcap" "$WORK/prep.sides" -v --split client --prep "$WORK/mixed.prep"
	grep -q "the sides come from $WORK/mixed.prep" "$WORK/prep.err" ||
		die "the sides were not taken from the sidecar: $(cat "$WORK/prep.err")"
	# A sidecar of another mode is refused, naming both.
	expect_fail 1 "holds the sides of --split client, not of --split server" \
		in_a "$REPLAY" -i "$IF_A" -I "$IF_A2" --split server --prep "$WORK/mixed.prep" "$TRACES/mixed.pcap"
}

test_cachefile() {
	if [ ! -x "$TCPPREP" ]; then
		info "SKIP test_cachefile: no tcpprep 4.6 at $TCPPREP"
		return 0
	fi
	"$TCPPREP" -a client -i "$TRACES/vlan.pcap" -o "$WORK/vlan.cache" >/dev/null 2>&1 ||
		die "tcpprep -a client failed"
	"$SPLITDUMP" -c "$WORK/vlan.cache" "$TRACES/vlan.pcap" >"$WORK/cache.sides"
	dual cache "$TRACES/vlan.pcap" "$WORK/cache.sides" -c "$WORK/vlan.cache"
	# A cache of another trace is refused, naming both counts.
	expect_fail 1 "describes 40 packets, the trace has 14" \
		in_a "$REPLAY" -i "$IF_A" -I "$IF_A2" -c "$WORK/vlan.cache" "$TRACES/ipv6.pcap"
}

test_errors() {
	expect_fail 2 "^replay: -i and -I both name $IF_A" \
		in_a "$REPLAY" -i "$IF_A" -I "$IF_A" "$TRACES/http.pcap"
	expect_fail 2 "^replay: -I sends on a second interface; -w writes one file" \
		"$REPLAY" -w "$WORK/x.pcap" -I "$IF_A2" "$TRACES/http.pcap"
	[ ! -e "$WORK/x.pcap" ] || die "-I with -w left an output file"
	expect_fail 2 "^replay: -I $IF_A2 is the second interface: give the first with -i IF" \
		in_a "$REPLAY" -I "$IF_A2" "$TRACES/http.pcap"
	expect_fail 2 "^replay: --split chooses between two interfaces: give the second with -I IF" \
		in_a "$REPLAY" -i "$IF_A" --split client "$TRACES/http.pcap"
	expect_fail 1 "^replay: intf2 \(-I nosuch$ID\): " \
		in_a "$REPLAY" -i "$IF_A" -I "nosuch$ID" "$TRACES/http.pcap"
	expect_fail 1 "^replay: intf1 \(-i nosuch$ID\): " \
		in_a "$REPLAY" -i "nosuch$ID" -I "$IF_A2" "$TRACES/http.pcap"
}

run_tests test_split_first test_split_client test_split_cidr test_prep_split test_cachefile test_errors
