#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay impair convert: text -> binary -> text gives the same text back (the
# canonical form), the binary form is stable, a non-canonical text converts to
# the canonical one, and bad input fails with one line naming the file, line
# and column, exit 1, and no output left behind (nor an old one clobbered).
set -euo pipefail
: "${REPLAY:?}" "${IMPAIR_MAN:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

cat >canon.txt <<'T'
pass
drop
delay 10ms
delay 1500us dup 2 1ms 1500us
corrupt bits 3,17 bytes 40 random 2
delay 70ms dup 1 3s corrupt bytes 0
delay 7ns
delay 17179869185ns dup 1 17179869186ns
delay 2s corrupt random 1 bits 9 random 4
T
"$REPLAY" impair convert canon.txt a.bin || fail "text -> binary failed"
[ "$(head -c 4 a.bin)" = RPIM ] || fail "a.bin does not start with RPIM"
"$REPLAY" impair convert a.bin b.txt || fail "binary -> text failed"
cmp canon.txt b.txt || { diff canon.txt b.txt >&2; fail "text -> binary -> text differs"; }
"$REPLAY" impair convert b.txt b.bin || fail "second text -> binary failed"
cmp a.bin b.bin || fail "binary differs after a round trip"
# 16-byte header, then: pass, drop, delay 10ms -- one 32-bit word each.
[ "$(od -An -tx1 -j16 -N12 a.bin | tr -d ' \n')" = 00000000000000100a000008 ] ||
	fail "pass, drop, delay 10ms are not the words 0, 0x10000000, 0x0800000a"

# Comments, blank lines, other spacing and units come back canonical.
printf '# measured\n\n  delay   10000us\t# ten ms\ndup 1\ncorrupt bit 3 bit 17\n' >loose.txt
"$REPLAY" impair convert loose.txt l.bin || fail "loose text -> binary failed"
"$REPLAY" impair convert l.bin l.txt || fail "binary -> text failed"
printf 'delay 10ms\ndup 1 0ns\ncorrupt bits 3,17\n' >want.txt
cmp want.txt l.txt || { diff want.txt l.txt >&2; fail "loose text is not made canonical"; }

# Bad text: one line naming file, line and column; exit 1; no output.
printf 'pass\ndrop\ndelay 5 parsecs\npass\n' >bad.txt
rc=0
"$REPLAY" impair convert bad.txt out.bin 2>err || rc=$?
[ $rc -eq 1 ] || fail "bad text: exit $rc, not 1"
[ "$(wc -l <err)" -eq 1 ] || fail "bad text: not one line: $(cat err)"
grep -q "bad.txt: line 3, column 9: unknown action 'parsecs'" err ||
	fail "bad text: message does not name line and column: $(cat err)"
[ ! -e out.bin ] || fail "bad text left out.bin behind"
[ -z "$(ls -A | grep -v -e '\.txt$' -e '\.bin$' -e '^err$')" ] || fail "a temporary was left: $(ls -A)"

# An existing output is left as it was by a failed conversion.
echo keep >old.bin
"$REPLAY" impair convert bad.txt old.bin 2>/dev/null && fail "bad text converted"
[ "$(cat old.bin)" = keep ] || fail "a failed conversion clobbered old.bin"

# Bad binary (cut short inside an action): offset named, no output.
head -c 30 a.bin >cut.bin
rc=0
"$REPLAY" impair convert cut.bin out.txt 2>err || rc=$?
[ $rc -eq 1 ] || fail "cut binary: exit $rc"
grep -q "cut.bin: action 4 at offset 0x1c cut short" err || fail "cut binary: $(cat err)"
[ ! -e out.txt ] || fail "cut binary left out.txt behind"

# The output may not be the input; usage errors exit 2.
"$REPLAY" impair convert canon.txt canon.txt 2>err && fail "converted a file onto itself"
cmp canon.txt b.txt || fail "canon.txt was clobbered"
rc=0; "$REPLAY" impair convert canon.txt 2>/dev/null || rc=$?
[ $rc -eq 2 ] || fail "missing OUT: exit $rc, not 2"
rc=0; "$REPLAY" impair frobnicate 2>/dev/null || rc=$?
[ $rc -eq 2 ] || fail "unknown subcommand: exit $rc, not 2"
"$REPLAY" impair --help | grep -q "replay impair convert IN OUT" || fail "impair --help"

# The example trace of replay-impair(5) is a valid trace.
awk '/^A hand-written trace:/ { on = 1; next } on && /^\.Bd/ { inb = 1; next }
     inb && /^\.Ed/ { exit } inb { print }' "$IMPAIR_MAN" >example.txt
[ "$(grep -vc '^#' example.txt)" -eq 5 ] || fail "the man page example was not found: $(cat example.txt)"
"$REPLAY" impair convert example.txt example.bin || fail "the man page example does not convert"
echo "ok"
