#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --unique-ip --loop N writes the addresses tcpreplay 4.6 writes with -w, pass
# for pass, and every checksum stays valid.  The expected files
# (unique-ip/*.tcpreplay46.pcap) were written by tcpreplay 4.6.0; with that
# binary at hand ($ANCHOR_BIN/tcpreplay; unset, skipped with a note) they are
# written again and must match.
# tcpreplay 4.6 fails every frame without IP in the passes after the first
# (replay sends it unchanged: replay(1), DIFFERENCES); those frames are left
# out of our output before comparing, and checked to be the originals.
set -euo pipefail
: "${REPLAY:?}" "${PCAPDIFF:?}" "${TRACES:?}"
here=$(cd "$(dirname "$0")" && pwd)
ANCHOR_BIN=${ANCHOR_BIN:-}
[ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcpreplay" ] ||
	echo "note: no tcpreplay 4.6 in \$ANCHOR_BIN ('$ANCHOR_BIN'): compared with the recorded files only"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# keep_ip IN OUT NPERPASS: OUT = IN without the non-IP frames of pass 2 on, which must equal pass 1's.
keep_ip() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
le = d[:4] == b'\xd4\xc3\xb2\xa1' or d[:4] == b'\x4d\x3c\xb2\xa1'
e = '<' if le else '>'
out, off, i, first = [d[:24]], 24, 0, {}
while off < len(d):
    hdr = d[off:off + 16]
    cap = struct.unpack(e + 'I', hdr[8:12])[0]
    frame = d[off + 16:off + 16 + cap]
    t, o = struct.unpack('>H', frame[12:14])[0], 14
    while t in (0x8100, 0x88a8, 0x9100):
        t, o = struct.unpack('>H', frame[o + 2:o + 4])[0], o + 4
    k = i % n
    if i < n:
        first[k] = frame
    if i < n or t in (0x0800, 0x86dd):
        out.append(hdr + frame)
    elif frame != first[k]:
        sys.exit('frame %d (no IP) changed in pass %d' % (i + 1, i // n + 1))
    off += 16 + cap
    i += 1
open(dst, 'wb').write(b''.join(out))
PY
}

check() { # NAME TRACE LOOPS
	local name=$1 trace=$2 loops=$3 exp=$here/unique-ip/$1.loop$3.tcpreplay46.pcap n
	n=$(tcpdump -nr "$trace" 2>/dev/null | wc -l)
	if [ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcpreplay" ] && "$ANCHOR_BIN/tcpreplay" --version >/dev/null 2>&1; then
		"$ANCHOR_BIN/tcpreplay" -q -w "$WORK/ref.pcap" --unique-ip --loop "$loops" -t "$trace" >/dev/null 2>&1 || true
		"$PCAPDIFF" "$exp" "$WORK/ref.pcap" >/dev/null || die "$name: tcpreplay 4.6 writes other bytes than $exp now"
	fi
	"$REPLAY" -q -w "$WORK/ours.pcap" --unique-ip --loop "$loops" -t "$trace" || die "$name: replay failed"
	[ "$(tcpdump -nr "$WORK/ours.pcap" 2>/dev/null | wc -l)" = $((n * loops)) ] || die "$name: not $loops whole passes"
	keep_ip "$WORK/ours.pcap" "$WORK/ours-ip.pcap" "$n" || die "$name: a frame without IP was changed"
	"$PCAPDIFF" "$exp" "$WORK/ours-ip.pcap" || die "$name: not tcpreplay 4.6's addresses"
	# The addresses did move, and no checksum broke (tshark checks every one it knows): the frames
	# it flags are those it flags without --unique-ip (a frame cut short in the capture cannot verify).
	[ "$(tshark -r "$WORK/ours.pcap" -T fields -e ip.src 2>/dev/null | sort -u | wc -l)" -gt 1 ] ||
		die "$name: the addresses never changed"
	"$REPLAY" -q -w "$WORK/plain.pcap" --loop "$loops" -t "$trace" || die "$name: replay failed"
	for f in ours plain; do
		tshark -r "$WORK/$f.pcap" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
			-o udp.check_checksum:TRUE -Y 'ip.checksum.status == 0 || tcp.checksum.status == 0 ||
			udp.checksum.status == 0 || icmp.checksum.status == 0 || icmpv6.checksum.status == 0' \
			-T fields -e frame.number 2>/dev/null >"$WORK/bad.$f"
	done
	cmp -s "$WORK/bad.ours" "$WORK/bad.plain" ||
		die "$name: --unique-ip broke checksums in frames $(comm -23 "$WORK/bad.ours" "$WORK/bad.plain" | tr '\n' ' ')"
	echo "$name: $((n * loops)) frames, tcpreplay 4.6's addresses in every pass, checksums valid"
}

for tool in tcpdump tshark python3; do
	command -v "$tool" >/dev/null || { [ "${CI:-}" = true ] && die "$tool is missing"; echo "SKIP: $tool missing"; exit 77; }
done
check edge "$here/unique-ip/edge.pcap" 4
check mixed "$TRACES/mixed.pcap" 3
check vlan "$TRACES/vlan.pcap" 3

# --unique-ip-loops N keeps each address set for N passes (tcpreplay 4.6 alternates oddly here:
# replay(1), DIFFERENCES), and the options are checked.
"$REPLAY" -q -w "$WORK/l2.pcap" --unique-ip --unique-ip-loops 2 --loop 4 -t "$TRACES/dns.pcap"
got=$(tshark -r "$WORK/l2.pcap" -Y 'udp' -T fields -e ip.src 2>/dev/null | awk 'NR % 6 == 1' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')
[ "$got" = "192.0.2.10:2 192.0.2.9:2 " ] || die "--unique-ip-loops 2: sources per pass: $got"
for bad in "--unique-ip -w $WORK/x.pcap $TRACES/dns.pcap" "--unique-ip-loops 2 --loop 3 -w $WORK/x.pcap $TRACES/dns.pcap" \
	"--unique-ip --unique-ip-loops 0 --loop 3 -w $WORK/x.pcap $TRACES/dns.pcap"; do
	# shellcheck disable=SC2086
	if "$REPLAY" $bad 2>"$WORK/err"; then die "'replay $bad' was accepted"; fi
	[ ! -e "$WORK/x.pcap" ] || die "'replay $bad' wrote its output"
	grep -q "^replay: .*unique-ip" "$WORK/err" || die "'replay $bad': $(cat "$WORK/err")"
done
echo "PASS"
