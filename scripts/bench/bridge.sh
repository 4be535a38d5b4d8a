#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# replay bridge at the thesis's matrix, through replay-bridge-check
# (scripts/bridge-check.sh): 64-byte UDP at RATES x DELAYS, one direction
# (A->B) and both at once, REPS rounds interleaved; then, with ANCHOR, the
# same rates through tcpbridge (no impairment) as the forwarding-cost
# reference.  The applied delay is the far side's arrival - the generator's
# send - the unimpaired bridge's median (the check's baseline, measured in
# each case); the loss is split by the bridge's own counters.
#
# The figures to beat (A. Keller, "Trace Control for Netem", ETH Zurich
# SA-2006-15, 2006, tables 5.1, 5.2, A.1-A.3; impair.sh has them all): at 90k
# pps with 10 ms, STD 0.9-1.0 ms and 16-97 % loss; at 80k pps with 10 ms,
# STD 0.063-0.162 ms and 1.8-3.7e-5 loss.  The goal (the bridge's): at 90k
# pps with 10 ms in both directions at once, std <= 0.164 ms, p99 error
# <= 0.25 ms, loss <= 3e-5.
#
#   sudo [RATES="10000 80000 90000"] [DELAYS="1 10"] [SECS=10] [REPS=1] [LIMIT=1000] \
#        [SIDES="one both"] [BRIDGE_ARGS="--poll busy"] [ANCHOR=PATH-TO-tcpbridge] scripts/bench/bridge.sh
#
# Prints a markdown table, one row per case and direction (with REPS > 1 the
# median and range of each case's p99 and std over the rounds follow).  Every
# case runs under the bench lock (/tmp/replay-bench.lock).  Timing figures mean
# something only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
RATES=${RATES:-10000 80000 90000}
DELAYS=${DELAYS:-1 10}
SECS=${SECS:-10}
REPS=${REPS:-1}
LIMIT=${LIMIT:-1000}
SIDES=${SIDES:-one both}
BRIDGE_ARGS=${BRIDGE_ARGS:-}
ANCHOR=${ANCHOR:-}
num() { [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "bridge: $1=$2: not a whole number above 0" >&2; exit 2; }; }
for r in $RATES; do num RATES "$r"; done
for d in $DELAYS; do num DELAYS "$d"; done
num SECS "$SECS"
num REPS "$REPS"
num LIMIT "$LIMIT"
for s in $SIDES; do case $s in one | both) ;; *) echo "bridge: SIDES=$SIDES: one, both" >&2; exit 2 ;; esac; done
[ -z "$ANCHOR" ] || [ -x "$ANCHOR" ] || { echo "bridge: ANCHOR=$ANCHOR: not an executable" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bridge: needs root" >&2; exit 1; }
[ -x build/replay ] && [ -x build/replay-rx ] && [ -x build/gentrace ] || { echo "bridge: build first" >&2; exit 1; }
export REPLAY=$PWD/build/replay REPLAY_RX=$PWD/build/replay-rx GENTRACE=$PWD/build/gentrace

WORK=$(mktemp -d /tmp/bridge-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ROWS="$WORK/rows"
: >"$ROWS"

# one NAME ARGS...: a case through the check; its JSON's rows appended to ROWS as
# "name dir mode sent received lost capture queue impair other base_p50 p50 p99 p999 std max late_p99 base_std gen_pps".
one() {
	local name=$1 rc=0
	shift
	flock /tmp/replay-bench.lock scripts/bridge-check.sh -q --pps "$rate" --seconds "$SECS" \
		--json "$WORK/c.json" "$@" >"$WORK/c.out" 2>"$WORK/c.err" || rc=$?
	if [ ! -s "$WORK/c.json" ]; then
		echo "bridge: $name failed ($rc): $(head -n1 "$WORK/c.err")" >&2
		return 0
	fi
	# One line per direction, from the check's JSON.
	sed 's/},{"direction"/}\n{"direction"/g' "$WORK/c.json" | grep '"direction":"' | while read -r line; do
		local j="$WORK/row.json"
		echo "$line" >"$j"
		# g KEY, a KEY: the row's KEY, the applied delay's KEY; "-" for none (null).
		g() { local v; v=$(grep -o "\"$1\":[-0-9][-0-9.e+]*" "$j" | head -n1 | cut -d: -f2 || true); echo "${v:--}"; }
		ad=$(grep -o '"applied_delay_ns":{[^}]*}' "$j" || true)
		bl=$(grep -o '"bridge_late_ns":{[^}]*}' "$j" || true)
		bs=$(grep -o '"baseline":{[^}]*}' "$j" || true)
		gp=$(grep -o '"generator":{[^}]*}' "$j" || true)
		a() { local v; v=$(echo "${2:-$ad}" | grep -o "\"$1\":[-0-9][-0-9.e+]*" | cut -d: -f2 || true); echo "${v:--}"; }
		echo "$name $(grep -o '"direction":"[a-z]*"' "$j" | cut -d'"' -f4) $(grep -o '"mode":"[a-z]*"' "$j" | cut -d'"' -f4)" \
			"$(g sent) $(g received) $(g lost)" \
			"$(g capture) $(g queue) $(g impairment) $(g other)" \
			"$(g latency_p50_ns) $(a p50) $(a p99) $(a p999) $(a stddev) $(a max) $(a p99 "${bl:-x}")" \
			"$(a latency_stddev_ns "${bs:-x}") $(a pps "${gp:-x}")" >>"$ROWS"
	done
}

for _ in $(seq "$REPS"); do
	for rate in $RATES; do
		for side in $SIDES; do
			dirs=(--direction ab)
			[ "$side" = one ] || dirs=(--both)
			for d in $DELAYS; do
				one "$rate/${d}ms/$side" "${dirs[@]}" ${BRIDGE_ARGS:+--bridge-args "$BRIDGE_ARGS"} \
					--delay "${d}ms" --impair-limit "$LIMIT"
			done
			[ -z "$ANCHOR" ] || one "$rate/tcpbridge/$side" "${dirs[@]}" --bridge-cmd "$ANCHOR"
		done
	done
done

# The table: per case and direction, each round's figures (ms), and the loss ratio.
awk -v secs="$SECS" -v limit="$LIMIT" -v reps="$REPS" '
function ms(v) { return v == "-" ? "-" : sprintf("%.3f", v / 1e6) }
BEGIN {
	printf "64-byte UDP, %d s a case, --impair-limit %d, %d round(s); applied delay = arrival - send - base p50\n\n", secs, limit, reps
	print "| case | dir | sent | received | loss | capture | queue | impair | other | base p50 ms | base std ms | p50 ms | p99 ms | p99.9 ms | std ms | max ms | bridge late p99 ms | gen pps |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
}
{
	loss = ($4 > 0 && $6 != "-") ? sprintf("%.2e", $6 / $4) : "-"
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, loss, \
		$7, $8, $9, $10, ms($11), ms($18), ms($12), ms($13), ms($14), ms($15), ms($16), ms($17), \
		$19 == "-" ? "-" : sprintf("%.0f", $19)
	k = $1 " " $2; if (!(k in p99)) order[++n] = k
	p99[k] = p99[k] " " $13; sd[k] = sd[k] " " $15; bsd[k] = bsd[k] " " $18
}
function med(s,   a, m, i, j, t) {
	m = split(s, a, " ")
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return sprintf("%s (%s..%s)", ms(a[int((m + 1) / 2)]), ms(a[1]), ms(a[m]))
}
END {
	if (reps < 2) exit
	printf "\nOver the rounds, median (min..max):\n\n| case | dir | p99 ms | std ms | base std ms |\n|---|---|---|---|---|\n"
	for (i = 1; i <= n; i++) { split(order[i], kk, " "); printf "| %s | %s | %s | %s | %s |\n", kk[1], kk[2], med(p99[order[i]]), med(sd[order[i]]), med(bsd[order[i]]) }
}' "$ROWS"
