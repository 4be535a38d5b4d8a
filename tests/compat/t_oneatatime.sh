#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --oneatatime (tcpreplay's -o): before the first packet and whenever the
# last answer's count is used up, replay asks on standard input how many
# packets to send; a number (0x.. too) is that many, an empty line or 0 one.
# The frames written are those of a plain run; the end of standard input
# before the last packet is an error with nothing committed.
set -euo pipefail
: "${REPLAY:?}" "${PCAPDIFF:?}" "${TRACES:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
t=$TRACES/dns.pcap # 8 packets

"$REPLAY" -q -w "$WORK/plain.pcap" "$t"
printf '2\n\n0x3\n100\n' | "$REPLAY" -w "$WORK/one.pcap" --oneatatime "$t" >"$WORK/out" 2>"$WORK/err" ||
	die "exit $?: $(cat "$WORK/err")"
"$PCAPDIFF" "$WORK/plain.pcap" "$WORK/one.pcap" || die "other frames than a plain run"
# Asked before packets 1 (2 sent), 3 (Enter: 1), 4 (3) and 7 (the rest).
grep -o 'Next packet #[0-9]*' "$WORK/out" | tr '\n' ' ' >"$WORK/asked"
[ "$(cat "$WORK/asked")" = "Next packet #1 Next packet #3 Next packet #4 Next packet #7 " ] ||
	die "asked before: $(cat "$WORK/asked")"
grep -q "out $WORK/one.pcap.  How many packets do you wish to send? " "$WORK/out" || die "not tcpreplay's question"
grep -q '^Packets: read 8, sent 8, filtered 0, failed 0' "$WORK/out" || die "summary: $(cat "$WORK/out")"

# Input ends after 2 + 1 packets: an error, the unsent packet counted failed, no output file.
rc=0
printf '2\n\n' | "$REPLAY" -w "$WORK/cut.pcap" --oneatatime "$t" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || die "input ended: exit $rc, not 1"
grep -q '^replay: --oneatatime: standard input ended before .*dns.pcap record 4$' "$WORK/err" ||
	die "no error for the end of input: $(cat "$WORK/err")"
grep -q '^Packets: read 4, sent 3, filtered 0, failed 1' "$WORK/out" || die "summary: $(cat "$WORK/out")"
[ ! -e "$WORK/cut.pcap" ] || die "a cut-short run committed its -w output"

# Refused with a rate, and with the trace on standard input.
for args in "--topspeed" "--pps 10" "--mbps 1" "-x 2" "--maxsleep 5"; do
	rc=0
	# shellcheck disable=SC2086
	"$REPLAY" -w "$WORK/r.pcap" --oneatatime $args "$t" </dev/null 2>"$WORK/err" || rc=$?
	[ "$rc" = 2 ] && grep -q '^replay: --oneatatime excludes [^:]*: --oneatatime sends each packet when asked$' "$WORK/err" ||
		die "--oneatatime $args: exit $rc: $(cat "$WORK/err")"
done
rc=0
"$REPLAY" -w "$WORK/r.pcap" --oneatatime - <"$t" 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] && grep -q 'the trace cannot come from there too' "$WORK/err" || die "trace on stdin: exit $rc"
echo "PASS: --oneatatime asks as tcpreplay and sends the same frames"
