#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# The Python bindings against the program: the same top-speed replay of one
# trace over a veth pair (namespaces this script creates), run in turn each
# round, REPS rounds:
#   cli        replay -t -i IF TRACE
#   python     replay.Replay(TRACE, interface=IF, topspeed=True).run()
#   progress   the same with a progress callback every 0.1 s
# Per row: the send phase's rate (--stats-json pps, the same figure for all
# three) and the wall time of the whole command (interpreter, ctypes and
# library load included), medians with every round's value.
#
#   sudo scripts/bench/python.sh [BUILD_DIR]     (default: build)
#   REPS=5 FRAMES=1000000 SIZE=64
#
# Holds /tmp/replay-bench.lock (run alone: no build or test beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BUILD=${1:-build}
ROOT=$PWD
REPLAY=$ROOT/$BUILD/replay
LIB=$ROOT/$BUILD/src/lib/libreplay.so.0
REPS=${REPS:-5}
FRAMES=${FRAMES:-1000000}
SIZE=${SIZE:-64}
NS_A=rbp-a.$$ NS_B=rbp-b.$$
PY=/usr/bin/python3

[ "$(id -u)" = 0 ] || { echo "python: needs root (network namespaces)" >&2; exit 1; }
[ -x "$REPLAY" ] && [ -e "$LIB" ] || { echo "python: build first (ninja -C $BUILD)" >&2; exit 1; }
exec 9>/tmp/replay-bench.lock
flock 9

WORK=$(mktemp -d /tmp/replay-bench-python.XXXXXX)
cleanup() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
"$ROOT/$BUILD/gentrace" udp -o "$WORK/t.pcap" --count "$FRAMES" --size "$SIZE" --gap-ns 1000 >/dev/null
veth_pair "$NS_A" va "$NS_B" vb

cat >"$WORK/run.py" <<'PYEOF'
import sys, time
sys.path.insert(0, sys.argv[1])
import replay
n = 0
def tick(st):
    global n
    n += 1
r = replay.Replay(sys.argv[2], interface="va", topspeed=True)
st = r.run(progress=tick, interval=0.1) if sys.argv[3] == "progress" else r.run()
print(st.json["pps"], n)
PYEOF

now() { date +%s%N; }
declare -A PPS WALL
one() {
	local row=$1 t0 t1 pps
	t0=$(now)
	case $row in
	cli)
		ip netns exec "$NS_A" "$REPLAY" -t -q -i va --stats-json "$WORK/s.json" "$WORK/t.pcap"
		pps=$(grep -o '"pps":[0-9.]*' "$WORK/s.json" | head -n1 | cut -d: -f2)
		;;
	*)
		pps=$(ip netns exec "$NS_A" env LIBREPLAY="$LIB" "$PY" "$WORK/run.py" "$ROOT/python" "$WORK/t.pcap" "$row" |
			awk '{ print $1 }')
		;;
	esac
	t1=$(now)
	PPS[$row]+="${pps%.*} "
	WALL[$row]+="$(((t1 - t0) / 1000000)) "
}
for _ in $(seq "$REPS"); do
	for row in cli python progress; do one "$row"; done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '# replay %s, %s frames of %s B, %s rounds, %s\n' "$("$REPLAY" --version | awk '{ print $2; exit }')" \
	"$FRAMES" "$SIZE" "$REPS" "$(date -u +%FT%TZ)"
printf '%-9s %10s %8s  %s | %s\n' row pps wall-ms "pps each round" "wall ms each round"
for row in cli python progress; do
	printf '%-9s %10s %8s  %s | %s\n' "$row" "$(echo "${PPS[$row]}" | median)" "$(echo "${WALL[$row]}" | median)" \
		"${PPS[$row]}" "${WALL[$row]}"
done
