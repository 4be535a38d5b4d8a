#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Deadlines never wrap: a value that alone is past what the run clock holds
# (int64 ns) is refused up front naming the range (exit 2); a sum of
# deadlines that gets there (loop passes, a rate of one packet in 2^40 s)
# ends the run at that packet with one line (exit 1), no -w output; the
# largest --duration runs the whole trace.  No root needed.
set -euo pipefail
: "${REPLAY:?}" "${TRACE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

# run WANT_RC PATTERN ARGS...: exit WANT_RC, stderr matching PATTERN.
run() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >out 2>err || rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $(cat err)"
	[ -z "$pat" ] || grep -qE -- "$pat" err || fail "'$*': stderr lacks /$pat/: $(cat err)"
}

run 2 "^replay: --loopdelay-ns: 18446744073709551615 is out of range \(0\.\.9223372036854775807\)$" \
	"$REPLAY" -q --loop 3 --loopdelay-ns 18446744073709551615 -w o.pcap "$TRACE"
run 2 "^replay: --duration: 18446744073 is out of range \(1\.\.9223372036\)$" \
	"$REPLAY" -q --duration 18446744073 -w o.pcap "$TRACE"
run 2 "^replay: --loopdelay-ms: 9223372036855 is out of range" \
	"$REPLAY" -q --loop 3 --loopdelay-ms 9223372036855 -w o.pcap "$TRACE"

clock="record [0-9]+: due past what the run clock holds \(2\^63 ns, about 292 years\)"
run 1 "^replay: .*record 1: due past what the run clock holds" \
	"$REPLAY" -q --loop 3 --loopdelay-ns 9223372036854775807 -w o.pcap "$TRACE"
[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
[ ! -e o.pcap ] || fail "a run that ended on the clock's range left its -w output"
run 1 "^replay: .*record 2: due past what the run clock holds" \
	"$REPLAY" -q --pps 0x1p-40 -w o.pcap "$TRACE"
grep -qE "$clock" err || fail "the line does not name the limit: $(cat err)"
[ ! -e o.pcap ] || fail "a run that ended on the clock's range left its -w output"

# The largest --duration is no end at all: every packet is written.
n=$("$REPLAY" --info "$TRACE" | sed -n 's/^packets: *\([0-9][0-9]*\)$/\1/p')
[ -n "$n" ] || fail "--info gave no packet count"
run 0 "" "$REPLAY" --duration 9223372036 -w o.pcap "$TRACE"
grep -q "^Actual: $n packets" out || fail "--duration 9223372036 did not send the $n packets: $(cat out)"
echo ok
