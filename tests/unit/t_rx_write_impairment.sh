#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay-rx --write-impairment end to end without a network: a capture made
# from the reference with chosen arrival times (10 ms path delay; packet 4
# lost, packet 6 twice, 2 ms apart, packet 8 held 1.5 ms so that 9 overtakes
# it), read with -r against the reference, gives exactly the trace that
# reproduces it; an output that is an input is refused before anything is
# written, and a failed run leaves no file.  No root needed.
set -euo pipefail
: "${REPLAY_RX:?}" "${REPLAY:?}" "${GENTRACE:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
WORK=$(mktemp -d /tmp/rx-wimp.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

"$GENTRACE" udp -o "$WORK/ref.pcap" --count 10 --gap-us 1000 >/dev/null
python3 - "$WORK/ref.pcap" "$WORK/got.pcap" <<'PY'
import struct, sys
raw = open(sys.argv[1], "rb").read()
magic = struct.unpack("<I", raw[:4])[0]
assert magic in (0xa1b2c3d4, 0xa1b23c4d), hex(magic)
scale = 1000 if magic == 0xa1b2c3d4 else 1
off, recs = 24, []
while off < len(raw):
    s, f, cap, wire = struct.unpack("<IIII", raw[off:off + 16])
    recs.append(((s * 10**9 + f * scale), raw[off + 16:off + 16 + cap], wire))
    off += 16 + cap
ms = 10**6
arr = []
for i, (ts, data, wire) in enumerate(recs):
    if i == 3:
        continue                                  # record 4 lost
    extra = 1500 * 1000 if i == 7 else 0          # record 8 held 1.5 ms
    arr.append((ts + 10 * ms + extra, data, wire))
    if i == 5:
        arr.append((ts + 12 * ms, data, wire))    # record 6 twice, 2 ms apart
arr.sort(key=lambda r: r[0])
out = open(sys.argv[2], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
for ts, data, wire in arr:
    out.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), wire) + data)
PY
rc=0
"$REPLAY_RX" -q -r "$WORK/got.pcap" -R "$WORK/ref.pcap" --write-impairment "$WORK/path.rpim" || rc=$?
[ $rc -eq 3 ] || die "replay-rx exited $rc, expected 3 (loss, duplicate, reordering)"
[ "$(head -c 4 "$WORK/path.rpim")" = RPIM ] || die "the trace is not in the binary form"
"$REPLAY" impair convert "$WORK/path.rpim" "$WORK/path.txt" || die "the trace does not read back"
printf 'pass\npass\npass\ndrop\npass\ndup 1 2ms\npass\ndelay 1500us\npass\npass\n' >"$WORK/want.txt"
cmp "$WORK/want.txt" "$WORK/path.txt" ||
	{ diff "$WORK/want.txt" "$WORK/path.txt" >&2; die "wrong actions"; }

# The output may not be an input: refused before reading, the input untouched.
cp "$WORK/ref.pcap" "$WORK/ref.copy"
rc=0
"$REPLAY_RX" -q -r "$WORK/got.pcap" -R "$WORK/ref.pcap" --write-impairment "$WORK/ref.pcap" \
	2>"$WORK/err" || rc=$?
[ $rc -eq 2 ] || [ $rc -eq 1 ] || die "an output on the reference: exit $rc"
grep -q -- "--write-impairment" "$WORK/err" || die "the refusal does not name the option: $(cat "$WORK/err")"
cmp "$WORK/ref.pcap" "$WORK/ref.copy" || die "the reference was clobbered"

# A run that fails (no such capture) leaves no trace file and no temporary.
rc=0
"$REPLAY_RX" -q -r "$WORK/none.pcap" -R "$WORK/ref.pcap" --write-impairment "$WORK/new.rpim" \
	2>/dev/null || rc=$?
[ $rc -ne 0 ] || die "a missing capture did not fail"
[ ! -e "$WORK/new.rpim" ] || die "a failed run left the trace file"
[ -z "$(find "$WORK" -name '.new.rpim*')" ] || die "a failed run left a temporary"
echo "ok"
