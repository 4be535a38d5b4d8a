#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# genframes (libnet) writes well-formed frames: tshark, with checksum
# validation on, finds every IPv4, TCP, UDP, ICMP and ICMPv6 checksum good and
# no malformed frame, at the default and a large size; and replay --fixcsum
# (replay's own checksum code) leaves them byte for byte as they are.
set -euo pipefail
: "${GENFRAMES:?}" "${REPLAY:?}" "${PCAPDIFF:?}"
command -v tshark >/dev/null || { echo "FAIL: tshark is not installed (scripts/deps.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check KIND SIZE FIELDS...: every frame has status 1 (good) in each checksum FIELD, no
# frame is malformed or draws an expert warning, and (given SIZE) each is SIZE bytes long.
# One tshark run per file: it is slow to start.
check() {
	local kind=$1 size=$2 n=50 fields=() f
	shift 2
	"$GENFRAMES" "$kind" -o "$work/$kind.pcap" --count $n ${size:+--size "$size"} ||
		fail "genframes $kind failed"
	for f in "$@"; do fields+=(-e "$f"); done
	tshark -r "$work/$kind.pcap" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-o udp.check_checksum:TRUE -T fields -E separator=, -e frame.len -e _ws.malformed \
		-e _ws.expert.severity "${fields[@]}" 2>/dev/null >"$work/$kind.txt"
	awk -F, -v n=$n -v size="$size" -v kind="$kind" '
		{ if (size != "" && $1 != size) { print kind ": frame " NR " is " $1 " bytes"; bad = 1 }
		  if ($2 != "") { print kind ": frame " NR " is malformed"; bad = 1 }
		  if ($3 != "" && $3 + 0 >= 6291456) { print kind ": frame " NR " draws an expert warning"; bad = 1 }
		  for (i = 4; i <= NF; i++) if ($i != "1") { print kind ": frame " NR " checksum field " i - 3 " is " $i; bad = 1 }
		  if (NF < 3 + nf) { print kind ": frame " NR " lacks a checksum field"; bad = 1 } }
		END { if (NR != n) { print kind ": " NR " frames, not " n; bad = 1 }; exit bad }' nf=$# "$work/$kind.txt" ||
		fail "$kind ${size:-default}: see above"
	"$REPLAY" -q --fixcsum -w "$work/$kind.fixed.pcap" "$work/$kind.pcap"
	"$PCAPDIFF" "$work/$kind.pcap" "$work/$kind.fixed.pcap" >/dev/null ||
		fail "$kind: replay --fixcsum changed frames genframes wrote"
	echo "$kind ${size:-default}: $n frames, checksums good"
}

for size in "" 1000; do
	check tcp "$size" ip.checksum.status tcp.checksum.status
	check icmp "$size" ip.checksum.status icmp.checksum.status
	check icmp6 "$size" icmpv6.checksum.status
	check ipv6 "$size" udp.checksum.status
done
# A damaged checksum is caught by the same check (the check can fail).
"$GENFRAMES" ipv6 -o "$work/bad.pcap" --count 1
printf '\xff' | dd of="$work/bad.pcap" bs=1 seek=$((24 + 16 + 14 + 40 + 6)) conv=notrunc 2>/dev/null
[ "$(tshark -r "$work/bad.pcap" -o udp.check_checksum:TRUE -Y 'udp.checksum.status == 1' 2>/dev/null | wc -l)" -eq 0 ] ||
	fail "a damaged UDP checksum still reads as good"
"$GENFRAMES" bogus -o "$work/x.pcap" 2>/dev/null && fail "genframes bogus succeeded"
echo PASS
