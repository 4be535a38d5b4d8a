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
# THREADS=N (N > 1): --threads N --cpu 0-(N-1) over a veth of N queues a side,
# callgrind counting each thread apart (--separate-threads=yes): the
# instructions column is then "all threads (thread 0 thread 1 ...)", each per
# packet of the trace -- every thread reads every packet, sending its own
# flows' and skipping the others' (src/run/loop.c in_shard()), so a thread's
# figure is its share of sending plus the skip path.  Each pass also reads a
# second file of 64 frames, one of each of 64 flows, so that no thread has a
# pass with nothing to send (which ends its run, src/run/pass.c pass_end()):
# with FLOWS=1 one thread sends nearly every packet and each other thread's
# figure is the skip path's cost alone.
#
# Usage: sudo scripts/bench/instr-tx.sh [OLD_BUILD_DIR] NEW_BUILD_DIR
#   N=20000 METHODS="xdp mmsg" SIZES="64 1514" FLOWS=1 THREADS=1
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 1 ]; then builds=("$1"); else builds=("$@"); fi
N=${N:-20000}
METHODS=${METHODS:-"xdp mmsg"}
SIZES=${SIZES:-"64 1514"}
FLOWS=${FLOWS:-1} # the trace's flows, interleaved (gentrace --flows): 1 keeps the flow table on its last-slot path
THREADS=${THREADS:-1}
G=${builds[-1]}
THR=() CG=()
if [ "$THREADS" -gt 1 ]; then
	VETH_QUEUES=$THREADS
	THR=(--threads "$THREADS" --cpu "0-$((THREADS - 1))")
	CG=(--separate-threads=yes)
fi
# Namespaces, veth, teardown: the integration tests' harness (tests/integration/lib.sh).
REPLAY=$G/replay REPLAY_RX=$G/replay-rx TRACES=$PWD/traces
. tests/integration/lib.sh
require_root
init_ns
W=$WORK NA=$NS_A IA=$IF_A
P=$N # packets a pass
for s in $SIZES; do
	"$G/gentrace" udp -o "$W/u$s.pcap" --count "$N" --size "$s" --gap-us 10 --flows "$FLOWS" >/dev/null
	if [ "$THREADS" -gt 1 ]; then
		"$G/gentrace" udp -o "$W/f$s.pcap" --count 64 --size "$s" --gap-us 10 --flows 64 >/dev/null
		P=$((N + 64))
	fi
done

# ir BUILD ARGS...: total user-space instructions of one run; with THREADS > 1,
# the total and then each thread's (callgrind's files cg.out-01, -02, ...)
ir() {
	local b=$1 f tot=0 each=()
	shift
	rm -f "$W"/cg.out*
	ip netns exec "$NA" valgrind --tool=callgrind "${CG[@]}" --callgrind-out-file="$W/cg.out" \
		"$b/replay" -q -i "$IA" -t "${THR[@]}" "$@" >/dev/null 2>"$W/cg.err" </dev/null ||
		{ cat "$W/cg.err" >&2; return 1; }
	if [ "$THREADS" -le 1 ]; then
		sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out"
		return
	fi
	for f in "$W"/cg.out-*; do
		each+=("$(sed -n 's/^\(summary\|totals\): \([0-9]*\).*/\2/p' "$f" | head -1)")
		tot=$((tot + each[-1]))
	done
	echo "$tot ${each[*]}"
}
# sc BUILD ARGS...: syscalls of one run
sc() {
	local b=$1
	shift
	ip netns exec "$NA" strace -c -f -o "$W/sc.out" "$b/replay" -q -i "$IA" -t "${THR[@]}" "$@" \
		>/dev/null 2>"$W/sc.err" </dev/null || { cat "$W/sc.err" >&2; return 1; }
	awk '$NF == "total" { print $4 }' "$W/sc.out"
}
# per_pkt FUNC BUILD ARGS...: (FUNC(--loop 3) - FUNC(--loop 1)) / 2P, field by field
per_pkt() {
	local fn=$1 b=$2 one three i out=()
	shift 2
	read -ra one <<<"$($fn "$b" "$@")"
	read -ra three <<<"$($fn "$b" --loop 3 "$@")"
	for i in "${!one[@]}"; do
		out+=("$(echo "scale=4; (${three[i]} - ${one[i]}) / (2 * $P)" | bc)")
	done
	if [ ${#out[@]} -gt 1 ]; then echo "${out[0]} (${out[*]:1})"; else echo "${out[0]}"; fi
}

printf "%-30s" "per packet, top speed"
for b in "${builds[@]}"; do printf " %16s" "$(basename "$(dirname "$(realpath "$b")")")/$(basename "$b")"; done
echo
for m in $METHODS; do
	for s in $SIZES; do
		for what in ir sc; do
			printf "%-30s" "$m $s B, $([ $what = ir ] && echo instructions || echo syscalls)"
			for b in "${builds[@]}"; do
				EXTRA=() # the files after the trace
				if [ "$THREADS" -gt 1 ]; then EXTRA=("$W/f$s.pcap"); fi
				printf " %26s" "$(per_pkt $what "$b" --method "$m" "$W/u$s.pcap" "${EXTRA[@]}")"
			done
			echo
		done
	done
done
