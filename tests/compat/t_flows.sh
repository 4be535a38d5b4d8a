#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Flow statistics: replay's "Flows:" line equals tcpreplay 4.6's on every
# bundled trace and on flows/edge.pcap (frames at the edges of its flow
# definition, made by flows/craft.py), with and without --flow-expiry and
# --loop; --no-flow-stats prints none.  The expected lines
# (flows/tcpreplay46.tsv) and each edge frame's kind (flows/frames.tcpreplay46.txt)
# were recorded from the tcpreplay 4.6.0-beta2 binary; with it at hand
# ($ANCHOR_BIN/tcpreplay; unset, skipped with a note) they are recorded again
# and must not have changed.  The fps figure is a rate and is left out of the
# comparison (its format is checked).
set -euo pipefail
: "${REPLAY:?}" "${TRACES:?}"
here=$(cd "$(dirname "$0")" && pwd)
ANCHOR_BIN=${ANCHOR_BIN:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
anchor=
if [ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcpreplay" ] && "$ANCHOR_BIN/tcpreplay" --version >/dev/null 2>&1; then
	anchor=$ANCHOR_BIN/tcpreplay
else
	echo "note: no tcpreplay 4.6 in \$ANCHOR_BIN ('$ANCHOR_BIN'): compared with the recorded lines only"
fi
command -v python3 >/dev/null || { [ "${CI:-}" = true ] && die "python3 is missing"; echo "SKIP: python3 missing"; exit 77; }

# flows TOOL TRACE OPTIONS...: the tool's Flows: line without its rate, or "none".
flows() {
	local tool=$1 trace=$2 line
	shift 2
	line=$("$tool" -w "$WORK/out.pcap" "$@" -t "$trace" 2>/dev/null | grep '^Flows' || true)
	if [ -n "$line" ]; then
		echo "$line" | grep -qE ', [0-9]+\.[0-9]{2} fps, ' || die "no fps in '$line'"
		echo "$line" | sed -E 's/, [0-9]+\.[0-9]{2} fps//'
	else
		echo none
	fi
}

path() { case $1 in traces/*) echo "$TRACES/${1#traces/}" ;; *) echo "$here/$1" ;; esac; }

n=0
while IFS=$'\t' read -r name opts want; do
	case $name in '#'*|'') continue ;; esac
	[ "$opts" = - ] && opts=
	trace=$(path "$name")
	# shellcheck disable=SC2086 # the options are words
	if [ -n "$anchor" ]; then
		now=$(flows "$anchor" "$trace" $opts)
		[ "$now" = "$want" ] || die "$name $opts: tcpreplay 4.6 prints '$now' now, not the recorded '$want'"
	fi
	# shellcheck disable=SC2086
	got=$(flows "$REPLAY" "$trace" $opts)
	[ "$got" = "$want" ] || die "$name $opts: replay prints '$got', tcpreplay 4.6 '$want'"
	n=$((n + 1))
done <"$here/flows/tcpreplay46.tsv"
[ "$n" -ge 40 ] || die "only $n cases"

# Each edge frame alone after the first one: the same kind as tcpreplay 4.6 gives it.
python3 - "$here/flows/edge.pcap" "$WORK" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
recs, off = [], 24
while off < len(d):
    cap = struct.unpack('<I', d[off + 8:off + 12])[0]
    recs.append(d[off:off + 16 + cap])
    off += 16 + cap
for i, r in enumerate(recs):
    open('%s/pair%03d.pcap' % (sys.argv[2], i + 1), 'wb').write(d[:24] + recs[0] + r)
PY
kind() { # TOOL PAIR: the second frame's kind from the pair's Flows: line
	flows "$1" "$2" | sed -nE 's/^Flows: ([0-9]+) flows, ([0-9]+) unique flow packets, ([0-9]+) unique non-flow packets$/\1 \2 \3/p' |
		{ read -r f p x; if [ "$x" = 1 ]; then echo nonip; elif [ "$p" = 1 ]; then echo invalid;
		  elif [ "$f" = 1 ]; then echo existing; else echo new; fi; }
}
m=0
while read -r num want; do
	case $num in '#'*|'') continue ;; esac
	pair=$WORK/pair$(printf %03d "$num").pcap
	[ -f "$pair" ] || die "edge.pcap has no frame $num"
	if [ -n "$anchor" ]; then
		now=$(kind "$anchor" "$pair")
		[ "$now" = "$want" ] || die "edge frame $num: tcpreplay 4.6 says $now now, not the recorded $want"
	fi
	got=$(kind "$REPLAY" "$pair")
	[ "$got" = "$want" ] || die "edge frame $num: replay counts it $got, tcpreplay 4.6 $want"
	m=$((m + 1))
done <"$here/flows/frames.tcpreplay46.txt"
[ "$m" = "$(ls "$WORK"/pair*.pcap | wc -l)" ] || die "$m frames checked, edge.pcap has $(ls "$WORK"/pair*.pcap | wc -l)"

# --stats-json carries the same counts.
"$REPLAY" -q -w "$WORK/out.pcap" --flow-expiry 2 --stats-json "$WORK/s.json" -t "$here/flows/edge.pcap"
python3 - "$WORK/s.json" "$(grep -P '^flows/edge.pcap\t--flow-expiry 2\t' "$here/flows/tcpreplay46.tsv" | cut -f3)" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))['flows']
m = re.match(r'Flows: (\d+) flows, (\d+) unique, (\d+) expired, (\d+) unique flow packets, (\d+) unique non-flow', sys.argv[2])
want = dict(zip(('flows', 'unique', 'expired', 'flow_packets', 'non_flow_packets'), map(int, m.groups())))
got = {k: j[k] for k in want}
assert got == want, (got, want)
assert j['expiry_s'] == 2 and j['invalid_packets'] > 0 and j['untracked_packets'] == 0, j
PY
"$REPLAY" -q -w "$WORK/out.pcap" --no-flow-stats --stats-json "$WORK/n.json" -t "$here/flows/edge.pcap"
! grep -q '"flows"' "$WORK/n.json" || die "--no-flow-stats: flows in the JSON"
echo "PASS: $n Flows: lines and $m edge frames as tcpreplay 4.6 counts them${anchor:+ (checked against the anchor)}"
