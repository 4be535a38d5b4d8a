#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# User-space instructions per packet of the whole dry-run pipeline (reader,
# link-type conversion, edit chain, loop, file writer), counted by callgrind,
# which is deterministic and unaffected by other load on the machine: the
# difference between a run of N and one of 3N packets, divided by 2N, so that
# start-up does not count.  Compares two builds in the same run (the anchor
# first), so a change's cost per packet is read as a difference of the columns.
#
# Usage: scripts/bench/instr.sh [OLD_BUILD_DIR] NEW_BUILD_DIR
#   e.g. scripts/bench/instr.sh ../base/build build
# Cases: file (classic pcap, 64 B and 1514 B), a MAC rewrite, raw-IP input
# converted to Ethernet, a pcapng input, and standard input (a pipe).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 1 ]; then builds=("$1"); else builds=("$@"); fi
N=${N:-20000}
W=$(mktemp -d /tmp/bench-instr.XXXXXX)
trap 'rm -rf "$W"' EXIT
G=${builds[-1]}

"$G/gentrace" udp -o "$W/u64.pcap" --count "$N" --size 64 --gap-us 10 >/dev/null
"$G/gentrace" udp -o "$W/u64x3.pcap" --count $((3 * N)) --size 64 --gap-us 10 >/dev/null
"$G/gentrace" udp -o "$W/u1514.pcap" --count "$N" --size 1514 --gap-us 10 >/dev/null
"$G/reformat" "$W/u64.pcap" "$W/raw.pcap" pcap-raw >/dev/null
"$G/reformat" "$W/u64.pcap" "$W/u64.pcapng" ng-usec >/dev/null

# ir BUILD ARGS...: total instructions of one run
ir() {
	local b=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$b/replay" -q "$@" \
		>/dev/null 2>"$W/cg.err" </dev/null || { cat "$W/cg.err" >&2; return 1; }
	sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out"
}
# per_pkt BUILD ARGS...: (Ir(--loop 3) - Ir(--loop 1)) / 2N
per_pkt() {
	local b=$1
	shift
	local one three
	one=$(ir "$b" "$@")
	three=$(ir "$b" --loop 3 "$@")
	echo "scale=1; ($three - $one) / (2 * $N)" | bc
}
# per_pkt_pipe BUILD ARGS...: the same from standard input (no loop over a pipe)
per_pkt_pipe() {
	local b=$1
	shift
	local one three
	one=$(valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$b/replay" -q "$@" - \
		<"$W/u64.pcap" >/dev/null 2>"$W/cg.err"; sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out")
	three=$(valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$b/replay" -q "$@" - \
		<"$W/u64x3.pcap" >/dev/null 2>"$W/cg.err"; sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out")
	echo "scale=1; ($three - $one) / (2 * $N)" | bc
}

printf "%-34s" "Ir/packet (callgrind)"
for b in "${builds[@]}"; do printf " %14s" "$(basename "$(dirname "$(realpath "$b")")")/$(basename "$b")"; done
echo
row() { # NAME FUNC ARGS...
	local name=$1 fn=$2
	shift 2
	printf "%-34s" "$name"
	for b in "${builds[@]}"; do printf " %14s" "$($fn "$b" "$@")"; done
	echo
}
row "pcap 64 B, -t -w /dev/null" per_pkt -t -w /dev/null "$W/u64.pcap"
row "pcap 1514 B" per_pkt -t -w /dev/null "$W/u1514.pcap"
row "pcap 64 B, --dmac" per_pkt -t -w /dev/null --dmac 02:00:00:00:00:09 "$W/u64.pcap"
row "raw IP -> Ethernet" per_pkt -t -w /dev/null "$W/raw.pcap"
row "pcapng 64 B" per_pkt -t -w /dev/null "$W/u64.pcapng"
row "stdin (pipe) 64 B" per_pkt_pipe -t -w /dev/null
