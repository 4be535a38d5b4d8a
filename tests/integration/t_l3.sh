#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Sending on an interface without a link-layer header: a tun device, read on
# its far side by a small reader.  Every IP packet of the trace arrives
# byte-identical, once, in order, its link header (Ethernet, VLAN tags, a
# cooked or loopback header) dropped and its padding left out, whatever the
# method (packet, mmsg, uring, and auto's choice); a raw-IP trace goes as it
# is; frames with no IP packet fail, each with the reason and all of them
# once in the summary; ring and xdp refuse with the reason and auto passes
# them by; the MTU checked and --segment cut at the layer-3 MTU.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}" "${REFORMAT:?}"

TUNREAD="$(dirname "$0")/tunread.py"
# Debian's python3, not a version manager's shim (seconds a start on a loaded machine).
PY=$(command -v /usr/bin/python3 || command -v python3)
TUN="rpt$ID"
TUN_PID=""
TEARDOWN_PIDS="TUN_PID"

# (--help is read whole, not piped into grep -q: over 4 KiB, it could die of SIGPIPE under pipefail.)
built() { ! "$REPLAY" --method "$1" -i lo /dev/null 2>&1 | grep -q "is not one of"; }

# tun_start OUT: tun device $TUN in A, up, its reader writing what it gets to OUT.
tun_start() {
	ip netns exec "$NS_A" "$PY" "$TUNREAD" read "$TUN" "$1" >"$WORK/tun.out" 2>"$WORK/tun.err" &
	TUN_PID=$!
	wait_listening "$TUN_PID" "$WORK/tun.out" tunread.py
	# A queue longer than the socket's send buffer holds: back-pressure, never a tun drop.
	in_a ip link set dev "$TUN" txqueuelen 10000 up
	for _ in $(seq 100); do
		in_a ip link show "$TUN" | grep -q "LOWER_UP" && ! in_a ip link show "$TUN" | grep -q "qdisc noop" &&
			return 0
		sleep 0.05
	done
	die "$TUN did not come up: $(in_a ip link show "$TUN")"
}

# tun_stop: stop the reader once it has read everything (the tun device goes with it).
tun_stop() {
	kill -TERM "$TUN_PID"
	wait "$TUN_PID" || die "tunread.py exited $?: $(cat "$WORK/tun.err")"
	TUN_PID=""
}

# l3_check NAME TRACE [OPTIONS...]: replay TRACE on the tun device with OPTIONS; the far
# side gets exactly the trace's whole IP packets, the rest fail and are counted.
l3_check() {
	local name=$1 trace=$2
	shift 2
	local exp="$WORK/$name.exp.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local out="$WORK/$name.out" err="$WORK/$name.err" ip notip cut rc=0 want=0 tx
	read -r ip notip cut < <("$PY" "$TUNREAD" expect "$trace" "$exp") || die "$name: no expectation"
	[ "$ip" -gt 0 ] || die "$name: the trace has no IP packet to send"
	[ "$((notip + cut))" -eq 0 ] || want=1
	tun_start "$got"
	in_a "$REPLAY" -i "$TUN" --topspeed --stats-json "$js" "$@" "$trace" >"$out" 2>"$err" || rc=$?
	[ "$rc" -eq "$want" ] || die "$name: replay exited $rc, expected $want: $(cat "$err")"
	tx=$(ifstat "$NS_A" "$TUN" tx_packets)
	tun_stop
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq "$ip" ] ||
		die "$name: sent $(json_get "$js" packets_sent), the trace has $ip whole IP packets"
	[ "$(json_get "$js" packets_failed)" -eq $((notip + cut)) ] ||
		die "$name: failed $(json_get "$js" packets_failed), expected $notip not IP + $cut cut"
	[ "$(json_get "$js" packets_not_ip)" -eq "$notip" ] ||
		die "$name: packets_not_ip $(json_get "$js" packets_not_ip), expected $notip"
	[ "$tx" -eq "$ip" ] || die "$name: $TUN's TX counter says $tx, replay $ip"
	grep -q '"method_mode":"[^"]*layer 3 (tun): link header dropped' "$js" ||
		die "$name: the JSON does not say layer 3: $(grep -o '"method_mode":"[^"]*"' "$js")"
	grep -q "^Method: .*layer 3 (tun): link header dropped.* on $TUN\$" "$out" ||
		die "$name: the summary does not say layer 3: $(grep '^Method' "$out")"
	if [ "$notip" -gt 0 ]; then
		grep -q "^Layer 3: $notip frames failed for carrying no IP packet" "$out" ||
			die "$name: the summary does not count the frames without IP: $(cat "$out")"
		grep -q "is not IP: $TUN is a layer-3 interface (tun), which takes only IPv4 and IPv6 packets" "$err" ||
			die "$name: no reason for the frames without IP: $(cat "$err")"
	fi
	"$PCAPDIFF" --l3 "$exp" "$got" >"$WORK/diff" || die "$name: far side differs: $(cat "$WORK/diff")"
	info "$name: $(cat "$WORK/diff"), $notip not IP, $cut cut; $(grep -o '^Method: .*' "$out")"
}

test_every_method() {
	"$GENTRACE" udp --size 64 --count 3000 -o "$WORK/u64.pcap" >/dev/null
	"$GENTRACE" udp --size 1514 --count 500 -o "$WORK/u1514.pcap" >/dev/null
	local m
	for m in packet mmsg uring; do
		if ! built "$m"; then
			[ "${CI:-}" = true ] && die "method $m is not built in"
			info "SKIP method $m: not built in"
			continue
		fi
		l3_check "$m-64" "$WORK/u64.pcap" --method "$m"
		l3_check "$m-1514" "$WORK/u1514.pcap" --method "$m" --batch 7
		l3_check "$m-vlan" "$TRACES/vlan.pcap" --method "$m"
		l3_check "$m-mixed" "$TRACES/mixed.pcap" --method "$m"
	done
	l3_check packet-bypass "$TRACES/http6.pcap" --method packet --qdisc-bypass
	l3_check mmsg-b1 "$TRACES/ipv6.pcap" --method mmsg --batch 1
}

test_link_types() {
	# Cooked, loopback and raw-IP traces: the link header each had is dropped; raw IP goes as it is.
	local lt t
	for lt in sll:vlan sll2:vlan null:mixed raw:mixed ipv4:http ipv6:http6; do
		t=${lt#*:}
		lt=${lt%:*}
		"$REFORMAT" "$TRACES/$t.pcap" "$WORK/$t-$lt.pcap" "pcap-$lt" >/dev/null ||
			die "reformat pcap-$lt failed"
		l3_check "$t-$lt" "$WORK/$t-$lt.pcap"
	done
}

test_auto_and_refusals() {
	local m
	# auto takes mmsg (xdp and ring cannot); with --qdisc-bypass it passes xdp by, saying why.
	l3_check auto "$TRACES/http.pcap"
	grep -q '"method":"mmsg"' "$WORK/auto.json" || die "auto did not take mmsg: $(cat "$WORK/auto.json")"
	grep -q "chosen by --method auto" "$WORK/auto.out" || die "auto: $(grep '^Method' "$WORK/auto.out")"
	l3_check auto-bypass "$TRACES/dns.pcap" --qdisc-bypass
	grep -q '"method":"mmsg"' "$WORK/auto-bypass.json" || die "auto --qdisc-bypass did not take mmsg"
	if built xdp; then
		grep -q "method xdp not used: $TUN: a layer-3 interface (tun), without a link-layer header: the xdp method cannot send on it" \
			"$WORK/auto-bypass.err" || die "auto --qdisc-bypass: xdp passed by silently: $(cat "$WORK/auto-bypass.err")"
	fi
	# Asked for by name, ring and xdp refuse in one line; so does --gso, which has nothing to cut here.
	tun_start "$WORK/refused.pcap"
	for m in ring xdp; do
		built "$m" || continue
		expect_fail 1 "^replay: $TUN: a layer-3 interface \(tun\), without a link-layer header: the $m method cannot send on it \(packet, mmsg and uring can\)\$" \
			in_a "$REPLAY" -i "$TUN" --method "$m" "$TRACES/dns.pcap"
	done
	expect_fail 1 "^replay: --gso: $TUN is a layer-3 interface \(tun\): it takes IP packets" \
		in_a "$REPLAY" -i "$TUN" --gso --segment --topspeed "$TRACES/dns.pcap"
	tun_stop
	[ "$(tail -n1 "$WORK/tun.out")" = "0 packets 0 bytes" ] || die "refused runs sent: $(cat "$WORK/tun.out")"
}

test_mtu_and_segment() {
	local js="$WORK/mtu.json" got="$WORK/seg.got.pcap"
	"$GENTRACE" udp --size 1514 --count 5 -o "$WORK/big.pcap" >/dev/null
	# The 1500-byte IP packets against a layer-3 MTU of 1000: each fails with the reason.
	tun_start "$WORK/mtu.got.pcap"
	in_a ip link set dev "$TUN" mtu 1000
	expect_fail 1 "IP packet of 1500 bytes exceeds $TUN's MTU 1000" \
		in_a "$REPLAY" -i "$TUN" --method mmsg --topspeed --stats-json "$js" "$WORK/big.pcap"
	[ "$(json_get "$js" packets_failed)" = 5 ] || die "mtu: failed $(json_get "$js" packets_failed)"
	[ "$(json_get "$js" packets_not_ip)" = 0 ] || die "mtu: counted as not IP"
	tun_stop
	# --segment cuts TCP into segments and fragments the rest so that each IP packet fits the
	# 1000 bytes: every piece arrives, a whole IP packet within the MTU.
	"$PY" "$(dirname "$0")/mkbig.py" "$WORK/huge.pcap" "$WORK"
	tun_start "$got"
	in_a ip link set dev "$TUN" mtu 1000
	in_a "$REPLAY" -q -i "$TUN" --segment --topspeed --stats-json "$js" "$WORK/huge.pcap" ||
		die "segment: replay exited $?"
	tun_stop
	[ "$(json_get "$js" packets_segmented)" = 4 ] || die "segment: $(json_get "$js" packets_segmented) cut"
	[ "$(json_get "$js" packets_sent)" = "$(json_get "$js" segments)" ] || die "segment: not every piece sent"
	"$PY" - "$got" "$(json_get "$js" segments)" <<'PY' || die "segment: the far side got the wrong pieces (above)"
import struct, sys
d = open(sys.argv[1], "rb").read()
off, n = 24, 0
while off < len(d):
    cl = struct.unpack("<I", d[off + 8:off + 12])[0]
    ip = d[off + 16:off + 16 + cl]
    whole = 40 + struct.unpack(">H", ip[4:6])[0] if ip[0] >> 4 == 6 else struct.unpack(">H", ip[2:4])[0]
    if len(ip) > 1000 or whole != len(ip):
        sys.exit("piece %d: %d bytes, not a whole IP packet within the MTU" % (n, len(ip)))
    n += 1
    off += 16 + cl
if n != int(sys.argv[2]):
    sys.exit("%d pieces arrived, %s sent" % (n, sys.argv[2]))
PY
	info "segment: 4 packets of 20000-30000 bytes arrived as $(json_get "$js" segments) pieces within the MTU"
}

require_root
[ -c /dev/net/tun ] || { [ "${CI:-}" = true ] && die "no /dev/net/tun"; echo "SKIP: no /dev/net/tun"; exit $SKIP; }
init_ns
run_tests test_every_method test_link_types test_auto_and_refusals test_mtu_and_segment
