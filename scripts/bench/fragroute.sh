#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# What a --fragroute rule set costs per packet: replay -w and tcprewrite 4.6
# --fragroute on the same trace and rules, in turn each round, REPS rounds.
# The trace: FRAMES UDP/IPv4 frames of SIZE bytes (gentrace).  Rule sets:
#   none       replay -w / tcprewrite without --fragroute (the floor)
#   ttl        ip_ttl 60                 (one header field, no new frames)
#   frag64     ip_frag 64                (each packet into 8-byte-aligned fragments)
#   frag24rev  ip_frag 24, order reverse (many fragments, reordered)
# Per row: input packets per second by the wall clock of the whole command,
# and the frames written; medians with every round's value.  tcprewrite
# 4.6 is $ANCHOR_BIN/tcprewrite (built with fragroute); unset, its rows are
# skipped with a note.
#
#   scripts/bench/fragroute.sh [BUILD_DIR]       (default: build)
#   REPS=3 FRAMES=50000 SIZE=512 ANCHOR_BIN=...
#
# Holds /tmp/replay-bench.lock (run alone: no build or test beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
REPLAY=$PWD/$BUILD/replay
GENTRACE=$PWD/$BUILD/gentrace
REPS=${REPS:-3}
FRAMES=${FRAMES:-50000}
SIZE=${SIZE:-512}
ANCHOR=${ANCHOR_BIN:+$ANCHOR_BIN/tcprewrite}
[ -x "$REPLAY" ] || { echo "fragroute: build first (ninja -C $BUILD)" >&2; exit 1; }
if [ -z "$ANCHOR" ] || ! "$ANCHOR" --version >/dev/null 2>&1; then
	echo "# note: no tcprewrite 4.6 in \$ANCHOR_BIN ('${ANCHOR_BIN:-}'): its rows are skipped" >&2
	ANCHOR=
fi
exec 9>/tmp/replay-bench.lock
flock 9

WORK=$(mktemp -d /var/tmp/replay-bench-fragroute.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$GENTRACE" udp -o "$WORK/t.pcap" --count "$FRAMES" --size "$SIZE" >/dev/null
printf 'ip_ttl 60\n' >"$WORK/ttl.rules"
printf 'ip_frag 64\n' >"$WORK/frag64.rules"
printf 'ip_frag 24\norder reverse\n' >"$WORK/frag24rev.rules"

now() { date +%s%N; }
frames() { "$REPLAY" --info "$1" 2>/dev/null | awk '/^packets:/ { print $2; exit }'; }
declare -A RATE OUTN
one() {
	local tool=$1 set=$2 t0 t1 fr=()
	[ "$set" = none ] || fr=(--fragroute "$WORK/$set.rules")
	rm -f "$WORK/out.pcap"
	t0=$(now)
	if [ "$tool" = replay ]; then
		"$REPLAY" -q -w "$WORK/out.pcap" "${fr[@]}" "$WORK/t.pcap"
	else
		"$ANCHOR" -i "$WORK/t.pcap" -o "$WORK/out.pcap" "${fr[@]}" >/dev/null 2>&1
	fi
	t1=$(now)
	RATE[$tool/$set]+="$((FRAMES * 1000000000 / (t1 - t0))) "
	OUTN[$tool/$set]=$(frames "$WORK/out.pcap")
}
TOOLS="replay${ANCHOR:+ tcprewrite46}"
SETS="none ttl frag64 frag24rev"
for _ in $(seq "$REPS"); do
	for set in $SETS; do
		for tool in $TOOLS; do one "$tool" "$set"; done
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '# replay %s, %s UDP frames of %s B, %s rounds, %s\n' "$("$REPLAY" --version | awk '{ print $2; exit }')" \
	"$FRAMES" "$SIZE" "$REPS" "$(date -u +%FT%TZ)"
printf '%-24s %12s %10s  %s\n' row "in pkts/s" "frames out" "each round"
for set in $SETS; do
	for tool in $TOOLS; do
		printf '%-24s %12s %10s  %s\n' "$tool/$set" "$(echo "${RATE[$tool/$set]}" | median)" \
			"${OUTN[$tool/$set]}" "${RATE[$tool/$set]}"
	done
done
