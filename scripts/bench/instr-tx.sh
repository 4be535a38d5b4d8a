#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# User-space instructions and syscalls per packet of a top-speed replay over
# a veth pair (the send loop, the reader, the method's staging, its kicks and
# completion reaping), for the wire methods: callgrind's count, deterministic
# and unaffected by other load on the machine, so it can be taken on a busy
# machine where timing cannot.  As scripts/bench/instr.sh: the difference
# between a run of N and one of 3N packets (--loop 3), divided by 2N, so that
# start-up does not count.  Syscalls per packet likewise from strace -c -f
# (strace slows the sender, which makes it meet back-pressure more often: read
# it as an upper bound on the kicks per packet).  What the kernel does per
# frame (in copy mode it builds an skb per frame) is not counted here.
#
# Usage: sudo scripts/bench/instr-tx.sh [OLD_BUILD_DIR] NEW_BUILD_DIR
#   N=20000 METHODS="xdp mmsg" SIZES="64 1514"
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 1 ]; then builds=("$1"); else builds=("$@"); fi
N=${N:-20000}
METHODS=${METHODS:-"xdp mmsg"}
SIZES=${SIZES:-"64 1514"}
FLOWS=${FLOWS:-1} # the trace's flows, interleaved (gentrace --flows): 1 keeps the flow table on its last-slot path
G=${builds[-1]}
# Namespaces, veth, teardown: the integration tests' harness (tests/integration/lib.sh).
REPLAY=$G/replay REPLAY_RX=$G/replay-rx TRACES=$PWD/traces
. tests/integration/lib.sh
require_root
init_ns
W=$WORK NA=$NS_A IA=$IF_A
for s in $SIZES; do
	"$G/gentrace" udp -o "$W/u$s.pcap" --count "$N" --size "$s" --gap-us 10 --flows "$FLOWS" >/dev/null
done

# ir BUILD ARGS...: total user-space instructions of one run
ir() {
	local b=$1
	shift
	ip netns exec "$NA" valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" \
		"$b/replay" -q -i "$IA" -t "$@" >/dev/null 2>"$W/cg.err" </dev/null ||
		{ cat "$W/cg.err" >&2; return 1; }
	sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out"
}
# sc BUILD ARGS...: syscalls of one run
sc() {
	local b=$1
	shift
	ip netns exec "$NA" strace -c -f -o "$W/sc.out" "$b/replay" -q -i "$IA" -t "$@" \
		>/dev/null 2>"$W/sc.err" </dev/null || { cat "$W/sc.err" >&2; return 1; }
	awk '$NF == "total" { print $4 }' "$W/sc.out"
}
# per_pkt FUNC BUILD ARGS...: (FUNC(--loop 3) - FUNC(--loop 1)) / 2N
per_pkt() {
	local fn=$1 b=$2 one three
	shift 2
	one=$($fn "$b" "$@")
	three=$($fn "$b" --loop 3 "$@")
	echo "scale=4; ($three - $one) / (2 * $N)" | bc
}

printf "%-30s" "per packet, top speed"
for b in "${builds[@]}"; do printf " %16s" "$(basename "$(dirname "$(realpath "$b")")")/$(basename "$b")"; done
echo
for m in $METHODS; do
	for s in $SIZES; do
		for what in ir sc; do
			printf "%-30s" "$m $s B, $([ $what = ir ] && echo instructions || echo syscalls)"
			for b in "${builds[@]}"; do
				printf " %16s" "$(per_pkt $what "$b" --method "$m" "$W/u$s.pcap")"
			done
			echo
		done
	done
done
