#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --threads auto (src/run/threads_auto.c): `replay -t --threads auto -i IF` on a
# veth with two TX queues a side sends with min(2, CPUs) threads and says so
# in the summary and --stats-json; every frame arrives byte-exact, each flow
# in its recorded order (flow_order.py on the far side's capture against the
# -w dry run), and the totals equal one thread's.  Without it (the default:
# the order across flows is kept) and with --threads 1 the same two-queue
# veth keeps one thread; with it, a paced run, something several threads
# cannot do, one --cpu and a one-queue veth keep one, and the summary says why.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"
FLOW_ORDER="$(dirname "$0")/flow_order.py"

inputs() { echo "$TRACES"/http.pcap "$TRACES"/dns.pcap "$TRACES"/vlan.pcap "$WORK/flows.pcap"; }

# The CPUs this script (and so replay) may run on.
CPUS=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')

# one_thread NAME OPTIONS...: a run of one thread -- no threads array, no Threads line -- whose
# totals become the reference ($ONE_*).
one_thread() {
	local name=$1 js="$WORK/$1.json" out="$WORK/$1.out"
	shift
	# shellcheck disable=SC2046
	in_a "$REPLAY" --debug -i "$IF_A" --stats-json "$js" "$@" $(inputs) >"$out" 2>&1 || die "$name: exited $?: $(cat "$out")"
	check_invariant "$js"
	grep -q '"threads"' "$js" && die "$name: a threads array in the JSON: $(cat "$js")"
	grep -q '^Threads: .*[0-9] sender threads' "$out" && die "$name: several threads in the summary: $(cat "$out")"
	grep -q '^Thread 1' "$out" && die "$name: a second thread: $(cat "$out")"
	ONE_READ=$(json_get "$js" packets_read)
	ONE_SENT=$(json_get "$js" packets_sent)
	ONE_BYTES=$(json_get "$js" bytes_sent)
	[ "$ONE_SENT" -gt 10000 ] || die "$name: sent only $ONE_SENT"
}

test_threads_one_default() {
	# No --threads on two queues: one thread (the order across flows is the trace's), no Threads line.
	one_thread default -t
	grep -q '^Threads:' "$WORK/default.out" && die "default: a Threads line: $(cat "$WORK/default.out")"
	# --threads 1: one thread, exactly as before.
	one_thread threads1 -t --threads 1
	grep -q '^Threads:' "$WORK/threads1.out" && die "--threads 1: a Threads line: $(cat "$WORK/threads1.out")"
	return 0
}

test_paced_stays_one() {
	# --pps: the schedule keeps the flows' interleaving; one thread, and --debug says why.
	local js="$WORK/pps.json" out="$WORK/pps.out"
	in_a "$REPLAY" --debug --threads auto -i "$IF_A" --pps 20000 --stats-json "$js" "$TRACES/http.pcap" >"$out" 2>&1 ||
		die "--pps: exited $?: $(cat "$out")"
	grep -q '"threads"' "$js" && die "--pps: several threads: $(cat "$js")"
	grep -q "one sender thread: not at top speed" "$out" || die "--pps: --debug does not say why one: $(cat "$out")"
	# Something several threads cannot do: one thread, no error.
	in_a "$REPLAY" --debug -t --threads auto -i "$IF_A" --limit 5 "$TRACES/http.pcap" >"$out" 2>&1 || die "--limit: exited $?: $(cat "$out")"
	grep -q "one sender thread: --limit is for one thread" "$out" || die "--limit: $(cat "$out")"
	grep -q '^Packets: read [0-9]*, sent 5,' "$out" || die "--limit: $(cat "$out")"
}

test_auto_threads() {
	local exp="$WORK/auto.expected.pcap" got="$WORK/auto.got.pcap" js="$WORK/auto.json" out="$WORK/auto.out"
	local n sent tx0 tx1
	if [ "$CPUS" -lt 2 ]; then
		info "SKIP: this process may run on $CPUS CPU"
		return 0
	fi
	n=$((CPUS < 2 ? CPUS : 2))
	# shellcheck disable=SC2046
	"$REPLAY" -q -w "$exp" --topspeed $(inputs) || die "auto: dry run failed"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$got"
	# shellcheck disable=SC2046
	in_a "$REPLAY" -t --threads auto -i "$IF_A" --stats-json "$js" $(inputs) >"$out" || die "auto: replay exited $?"
	capture_stop
	check_invariant "$js"
	# The summary and the JSON say how many, and why.
	grep -q "^Threads: --threads auto: $n sender threads on 2 TX queues and $CPUS CPUs (top speed; each flow's order kept, not the order across flows)$" "$out" ||
		die "auto: no Threads line: $(cat "$out")"
	[ "$(grep -c '^Thread [0-9]' "$out")" -eq "$n" ] || die "auto: not $n thread lines: $(cat "$out")"
	python3 - "$js" "$n" <<'PY' || die "auto: the JSON does not say it: $(cat "$js")"
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert j["thread_count"] == n and j["threads_auto"] is True, (j.get("thread_count"), j.get("threads_auto"))
assert "each flow's order kept" in j["threads_auto_reason"], j["threads_auto_reason"]
assert len(j["threads"]) == n
# Each thread: read = sent + filtered + failed; their sums are the totals; both carried flows.
busy = 0
for t in j["threads"]:
    assert t["packets_read"] == t["packets_sent"] + t["packets_filtered"] + t["packets_failed"], t
    busy += t["packets_sent"] > 0
for k in ("packets_read", "packets_sent", "packets_filtered", "packets_failed", "bytes_sent"):
    assert sum(t[k] for t in j["threads"]) == j[k], k
assert busy == n, "the flows did not spread over the threads"
PY
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "auto: packets failed"
	sent=$(json_get "$js" packets_sent)
	tx1=$(ifstat "$NS_A" "$IF_A" tx_packets)
	[ $((tx1 - tx0)) -eq "$sent" ] || die "auto: interface sent $((tx1 - tx0)), replay says $sent"
	# The totals are one thread's; the far side got each frame, byte-exact, each flow in order.
	[ "$(json_get "$js" packets_read)" -eq "$ONE_READ" ] || die "auto: read differs from one thread's"
	[ "$sent" -eq "$ONE_SENT" ] || die "auto: sent $sent, one thread sent $ONE_SENT"
	[ "$(json_get "$js" bytes_sent)" -eq "$ONE_BYTES" ] || die "auto: bytes differ from one thread's"
	[ "$(json_get "$RX_JSON" received)" -eq "$sent" ] ||
		die "auto: far side received $(json_get "$RX_JSON" received), $sent sent"
	python3 "$FLOW_ORDER" "$exp" "$got" >"$WORK/order" || die "auto: $(cat "$WORK/order")"
	info "auto: $n threads: $(cat "$WORK/order"), $sent sent"
	# Standard input: one thread (each thread would read it), with -K two (read once for all).
	in_a "$REPLAY" -t --threads auto -i "$IF_A" - <"$WORK/flows.pcap" >"$out" || die "auto from stdin: exited $?"
	grep -q "^Threads: --threads auto: one sender thread: an input is not a regular file (each thread would read it; -K reads it once)$" "$out" ||
		die "auto from stdin: $(cat "$out")"
	in_a "$REPLAY" -t -K --threads auto -i "$IF_A" --stats-json "$js" - <"$WORK/flows.pcap" >"$out" ||
		die "auto -K from stdin: exited $?"
	grep -q "^Threads: --threads auto: $n sender threads on 2 TX queues" "$out" || die "auto -K from stdin: $(cat "$out")"
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq 20000 ] || die "auto -K from stdin: sent $(json_get "$js" packets_sent) of 20000"
	# The same with --cpu 0: one CPU given, one thread.
	one_thread cpu0 -t --threads auto --cpu 0
	grep -q "^Threads: --threads auto: one sender thread: one CPU given (--cpu)$" "$WORK/cpu0.out" || die "--cpu 0: $(cat "$WORK/cpu0.out")"
}

test_one_queue() {
	# One TX queue: one thread, and --debug says why.
	one_thread onequeue -t --threads auto
	grep -q "^Threads: --threads auto: one sender thread: $IF_A has 1 TX queue$" "$WORK/onequeue.out" ||
		die "one queue: the summary does not say why one: $(cat "$WORK/onequeue.out")"
}

require_root
command -v python3 >/dev/null || die "python3 is not installed"
VETH_QUEUES=2
init_ns
"$GENTRACE" udp -o "$WORK/flows.pcap" --count 20000 --gap-ns 2000 --flows 64 --size 128 >/dev/null
run_tests test_threads_one_default test_paced_stays_one test_auto_threads
ip netns del "$NS_A"
ip netns del "$NS_B"
rm -rf "$WORK"
unset VETH_QUEUES
init_ns
"$GENTRACE" udp -o "$WORK/flows.pcap" --count 20000 --gap-ns 2000 --flows 64 --size 128 >/dev/null
run_tests test_one_queue
