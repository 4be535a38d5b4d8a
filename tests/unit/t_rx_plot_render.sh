#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay-rx --plot, end to end without a network: a capture file read with -r
# against its reference; every figure must be well-formed XML (xmllint) and
# render (rsvg-convert) to a PNG of the figure's size.  No root needed.
set -euo pipefail
: "${REPLAY_RX:?}" "${GENTRACE:?}" "${PCAPFAULT:?}"

for tool in xmllint rsvg-convert; do
	if ! command -v $tool >/dev/null; then
		[ "${CI:-}" = true ] && { echo "FAIL: $tool missing (scripts/deps.sh installs it)" >&2; exit 1; }
		echo "SKIP: $tool is not installed"
		exit 77
	fi
done
WORK=$(mktemp -d /tmp/rx-plot.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# The same 3000 packets 100 us apart as sent, 103 us apart as "received", with faults.
"$GENTRACE" udp -o "$WORK/ref.pcap" --count 3000 --gap-us 100 >/dev/null
"$GENTRACE" udp -o "$WORK/slow.pcap" --count 3000 --gap-us 103 >/dev/null
"$PCAPFAULT" "$WORK/slow.pcap" "$WORK/got.pcap" --drop 100 --drop 2000 --swap 1500 --dup 10
rc=0
"$REPLAY_RX" -r "$WORK/got.pcap" -R "$WORK/ref.pcap" --plot "$WORK/figs" --json "$WORK/r.json" \
	>"$WORK/out" || rc=$?
[ $rc -eq 3 ] || die "replay-rx exited $rc, expected 3 (faults): $(cat "$WORK/out")"
grep -q '"lost":2,' "$WORK/r.json" || die "lost: $(cat "$WORK/r.json")"
for f in interval interval-linear error-cdf interval-hist timeline; do
	svg="$WORK/figs/$f.svg" png="$WORK/$f.png"
	[ -s "$svg" ] || die "$f.svg was not written"
	xmllint --noout "$svg" || die "$f.svg is not well-formed"
	grep -q "<script" "$svg" && die "$f.svg has a script"
	rsvg-convert -o "$png" "$svg" || die "$f.svg does not render"
	# PNG signature, then IHDR: width and height, big-endian, at bytes 16..23.
	[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || die "$f.png is not a PNG"
	[ "$(od -An -tu1 -j16 -N8 "$png" | tr -s ' ' | sed 's/^ //')" = "0 0 2 248 0 0 2 48" ] ||
		die "$f.png is not 760x560: $(od -An -tu1 -j16 -N8 "$png")"
done
grep -q "red ticks: 2 lost" "$WORK/figs/timeline.svg" || die "the timeline does not count the losses"
echo "PASS: 5 figures render"
