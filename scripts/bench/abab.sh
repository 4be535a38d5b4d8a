#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Alternating top-speed runs of a few senders, one after another, REPS times
# (A B C A B C ...), over a one-queue veth pair in a network namespace this
# script creates and removes; the sender pinned to CPU $SENDER_CPU.  For an
# A/B of two builds, or of replay against tcpreplay 4.6, where a difference of
# a few percent has to stand out of the machine's drift (BENCHMARKS.md, "Frames
# in place from the preload").
#
#   sudo scripts/bench/abab.sh TRACE... 
#   TOOLS="default K oldK t46" REPS=5 OLD=/path/to/old/build/replay LOOP=4
#   REPLAY=/path/to/build/replay (default build/replay)
#
# Tools: default (replay -t), K (replay -t -K --method xdp), xdp (replay -t
# --method xdp), olddefault / oldK / oldxdp (the same with $OLD), t46 (tcpreplay 4.6 -t -K
# --xdp --xdp-batch-size 64; $TCPREPLAY46, else $ANCHOR_BIN/tcpreplay; neither
# set, skipped with a note), t46s (the same without -K).  LOOP passes over
# the trace per run (replay --loop / tcpreplay --loop).
# Per run: self (the tool's own pps), wall (frames / the command's wall time)
# and far (frames the far side counted minus frames sent: 0, or a few the
# kernel's own IPv6 traffic adds); then per trace and tool the median of self
# with every run's value.  Every run holds /tmp/replay-bench.lock.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
REPLAY=${REPLAY:-$PWD/build/replay}
OLD=${OLD:-}
T46=${TCPREPLAY46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpreplay}}
TOOLS=${TOOLS:-"default K t46"}
if [ ! -x "$T46" ] && [[ " $TOOLS " == *" t46"* ]]; then
	echo "abab.sh: note: no tcpreplay 4.6 at '$T46' (set ANCHOR_BIN or TCPREPLAY46): t46 and t46s skipped" >&2
	TOOLS=$(for t in $TOOLS; do [[ $t == t46* ]] || printf '%s ' "$t"; done)
fi
REPS=${REPS:-5}
LOOP=${LOOP:-1}
SENDER_CPU=${SENDER_CPU:-0}
NS=abab$$
IA=aba$$
IB=abb$$
[ $# -gt 0 ] || { sed -n '3,22p' "$0" >&2; exit 2; }

cleanup() { ip netns del "$NS" 2>/dev/null || true; ip link del "$IA" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$NS"
ip link add "$IA" type veth peer name "$IB" netns "$NS"
ip link set "$IA" up
ip -n "$NS" link set "$IB" up
links_up - "$IA" "$NS" "$IB"

cmd_for() {
	local tool=$1 tr=$2 l=""
	[ "$LOOP" = 1 ] || l="--loop $LOOP"
	case $tool in
	default) echo "$REPLAY -t $l -i $IA $tr" ;;
	K) echo "$REPLAY -t -K $l --method xdp -i $IA $tr" ;;
	xdp) echo "$REPLAY -t $l --method xdp -i $IA $tr" ;;
	olddefault) echo "${OLD:?OLD=build/replay of the other build} -t $l -i $IA $tr" ;;
	oldK) echo "${OLD:?OLD=build/replay of the other build} -t -K $l --method xdp -i $IA $tr" ;;
	oldxdp) echo "${OLD:?OLD=build/replay of the other build} -t $l --method xdp -i $IA $tr" ;;
	t46) echo "$T46 -q -t -K $l --xdp --xdp-batch-size 64 -i $IA $tr" ;;
	t46s) echo "$T46 -q -t $l --xdp --xdp-batch-size 64 -i $IA $tr" ;;
	*) echo "abab.sh: unknown tool $tool" >&2; exit 2 ;;
	esac
}

rx() { ip netns exec "$NS" cat "/sys/class/net/$IB/statistics/rx_packets"; }

RES=$(mktemp)
for tr in "$@"; do
	for rep in $(seq "$REPS"); do
		for tool in $TOOLS; do
			cmd=$(cmd_for "$tool" "$tr")
			exec 9>/tmp/replay-bench.lock
			flock 9
			b=$(rx)
			s=$(date +%s%N)
			# shellcheck disable=SC2086 # the command line is words
			out=$(taskset -c "$SENDER_CPU" $cmd 2>&1) || { echo "$tool: $out" >&2; exit 1; }
			e=$(date +%s%N)
			a=$(rx)
			flock -u 9
			n=$(echo "$out" | sed -n 's/.*Actual: \([0-9]*\) packets.*/\1/p' | head -n1)
			self=$(echo "$out" | sed -n 's/.*Mbps, \([0-9.]*\) pps.*/\1/p' | head -n1)
			printf '%s\t%s\t%s\t%.0f\t%d\t%d\n' "$(basename "$tr")" "$tool" "$rep" "$self" \
				$((n * 1000000000 / (e - s))) $((a - b - n)) | tee -a "$RES"
		done
	done
done
echo "# trace tool: self pps median (every run); far - sent per run"
sort -k1,1 -k2,2 -k3,3n "$RES" | awk -F'\t' '
	function flush() {
		if (!n) return
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%s %s: %.0f (%s) far-sent %s\n", key1, key2, m, runs, far
		n = 0; runs = ""; far = ""
	}
	$1 != key1 || $2 != key2 { flush(); key1 = $1; key2 = $2 }
	{ v[++n] = $4; runs = runs (runs ? " " : "") $4; far = far (far ? " " : "") $6 }
	END { flush() }'
rm -f "$RES"
