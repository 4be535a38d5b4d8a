#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Compressed traces: what reading one costs.  One trace (FRAMES frames of
# SIZE bytes, gentrace's UDP stream) plain and compressed with gzip, zstd,
# xz and lz4 (the command-line tools, default levels), then in turn each
# round, REPS rounds:
#   read      replay --topspeed -w /dev/null FILE: the reader and the
#             decompressor alone (records/s, and MB/s of the plain trace)
#   pipe      zcat / zstdcat FILE | replay --topspeed -w /dev/null -: the
#             decompression a pipe away, as people do today
#   veth      replay --topspeed -i IF FILE over a veth pair in a network
#             namespace this script creates: the send rate (far side counted
#             by an nftables ingress counter) from the plain and the zstd file
#
#   sudo scripts/bench/compressed.sh [BUILD_DIR]    (default: build)
#   REPS=3 FRAMES=2000000 SIZE=512 OUT=/var/tmp/replay-bench-compressed
#
# Rates are frames over the wall time of the whole command (replay's start,
# the file's open and the decompressor's first block included).  Medians
# over the rounds, with every round's value.  Holds /tmp/replay-bench.lock
# (run alone: no build or test beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BUILD=${1:-build}
REPLAY=$PWD/$BUILD/replay
GENTRACE=$PWD/$BUILD/gentrace
REPS=${REPS:-3}
FRAMES=${FRAMES:-2000000}
SIZE=${SIZE:-512}
OUT=${OUT:-/var/tmp/replay-bench-compressed}
NS_A=rbc-a.$$ NS_B=rbc-b.$$

[ "$(id -u)" = 0 ] || { echo "compressed: needs root (network namespaces)" >&2; exit 1; }
[ -x "$REPLAY" ] || { echo "compressed: build first (ninja -C $BUILD)" >&2; exit 1; }
for t in gzip zstd xz lz4 nft; do
	command -v "$t" >/dev/null || { echo "compressed: $t is not installed" >&2; exit 1; }
done
exec 9>/tmp/replay-bench.lock
flock 9

cleanup() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$OUT"
}
trap cleanup EXIT
mkdir -p "$OUT"
T=$OUT/t.pcap
"$GENTRACE" udp -o "$T" --count "$FRAMES" --size "$SIZE" --gap-ns 1000 --flows 64 >/dev/null
gzip -kc "$T" >"$T.gz"
zstd -qkc "$T" >"$T.zst"
xz -kc -T1 "$T" >"$T.xz"
lz4 -qkc "$T" >"$T.lz4"
PLAIN=$(stat -c %s "$T")

veth_pair "$NS_A" va "$NS_B" vb
far_counter "$NS_B" vb
far() { far_read "$NS_B" | cut -d' ' -f1; }

now() { date +%s%N; }
# run LABEL CMD...: the command's frames/s by the wall clock, appended to LABEL's list
declare -A RES
run() {
	local label=$1 t0 t1
	shift
	t0=$(now)
	"$@" >/dev/null 2>"$OUT/err" || { echo "compressed: $label failed: $(cat "$OUT/err")" >&2; exit 1; }
	t1=$(now)
	RES[$label]+="$(( FRAMES * 1000000000 / (t1 - t0) )) "
}
runpipe() {
	local label=$1 cat=$2 file=$3 t0 t1
	t0=$(now)
	$cat "$file" | "$REPLAY" -q --topspeed -w /dev/null - >/dev/null 2>"$OUT/err" ||
		{ echo "compressed: $label failed: $(cat "$OUT/err")" >&2; exit 1; }
	t1=$(now)
	RES[$label]+="$(( FRAMES * 1000000000 / (t1 - t0) )) "
}
runveth() {
	local label=$1 file=$2 f0 f1 t0 t1
	f0=$(far)
	t0=$(now)
	ip netns exec "$NS_A" "$REPLAY" -q --topspeed -i va "$file" >/dev/null 2>"$OUT/err" ||
		{ echo "compressed: $label failed: $(cat "$OUT/err")" >&2; exit 1; }
	t1=$(now)
	sleep 0.2 # frames in B's backlog reach its ingress counter
	f1=$(far)
	[ $((f1 - f0)) -ge "$FRAMES" ] || echo "compressed: $label: far side counted $((f1 - f0)) of $FRAMES" >&2
	RES[$label]+="$(( FRAMES * 1000000000 / (t1 - t0) )) "
}

ROWS="read:plain read:gzip read:zstd read:xz read:lz4 pipe:zcat pipe:zstdcat veth:plain veth:zstd"
for _ in $(seq "$REPS"); do
	run read:plain "$REPLAY" -q --topspeed -w /dev/null "$T"
	run read:gzip "$REPLAY" -q --topspeed -w /dev/null "$T.gz"
	run read:zstd "$REPLAY" -q --topspeed -w /dev/null "$T.zst"
	run read:xz "$REPLAY" -q --topspeed -w /dev/null "$T.xz"
	run read:lz4 "$REPLAY" -q --topspeed -w /dev/null "$T.lz4"
	runpipe pipe:zcat zcat "$T.gz"
	runpipe pipe:zstdcat zstdcat "$T.zst"
	runveth veth:plain "$T"
	runveth veth:zstd "$T.zst"
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '# replay %s, %s frames of %s B (%s MB plain), %s rounds, %s\n' \
	"$("$REPLAY" --version | awk '{ print $2; exit }')" "$FRAMES" "$SIZE" "$((PLAIN / 1000000))" "$REPS" \
	"$(date -u +%FT%TZ)"
printf '# file sizes: gzip %s MB, zstd %s MB, xz %s MB, lz4 %s MB\n' \
	"$(($(stat -c %s "$T.gz") / 1000000))" "$(($(stat -c %s "$T.zst") / 1000000))" \
	"$(($(stat -c %s "$T.xz") / 1000000))" "$(($(stat -c %s "$T.lz4") / 1000000))"
printf '%-14s %12s %10s  %s\n' row frames/s MB/s rounds
for r in $ROWS; do
	m=$(echo "${RES[$r]}" | median)
	printf '%-14s %12s %10s  %s\n' "$r" "$m" "$((m * PLAIN / FRAMES / 1000000))" "${RES[$r]}"
done
