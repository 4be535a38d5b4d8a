#!/bin/bash
# --split classifies every packet of every bundled trace as tcpprep 4.6 does,
# in every mode of modes.txt: against the sides tcpprep wrote into its cache
# files (checked in as tcpprep-4.6.txt, so no tcpprep is needed here), and,
# when the tcpprep 4.6 binary is given ($TCPPREP, else $ANCHOR_BIN/tcpprep;
# neither set, skipped with a note), against a live run of it too.
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
		elif ! grep -q "valid list of servers" "$tmp/err"; then
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
	if [[ $got != "$sides" ]]; then
		diffs=$({ cmp -l <(printf %s "$got") <(printf %s "$sides") || true; } | awk '{ print $1 }' | paste -sd' ')
	fi
	if [[ $diffs != "${known["$trace $mode"]:-}" ]]; then
		echo "FAIL $trace $mode: packets differing from tcpprep 4.6: '${diffs}' (expected '${known["$trace $mode"]:-}')"
		fails=$((fails + 1))
	fi
done <"$expected"
[[ $checked -gt 0 ]] || { echo "FAIL: no expectations read from $expected"; exit 1; }

# replay --info --split / --cachefile: the per-side counts are tcpprep's.
if [[ -n ${REPLAY:-} ]]; then
	# side_counts TRACE MODE: "N1 N2" from the expectations.
	side_counts() {
		local s
		s=$(awk -v t="$1" -v m="$2" '$1 == t && $2 == m { print $3 }' "$expected")
		[[ -n $s ]] || { echo "FAIL: no expectation for $1 $2" >&2; return 1; }
		echo "$(tr -cd 1 <<<"$s" | wc -c) $(tr -cd 2 <<<"$s" | wc -c)"
	}
	# info_counts ARGS...: "N1 N2" from replay --info's split lines.
	info_counts() {
		"$REPLAY" --info "$@" | awk '$1 == "intf1:" { a = $2 } $1 == "intf2:" { b = $2 } END { print a, b }'
	}
	for spec in "http.pcap client" "mixed.pcap port" "vlan.pcap cidr:192.0.2.0/24" "icmp-flood.pcap router" \
		"http6.pcap mac:02:00:00:00:01:0a"; do
		set -- $spec
		want=$(side_counts "$1" "$2") got=$(info_counts --split "$2" "$traces/$1")
		if [[ $want != "$got" ]]; then
			echo "FAIL replay --info --split $2 $1: intf1/intf2 '$got', tcpprep '$want'"
			fails=$((fails + 1))
		fi
	done
	# tcpprep's own cache file (made by tcpprep 4.6 -a client from dns.pcap, a fuzz seed).
	cache=$here/../fuzz/corpus/tcpprep_cache/dns-client.cache
	want=$(side_counts dns.pcap client) got=$(info_counts -c "$cache" "$traces/dns.pcap")
	if [[ $want != "$got" ]]; then
		echo "FAIL replay --info -c dns-client.cache: '$got', tcpprep '$want'"
		fails=$((fails + 1))
	fi
	# A cache of another trace: refused, exit 1, both counts named; not a cache: refused.
	rc=0
	"$REPLAY" --info -c "$cache" "$traces/http.pcap" >/dev/null 2>"$tmp/err" || rc=$?
	if [[ $rc -ne 1 ]] || ! grep -q "describes 8 packets, the trace has 40" "$tmp/err"; then
		echo "FAIL: a foreign cache: exit $rc, '$(cat "$tmp/err")'"
		fails=$((fails + 1))
	fi
	rc=0
	"$REPLAY" --info -c "$traces/dns.pcap" "$traces/dns.pcap" >/dev/null 2>"$tmp/err" || rc=$?
	if [[ $rc -ne 1 ]] || ! grep -q "not a tcpprep cache file" "$tmp/err"; then
		echo "FAIL: a trace given as the cache: exit $rc, '$(cat "$tmp/err")'"
		fails=$((fails + 1))
	fi
	# Without -I (or --info) there is no second interface: a usage error, not a silent one-port run.
	rc=0
	"$REPLAY" --split client -w "$tmp/out.pcap" "$traces/dns.pcap" >/dev/null 2>&1 || rc=$?
	if [[ $rc -ne 2 || -e $tmp/out.pcap ]]; then
		echo "FAIL: --split without -I or --info: exit $rc"
		fails=$((fails + 1))
	fi
	echo "replay --info --split/--cachefile checked"
fi
echo "checked $checked trace/mode pairs against $expected"

# The live comparison: the checked-in file must be what this tcpprep writes now.
TCPPREP=${TCPPREP:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpprep}}
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
	echo "note: no tcpprep 4.6 (set TCPPREP or ANCHOR_BIN): compared with the checked-in expectations only"
fi
[[ $fails -eq 0 ]]
