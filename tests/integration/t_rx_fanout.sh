#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay-rx --fanout: two rings in a PACKET_FANOUT group on a veth with two
# receive queues.  A many-flow replay at a rate nothing drops at must come
# out of the merged rings as exactly the reference -- every packet, each
# flow in order -- with both rings used, and give the same results, flow by
# flow, as a single ring receiving the same replay.
VETH_QUEUES=2
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"

# flow_counts JSON: each flow's "flow packets bytes received lost reordered duplicated", sorted.
flow_counts() {
	grep -o '{"flow":"[^"]*"[^{}]*' "$1" |
		sed -E 's/^\{"flow":"([^"]*)".*"packets":([0-9]+),"bytes":([0-9]+),"received":([0-9]+),"lost":([0-9]+),.*"reordered":([0-9]+),"duplicated":([0-9]+).*/\1 \2 \3 \4 \5 \6 \7/' |
		sort
}

# receive NAME [OPTIONS...]: replay-rx with OPTIONS against the trace, replayed at 20 kpps.
receive() {
	local name=$1
	shift
	rx_start "$WORK/$name.json" --reference "$WORK/flows.pcap" --per-flow "$@"
	in_a "$REPLAY" -q -i "$IF_A" --pps 20000 "$WORK/flows.pcap" || die "$name: replay failed"
	rx_stop
	rx_exact 4000
	[ "$(json_get "$RX_JSON" kernel_drops)" = 0 ] || die "$name: the rings dropped frames"
}

test_fanout_equals_single_ring() {
	local r0 r1 k0 k1
	"$GENTRACE" udp -o "$WORK/flows.pcap" --count 4000 --gap-us 50 --flows 16 >/dev/null

	receive single
	grep -q '"fanout":null,"rings":null' "$WORK/single.json" || die "one ring: fanout reported"
	flow_counts "$WORK/single.json" >"$WORK/single.flows"
	[ "$(wc -l <"$WORK/single.flows")" -eq 16 ] || die "one ring: $(wc -l <"$WORK/single.flows") flows, not 16"

	receive fanout --fanout 2
	grep -q "listening on $IF_B: .*fanout: rings 2" "$WORK/rx.err" || die "no fanout in the banner: $(cat "$WORK/rx.err")"
	grep -q '"fanout":2,"rings":\[{' "$RX_JSON" || die "--fanout 2: no rings in the JSON"
	read -r r0 r1 <<<"$(grep -o '"rings":\[.*\]' "$RX_JSON" | grep -o '"frames":[0-9]*' | cut -d: -f2 | tr '\n' ' ')"
	read -r k0 k1 <<<"$(grep -o '"rings":\[.*\]' "$RX_JSON" | grep -o '"kernel_packets":[0-9]*' | cut -d: -f2 | tr '\n' ' ')"
	[ -n "$r1" ] && [ "$r0" -gt 0 ] && [ "$r1" -gt 0 ] ||
		die "--fanout 2: the flows were not spread over both rings (frames: $r0 $r1)"
	[ $((r0 + r1)) -eq 4000 ] || die "--fanout 2: rings took $r0 + $r1 frames, not 4000"
	[ "$k0" -eq "$r0" ] && [ "$k1" -eq "$r1" ] || die "--fanout 2: kernel counted $k0 $k1, rings gave $r0 $r1"
	grep -q "ring 1 (fanout): $r1 frames, kernel $k1 passed, 0 dropped" "$WORK/rx.out" ||
		die "--fanout 2: per-ring counters missing from the report: $(cat "$WORK/rx.out")"
	flow_counts "$WORK/fanout.json" >"$WORK/fanout.flows"
	diff -u "$WORK/single.flows" "$WORK/fanout.flows" || die "--fanout 2: per-flow results differ from one ring's"
	for k in received bytes matched bytes_lost; do
		[ "$(json_get "$WORK/fanout.json" $k)" = "$(json_get "$WORK/single.json" $k)" ] ||
			die "--fanout 2: $k $(json_get "$WORK/fanout.json" $k), one ring $(json_get "$WORK/single.json" $k)"
	done
	info "fanout: rings took $r0 and $r1 frames; merged = reference = one ring, flow by flow"
}

test_fanout_refusals() {
	local out rc
	for args in "--fanout 0" "--fanout $(($(nproc) + 1))" "--fanout 2 -w $WORK/x.pcap" "--fanout 2 -c 5" \
		"-r $WORK/flows.pcap --fanout 2"; do
		rc=0
		out=$(in_b "$REPLAY_RX" -i "$IF_B" $args 2>&1) || rc=$?
		case $args in -r*) out=$(in_b "$REPLAY_RX" $args 2>&1) && rc=0 || rc=$? ;; esac
		[ $rc -eq 2 ] || die "replay-rx $args: exit $rc, not 2: $out"
		[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -q -- "--fanout" <<<"$out" ||
			die "replay-rx $args: not a one-line error naming --fanout: $out"
	done
	[ -e "$WORK/x.pcap" ] && die "a refused --fanout run wrote its -w file"
	true
}

require_root
init_ns
run_tests test_fanout_equals_single_ring test_fanout_refusals
