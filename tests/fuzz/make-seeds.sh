#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Rebuild the fuzz targets' seed corpora from the sample traces in traces/:
# small traces in every encoding and format the readers take.  The seeds are
# committed; run this after changing traces/, gentrace or reformat.
#   tests/fuzz/make-seeds.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
C=tests/fuzz/corpus
ninja -C "$B" gentrace reformat >/dev/null
rm -f "$C"/pcap/* "$C"/pcapng/* "$C"/erf/*
mkdir -p "$C"/pcap "$C"/pcapng "$C"/erf

for t in dns mixed; do
	cp "traces/$t.pcap" "$C/pcap/$t.pcap"
	for enc in usec-be nsec-le nsec-be; do
		"$B/gentrace" convert "traces/$t.pcap" "$C/pcap/$t.$enc.pcap" "--${enc%-*}" "--${enc#*-}" >/dev/null
	done
	for f in ng-usec ng-nsec-be ng-bin32 ng-tsoffset ng-multi ng-mixedlink; do
		"$B/reformat" "traces/$t.pcap" "$C/pcapng/$t.$f" "$f"
	done
	for f in erf erf-fcs-pad erf-ip; do
		"$B/reformat" "traces/$t.pcap" "$C/erf/$t.$f" "$f"
	done
done
for f in pcap-sll pcap-sll2 pcap-raw pcap-null pcap-loop; do
	"$B/reformat" traces/dns.pcap "$C/pcap/dns.$f" "$f"
done
for k in truncated-record caplen-over-snaplen caplen-over-wirelen runt; do
	"$B/gentrace" malformed "$k" -o "$C/pcap/malformed-$k.pcap" >/dev/null
done
"$B/gentrace" malformed pcapng -o "$C/pcapng/gentrace-minimal.pcapng" >/dev/null
if command -v editcap >/dev/null; then
	editcap -F pcapng traces/dns.pcap "$C/pcapng/dns.editcap.pcapng"
fi
# replay live and serve: conversations over every bundled trace, and a cooked capture.
rm -f "$C"/conv/*
mkdir -p "$C"/conv
for t in http http6 dns vlan mixed ipv6; do
	cp "traces/$t.pcap" "$C/conv/$t.pcap"
done
"$B/reformat" traces/http.pcap "$C/conv/http.pcap-sll2" pcap-sll2
# replay-rx: --reference and -r take a config byte, then a trace (fuzz_rx_ref.c, fuzz_rx_read.c).
rm -f "$C"/rx_ref/* "$C"/rx_read/*
mkdir -p "$C"/rx_ref "$C"/rx_read
i=0
for f in "$C"/pcap/dns.* "$C"/pcap/malformed-* "$C"/pcap/mixed.pcap "$C"/pcapng/dns.ng-mixedlink \
	"$C"/pcapng/dns.ng-multi "$C"/erf/dns.erf-ip; do
	b=$(basename "$f")
	{ printf "\\x$(printf %02x $((i % 64)))"; cat "$f"; } >"$C/rx_ref/$b"
	{ printf "\\x$(printf %02x $((i * 9 % 64)))"; cat "$f"; } >"$C/rx_read/$b"
	i=$((i + 1))
done
# Matching and the writers: the hand-made rx_match seeds (byte 0 below 64: no send log) in
# every send-log mode as well (fuzz_rx.h).
mkdir -p "$C"/rx_report
for f in "$C"/rx_match/*; do
	b=$(basename "$f")
	case $b in *.mode*) continue ;; esac
	cp "$f" "$C/rx_report/$b"
	for m in 1 2 3; do
		{ printf "\\x$(printf %02x $(($(head -c1 "$f" | od -An -tu1) % 64 + 64 * m)))"
		  tail -c +2 "$f"; } >"$C/rx_match/$b.mode$m"
		cp "$C/rx_match/$b.mode$m" "$C/rx_report/$b.mode$m"
	done
done
# The figures and the send series read the same analyses as the writers.
mkdir -p "$C"/rx_plot
cp "$C"/rx_report/* "$C"/rx_plot/
# --fanout's merge (fuzz_rx_merge.c): byte 0 rings - 1 (+ 8: a first ring past a chunk), byte 1
# the cap (0: none), then (ring, time step) pairs.
mkdir -p "$C"/rx_merge
printf '\x01\x00\x00\x0a\x01\x05\x00\x0a\x01\x0a\x00\x01\x01\x01' >"$C/rx_merge/two-interleaved"
printf '\x02\x00\x00\x00\x01\x00\x02\x00\x00\x00\x01\x00\x02\x00' >"$C/rx_merge/three-ties"
printf '\x03\x20\x00\x01\x01\x02\x02\x03\x03\x04\x00\x05\x01\x06' >"$C/rx_merge/four-capped"
printf '\x01\x00\x00\xff\x01\xff\x00\xff\x01\xff\x00\xff\x01\xff' >"$C/rx_merge/far-times"
printf '\x0a\x00\x01\x03\x02\x01\x01\x02\x00\x03' >"$C/rx_merge/past-a-chunk"
printf '\x09\x40\x01\x00\x00\x00\x01\x01' >"$C/rx_merge/past-a-chunk-capped"
printf '\x07\x00' >"$C/rx_merge/eight-empty"
du -sh "$C"/*
