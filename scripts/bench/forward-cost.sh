#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# The live forwarder's cost per frame: generator (namespace C) -> replay
# --source-interface (A) -> B, three namespaces over two veth pairs, as
# scripts/bench/impair.sh sets them up.  For each build given (the anchor
# first) and each case ("none": a bridge; "delay": --delay 10ms --timer
# sleep, so that no spin is counted):
#   Ir/frame     user-space instructions per forwarded frame, callgrind:
#                (Ir(3N frames) - Ir(N frames)) / 2N, so start-up does not
#                count; deterministic, so meaningful on a loaded machine
#                (RATE is low: the forwarder runs under valgrind);
#   sys/frame    system calls per forwarded frame, CPU us per frame and
#                context switches, from perf stat over a FAST-pps run of
#                SECS seconds (these depend on how many frames each wake-up
#                finds, so on the load: compare builds in the same run).
#
#   sudo [N=2000] [RATE=2000] [FAST=90000] [SECS=3] [CASES="none delay"] \
#        scripts/bench/forward-cost.sh [OLD_BUILD] NEW_BUILD
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: forward-cost.sh [OLD_BUILD] NEW_BUILD" >&2; exit 2; }
N=${N:-2000} RATE=${RATE:-2000} FAST=${FAST:-90000} SECS=${SECS:-3} CASES=${CASES:-none delay}
command -v valgrind >/dev/null || { echo "forward-cost: needs valgrind" >&2; exit 1; }
command -v perf >/dev/null || { echo "forward-cost: needs perf" >&2; exit 1; }
G=${!#}
# Namespaces, veth, teardown: the integration tests' harness (tests/integration/lib.sh):
# A and B from init_ns, C and the pair C <-> A from add_ns/add_pair; the forwarder's
# PID ($FP) is stopped at teardown.
REPLAY=$G/replay REPLAY_RX=$G/replay-rx TRACES=$PWD/traces
. tests/integration/lib.sh
require_root
init_ns
W=$WORK NA=$NS_A NB=$NS_B IA=$IF_A IB=$IF_B
NC="rpl-c-$ID" IC="rpc$ID" IF="rpf$ID"
FP=""
TEARDOWN_PIDS="FP"
add_ns "$NC"
add_pair "$NC" "$IC" "$NA" "$IF"

# fwd BUILD COUNT PPS TOOL ARGS...: one forwarded run; the tool's output in $W/tool.out.
fwd() {
	local b=$1 n=$2 pps=$3 tool=$4 pre=()
	shift 4
	"$G/gentrace" udp -o "$W/t.pcap" --count "$n" --size 64 >/dev/null
	case $tool in
	callgrind) pre=(valgrind --tool=callgrind --callgrind-out-file="$W/tool.out") ;;
	perf) pre=(perf stat -x, -e task-clock,context-switches,raw_syscalls:sys_enter -o "$W/tool.out") ;;
	esac
	: >"$W/f.err"
	ip netns exec "$NA" "${pre[@]}" "$b/replay" --source-interface "$IF" -i "$IA" --stats-json "$W/f.json" \
		--duration $((n / pps + 4)) "$@" >"$W/f.out" 2>"$W/f.err" &
	FP=$!
	for _ in $(seq 400); do grep -q "listening on" "$W/f.err" && break; sleep 0.05; done
	ip netns exec "$NC" "$G/replay" -q -i "$IC" --pps "$pps" "$W/t.pcap"
	wait "$FP" || true
	FP=""
}
jget() { grep -o "\"$2\":[0-9]*" "$1" | head -n1 | cut -d: -f2; }
ir() { sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/tool.out"; }
pstat() { awk -F, -v e="$1" '$3 ~ e { print $1; exit }' "$W/tool.out"; }

printf "%-6s %-28s %10s %10s %12s %10s %10s %s\n" case build Ir/frame sys/frame "CPU us/frame" cs/frame sent "kernel/queue drops"
for c in $CASES; do
	args=()
	[ "$c" = delay ] && args=(--delay 10ms --timer sleep)
	for b in "$@"; do
		fwd "$b" "$N" "$RATE" callgrind "${args[@]}"
		one=$(ir)
		fwd "$b" $((3 * N)) "$RATE" callgrind "${args[@]}"
		three=$(ir)
		fwd "$b" $((FAST * SECS)) "$FAST" perf "${args[@]}"
		sent=$(jget "$W/f.json" packets_sent)
		read_=$(jget "$W/f.json" packets_read)
		printf "%-6s %-28s %10s %10s %12s %10s %10s %s\n" "$c" "$b" \
			"$(echo "scale=1; ($three - $one) / (2 * $N)" | bc)" \
			"$(echo "scale=2; $(pstat raw_syscalls) / $read_" | bc)" \
			"$(echo "scale=2; $(pstat task-clock) * 1000 / $read_" | bc)" \
			"$(echo "scale=3; $(pstat context-switches) / $read_" | bc)" \
			"$sent/$((FAST * SECS))" \
			"$(jget "$W/f.json" kernel_dropped)/$(jget "$W/f.json" packets_impair_queue_dropped || echo 0)"
	done
done
