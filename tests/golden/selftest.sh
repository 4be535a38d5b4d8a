#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The golden tests' checkers must be able to fail: feed each a trace that is
# wrong in the way it looks for.
set -euo pipefail
: "${PCAPDIFF:?}" "${CSUMCHECK:?}" "${EDCHECK:?}" "${TRACES:?}"
WORK=$(mktemp -d /tmp/golden-self.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# Flip one byte in the last TCP segment's payload (the final record's last byte).
cp "$TRACES/http.pcap" "$WORK/bad.pcap"
size=$(stat -c %s "$WORK/bad.pcap")
"$CSUMCHECK" "$WORK/bad.pcap" >/dev/null || die "csumcheck rejects a good trace"
printf '\x5a' | dd of="$WORK/bad.pcap" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
if out=$("$CSUMCHECK" "$WORK/bad.pcap"); then die "csumcheck missed a corrupted payload: $out"; fi
echo "csumcheck: $out"
if out=$("$PCAPDIFF" "$TRACES/http.pcap" "$WORK/bad.pcap"); then die "pcapdiff missed a changed byte"; fi
echo "pcapdiff: $out"
if out=$("$PCAPDIFF" --except 1,2 "$TRACES/http.pcap" "$WORK/bad.pcap"); then die "pcapdiff --except hid frame 40"; fi
# A -w output that writes a short capture's captured length as its wire length (mixed.pcap frame 40:
# caplen 96, len 1000) is caught by pcapdiff --wirelen, and only with it.
cp "$TRACES/mixed.pcap" "$WORK/len.pcap"
off=24
for _ in $(seq 39); do off=$((off + 16 + $(od -An -tu4 -j $((off + 8)) -N4 "$WORK/len.pcap"))); done
[ "$(od -An -tu4 -j $((off + 8)) -N8 "$WORK/len.pcap" | xargs)" = "96 1000" ] || die "mixed.pcap frame 40 is not 96 of 1000 bytes"
printf '\x60\x00\x00\x00' | dd of="$WORK/len.pcap" bs=1 seek=$((off + 12)) conv=notrunc 2>/dev/null
"$PCAPDIFF" "$TRACES/mixed.pcap" "$WORK/len.pcap" >/dev/null || die "pcapdiff without --wirelen compares wire lengths"
if out=$("$PCAPDIFF" --wirelen "$TRACES/mixed.pcap" "$WORK/len.pcap"); then die "pcapdiff --wirelen missed frame 40's wire length"; fi
echo "pcapdiff --wirelen: $out"
# A frame cut short is not at its wire length; an IPv6 frame with other MACs is caught.
if out=$("$EDCHECK" padlen "$TRACES/mixed.pcap" "$TRACES/mixed.pcap"); then die "edcheck padlen missed frame 40"; fi
echo "edcheck padlen: $out"
if out=$("$EDCHECK" mac6 "$TRACES/http6.pcap" "$TRACES/http6.pcap" 00:11:22:33:44:55); then
	die "edcheck mac6 missed the MACs"
fi
echo "edcheck mac6: $out"
# --dlt outputs: the same bytes under another link type differ; a frame of another link
# type than the readers convert is compared as recorded.
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/rawip.pcap" "$WORK/lt.pcap"
printf '\x93' | dd of="$WORK/lt.pcap" bs=1 seek=20 conv=notrunc 2>/dev/null # link type 147 (USER0)
"$PCAPDIFF" --linktype "$WORK/lt.pcap" "$WORK/lt.pcap" >/dev/null || die "pcapdiff --linktype rejects a file against itself"
if out=$("$PCAPDIFF" --linktype "$here/rawip.pcap" "$WORK/lt.pcap"); then die "pcapdiff --linktype missed the link type"; fi
echo "pcapdiff --linktype: $out"
