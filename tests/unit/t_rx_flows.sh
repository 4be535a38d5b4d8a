#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay-rx --per-flow end to end without a network: a trace of four UDP
# flows, faults put into chosen flows with pcapfault, read with -r against
# the original; the JSON must put every fault in its flow, and the text
# report list the worst flows first.  Then --sequence: the same faults
# found by gentrace's sequence numbers, without a reference, other UDP
# traffic mixed in.  No root needed.
set -euo pipefail
: "${REPLAY_RX:?}" "${GENTRACE:?}" "${PCAPFAULT:?}" "${TRACES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
WORK=$(mktemp -d /tmp/rx-flows.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# 400 packets, flow f = seq % 4 (source 198.18.0.(f+1):(1024+f)); record r is seq r-1.
"$GENTRACE" udp -o "$WORK/ref.pcap" --count 400 --gap-us 100 --flows 4 >/dev/null
# Flow 1 loses records 6 and 10 (seq 5, 9); flow 3 gets record 8 (seq 7) twice;
# records 12 and 13 (flows 3 and 0) change places: reordered overall, in no flow.
"$PCAPFAULT" "$WORK/ref.pcap" "$WORK/got.pcap" --drop 6 --drop 10 --dup 8 --swap 12
rc=0
"$REPLAY_RX" -r "$WORK/got.pcap" -R "$WORK/ref.pcap" --per-flow --worst 2 --json "$WORK/r.json" \
	>"$WORK/out" || rc=$?
[ $rc -eq 3 ] || die "replay-rx exited $rc, expected 3 (faults): $(cat "$WORK/out")"
python3 - "$WORK/r.json" <<'PY' || die "JSON: $(cat "$WORK/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["lost"], d["duplicated"], d["reordered"]) == (2, 1, 1), d
assert d["bytes_lost"] == 128 and abs(d["loss_ratio"] - 2 / 400) < 1e-12, d
assert d["flow_count"] == 4 == len(d["flows"])
by = {f["sport"]: f for f in d["flows"]}
want = {1024: (100, 100, 0, 0, 0), 1025: (100, 98, 2, 0, 0),
        1026: (100, 100, 0, 0, 0), 1027: (100, 101, 0, 0, 1)}
for port, (pk, rcv, lost, reord, dup) in want.items():
    f = by[port]
    got = (f["packets"], f["received"], f["lost"], f["reordered"], f["duplicated"])
    assert got == (pk, rcv, lost, reord, dup), (port, got)
    assert f["src"] == "198.18.0.%d" % (port - 1023) and f["dst"] == "198.19.0.1"
    assert f["proto"] == 17 and f["dport"] == 9 and f["kind"] == "ipv4"
assert by[1025]["bytes_lost"] == 128 and by[1025]["loss_ratio"] == 0.02
# Worst first: the flow with losses, then the one with a duplicate.
assert [f["sport"] for f in d["flows"][:2]] == [1025, 1027], [f["sport"] for f in d["flows"]]
# Each flow's errors are between its own in-order frames: 99 pairs, 97 where two were lost.
assert by[1024]["error_count"] == 99 and by[1025]["error_count"] == 97
PY
grep -q "^Flows: 4; the 2 worst" "$WORK/out" || die "no flow table: $(cat "$WORK/out")"
grep -A3 "^Flows:" "$WORK/out" | sed -n 3p | grep -q "98      2 .*udp 198.18.0.2:1025 > 198.19.0.1:9" ||
	die "worst flow not first: $(cat "$WORK/out")"
grep -q "(and 2 more flows; all are in --json)" "$WORK/out" || die "hidden flows not counted"
# Without faults: exact, and every flow whole.
"$REPLAY_RX" -q -r "$WORK/ref.pcap" -R "$WORK/ref.pcap" --per-flow --json "$WORK/ok.json" ||
	die "the reference against itself is not exact"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(f["received"]==100 and f["lost"]==0 for f in d["flows"])' "$WORK/ok.json" ||
	die "flows not whole: $(cat "$WORK/ok.json")"
# --per-flow needs --reference; --worst needs --per-flow.
rc=0; "$REPLAY_RX" -r "$WORK/got.pcap" --per-flow 2>"$WORK/err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--per-flow .*--reference" "$WORK/err" || die "--per-flow without --reference: $rc $(cat "$WORK/err")"
rc=0; "$REPLAY_RX" -r "$WORK/got.pcap" -R "$WORK/ref.pcap" --worst 3 2>"$WORK/err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--worst" "$WORK/err" || die "--worst without --per-flow: $rc $(cat "$WORK/err")"

# --sequence: no reference; the numbers say what was lost, doubled, reordered.
"$PCAPFAULT" "$WORK/ref.pcap" "$WORK/sq.pcap" --drop 6 --drop 10 --drop 400 --dup 8 --swap 12
"$PCAPFAULT" "$TRACES/dns.pcap" "$WORK/dns.pcap"
cat "$WORK/sq.pcap" >"$WORK/mixed.pcap"
tail -c +25 "$WORK/dns.pcap" >>"$WORK/mixed.pcap" # the DNS records after the sequenced ones
rc=0
"$REPLAY_RX" -r "$WORK/mixed.pcap" --sequence --json "$WORK/sq.json" >"$WORK/sq.out" || rc=$?
[ $rc -eq 3 ] || die "--sequence exited $rc, expected 3: $(cat "$WORK/sq.out")"
python3 - "$WORK/sq.json" <<'PY' || die "--sequence JSON: $(cat "$WORK/sq.json")"
import json, sys
d = json.load(open(sys.argv[1]))
# Record r is number r-1; 400 dropped: the last seen is 398, and a loss at the end cannot be seen.
assert (d["sequence_first"], d["sequence_last"], d["sequence_expected"]) == (0, 398, 399), d
assert (d["lost"], d["duplicated"], d["reordered"]) == (2, 1, 1), d
assert d["lost_sequence"] == [5, 9] and d["duplicated_sequence"] == [7] and d["reordered_sequence"] == [11], d
assert d["foreign"] == 8 and d["foreign_frames"] == list(range(398 + 1, 398 + 9)), d
assert d["exact"] is False
PY
grep -q "^Sequence: numbers 0 to 398, 399 expected" "$WORK/sq.out" || die "--sequence report: $(cat "$WORK/sq.out")"
"$REPLAY_RX" -q -r "$WORK/ref.pcap" --sequence || die "--sequence: the trace itself is not exact"
rc=0; "$REPLAY_RX" -r "$WORK/ref.pcap" --sequence -R "$WORK/ref.pcap" 2>"$WORK/err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--sequence" "$WORK/err" || die "--sequence with --reference: $rc $(cat "$WORK/err")"
echo "PASS"
