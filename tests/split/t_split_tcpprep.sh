#!/bin/bash
# --split classifies every packet of every bundled trace as tcpprep 4.6 does,
# in every mode of modes.txt: against the sides tcpprep wrote into its cache
# files (checked in as tcpprep-4.6.txt, so no tcpprep is needed here), and,
# when the tcpprep 4.6 binary is present (TCPPREP, or the anchor path beside
# the repository), against a live run of it too.
set -euo pipefail
SPLITDUMP=${SPLITDUMP:?}
here=$(cd "$(dirname "$0")" && pwd)
traces=$here/../../traces
expected=$here/tcpprep-4.6.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Where replay's own "first" (streaming: an address first seen as a source is a
# client) differs from tcpprep -a first, packet numbers from 1.  tcpprep keeps
# every IPv6 address in one tree node (its IPv6 comparison compares an address
# with itself), so the first IPv6 source's role goes to every IPv6 packet;
# replay keeps IPv6 addresses apart.  Anything else differing is a failure.
declare -A known=(["vlan.pcap first"]="16 37")

fails=0 checked=0
while read -r trace mode sides; do
	[[ $trace == \#* ]] && continue
	checked=$((checked + 1))
	if [[ $sides == refused ]]; then
		if "$SPLITDUMP" "$mode" "$traces/$trace" >/dev/null 2>"$tmp/err"; then
			echo "FAIL $trace $mode: tcpprep refuses this trace, splitdump classified it"
			fails=$((fails + 1))
		elif ! grep -q "router" "$tmp/err"; then
			echo "FAIL $trace $mode: refused for another reason: $(cat "$tmp/err")"
			fails=$((fails + 1))
		fi
		continue
	fi
	if ! got=$("$SPLITDUMP" "$mode" "$traces/$trace" 2>"$tmp/err" | tr -d '\n'); then
		echo "FAIL $trace $mode: $(cat "$tmp/err")"
		fails=$((fails + 1))
		continue
	fi
	if [[ ${#got} -ne ${#sides} ]]; then
		echo "FAIL $trace $mode: ${#got} packets classified, tcpprep ${#sides}"
		fails=$((fails + 1))
		continue
	fi
	diffs=""
	for ((i = 0; i < ${#sides}; i++)); do
		[[ ${got:i:1} == "${sides:i:1}" ]] || diffs+="${diffs:+ }$((i + 1))"
	done
	if [[ $diffs != "${known["$trace $mode"]:-}" ]]; then
		echo "FAIL $trace $mode: packets differing from tcpprep 4.6: '${diffs}' (expected '${known["$trace $mode"]:-}')"
		fails=$((fails + 1))
	fi
done <"$expected"
[[ $checked -gt 0 ]] || { echo "FAIL: no expectations read from $expected"; exit 1; }
echo "checked $checked trace/mode pairs against $expected"

# The live comparison: the checked-in file must be what this tcpprep writes now.
# Beside the repository (../shared/anchors), or beside a worktree of it one level deeper.
if [[ -z ${TCPPREP:-} ]]; then
	for d in "$here/../../../shared" "$here/../../../../shared"; do
		[[ -x $d/anchors/tcpreplay-4.6.0-beta2/bin/tcpprep ]] &&
			TCPPREP=$d/anchors/tcpreplay-4.6.0-beta2/bin/tcpprep && break
	done
fi
TCPPREP=${TCPPREP:-}
if [[ -x $TCPPREP ]] && "$TCPPREP" --version >/dev/null 2>&1; then
	"$here/gen-expected.sh" "$TCPPREP" "$SPLITDUMP" >"$tmp/live.txt"
	if ! diff <(grep -v '^#' "$expected") <(grep -v '^#' "$tmp/live.txt") >"$tmp/diff"; then
		echo "FAIL: tcpprep ($TCPPREP) now writes other sides than $expected:"
		head -20 "$tmp/diff"
		fails=$((fails + 1))
	else
		echo "live tcpprep 4.6 ($TCPPREP) agrees with $expected"
	fi
else
	echo "tcpprep 4.6 not present: compared with the checked-in expectations only"
fi
[[ $fails -eq 0 ]]
