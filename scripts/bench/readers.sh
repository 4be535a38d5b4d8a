#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Trace-reader benchmarks (BENCHMARKS.md, "Reading").  Every figure is
# the median of RUNS runs (all runs shown in brackets), our reader and its
# anchor measured in the same run of this script:
#
#  1. read throughput, drain only: ours (as replay runs it), ours with the
#     MADV_WILLNEED window forced, and libpcap's pcap_next_ex on the same
#     file (pcap and pcapng; 64- and 1514-byte frames), page cache warm and
#     cold (drop_caches), beside the disk's own sequential read (dd);
#  2. peak RSS of `replay -w /dev/null --topspeed` on traces 8x and 32x the
#     window, and of replay and tcpreplay sending the 8x trace on a veth;
#  3. NetVCR's figure 3: reading a cold trace at 100 kpps, the longest read
#     and the reads that waited for the disk, for each read-ahead policy and
#     libpcap -- on this machine's disk (read_ahead_kb as set) and on a loop
#     device of our own with read_ahead_kb=128, as many systems have.
#
# Needs root (drop_caches, a network namespace, a loop device).  Traces are
# generated here, in $OUT (default /var/tmp/replay-bench-readers, ~7 GB),
# and removed afterwards (KEEP=1 keeps them).  Every measurement holds
# /tmp/replay-bench.lock, so benchmarks never overlap.
#   scripts/bench/readers.sh [BUILD_DIR]      RUNS=3 OUT=... KEEP=1 SECTIONS="1 2 3"
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RUNS=${RUNS:-3}
OUT=${OUT:-/var/tmp/replay-bench-readers}
LOCK=/tmp/replay-bench.lock
NS="rb-$$"
MNT="$OUT/mnt"
LOOPDEV=""
SECTIONS=${SECTIONS:-1 2 3}
section() { [[ " $SECTIONS " == *" $1 "* ]]; }

[ "$(id -u)" = 0 ] || { echo "readers.sh: needs root (drop_caches, netns, loop device)" >&2; exit 1; }
ninja -C "$B" replay gentrace reformat readbench >/dev/null
mkdir -p "$OUT"
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	if [ -n "$LOOPDEV" ]; then
		umount "$MNT" 2>/dev/null || true
		losetup -d "$LOOPDEV" 2>/dev/null || true
	fi
	[ "${KEEP:-0}" = 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT

say() { echo "$*" >&2; }
# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
all() { sort -g | tr '\n' ' ' | sed 's/ $//'; }
# field NAME: the number after the first NAME in a readbench line on stdin
field() { grep -o "$1 [0-9.]*" | head -n1 | awk '{ print $2 }'; }
locked() { flock "$LOCK" "$@"; }
coldrun() { locked bash -c "sync; echo 3 >/proc/sys/vm/drop_caches; $*"; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) cores, $(git describe --always --dirty 2>/dev/null)"
echo "# disk: $(lsblk -dno NAME,SIZE,ROTA "$(df --output=source "$OUT" | tail -n1)" 2>/dev/null || true)," \
	"read_ahead_kb $(cat /sys/dev/block/"$(mountpoint -d "$(df --output=target "$OUT" | tail -n1)")"/queue/read_ahead_kb 2>/dev/null || echo '?')"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- traces -------------------------------------------------------------------------
say "== generating traces in $OUT"
W=$((32 << 20)) # the default window
# 64-byte frames: the per-record cost; 1514-byte: the per-byte cost.  About 1 GiB each.
[ -s "$OUT/small.pcap" ] || "$B/gentrace" udp --count 13421772 --size 64 --gap-us 10 --flows 16 -o "$OUT/small.pcap"
[ -s "$OUT/large.pcap" ] || "$B/gentrace" udp --count 701000 --size 1514 --gap-us 10 -o "$OUT/large.pcap"
[ -s "$OUT/small.pcapng" ] || "$B/reformat" "$OUT/small.pcap" "$OUT/small.pcapng" ng-nsec-be
[ -s "$OUT/large.pcapng" ] || "$B/reformat" "$OUT/large.pcap" "$OUT/large.pcapng" ng-nsec-be
# 8x the window, for the RSS test (large.pcap is 32x)
[ -s "$OUT/x8.pcap" ] || "$B/gentrace" udp --count $((8 * W / 1530)) --size 1514 --gap-us 10 -o "$OUT/x8.pcap"

# ---- 1. throughput ------------------------------------------------------------------
# drain MODE FILE COLD: "records/s GB/s [GB/s of each run]"
drain() {
	local mode=$1 f=$2 c=$3 r rs=() gs=()
	for _ in $(seq "$RUNS"); do
		if [ "$c" = 1 ]; then
			r=$(coldrun "'$B/readbench' drain $mode '$f'")
		else
			locked "$B/readbench" drain "$mode" "$f" >/dev/null # make sure it is cached
			r=$(locked "$B/readbench" drain "$mode" "$f")
		fi
		rs+=("$(echo "$r" | field rec_per_s)")
		gs+=("$(echo "$r" | field GB_per_s)")
	done
	echo "$(printf '%s\n' "${rs[@]}" | median) $(printf '%s\n' "${gs[@]}" | median) [$(printf '%s\n' "${gs[@]}" | all)]"
}

if section 1; then
echo
echo "## 1. read throughput, drain only (median of $RUNS; GB/s of every run in brackets)"
printf "%-13s %-5s %-8s %12s %7s  %s\n" file cache reader "records/s" "GB/s" "runs"
for f in small.pcap large.pcap small.pcapng large.pcapng; do
	for c in 0 1; do
		for mode in libpcap ours window; do
			read -r rps gbs runs < <(drain $mode "$OUT/$f" $c)
			[ $mode = libpcap ] && base=$rps
			printf "%-13s %-5s %-8s %12.0f %7.3f  %-24s %s\n" "$f" "$([ $c = 1 ] && echo cold || echo warm)" \
				$mode "$rps" "$gbs" "$runs" \
				"$([ $mode = libpcap ] || echo "$rps $base" | awk '{ printf "%.2fx libpcap", $1 / $2 }')"
		done
	done
done
ds=()
for _ in $(seq "$RUNS"); do
	ds+=("$(coldrun "dd if='$OUT/large.pcap' of=/dev/null bs=1M 2>&1" |
		awk '/copied/ { v = $(NF - 1); u = $NF; print (u == "GB/s" ? v : v / 1000) }')")
done
echo "disk: dd bs=1M of large.pcap, cold: $(printf '%s\n' "${ds[@]}" | median) GB/s [$(printf '%s\n' "${ds[@]}" | all)]"
fi

# ---- 2. peak RSS --------------------------------------------------------------------
rss() { # rss CMD...: "median [all]" peak RSS in KiB
	local v=()
	for _ in $(seq "$RUNS"); do
		v+=("$(locked /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n1)")
	done
	echo "$(printf '%s\n' "${v[@]}" | median) KiB [$(printf '%s\n' "${v[@]}" | all)]"
}
if section 2; then
echo
echo "## 2. peak RSS (median of $RUNS); window 32 MiB"
echo "replay -w /dev/null --topspeed dns.pcap (8 packets):          $(rss "$B/replay" -q -w /dev/null --topspeed traces/dns.pcap)"
echo "replay -w /dev/null --topspeed x8.pcap ($(du -m "$OUT/x8.pcap" | cut -f1) MB, 8 windows):     $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/x8.pcap")"
echo "replay -w /dev/null --topspeed large.pcap ($(du -m "$OUT/large.pcap" | cut -f1) MB, 32 windows): $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/large.pcap")"
echo "replay -w /dev/null --topspeed large.pcapng:                    $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/large.pcapng")"
echo "replay -w /dev/null --topspeed -K x8.pcap:                      $(rss "$B/replay" -q -w /dev/null --topspeed -K "$OUT/x8.pcap")"
# Sending: replay and tcpreplay on a veth whose peer takes everything and keeps nothing.
ip netns add "$NS"
ip -n "$NS" link add "rba$$" type veth peer name "rbb$$"
ip -n "$NS" link set "rba$$" up
ip -n "$NS" link set "rbb$$" up
echo "replay -i veth --topspeed x8.pcap:                              $(rss ip netns exec "$NS" "$B/replay" -q -i "rba$$" --topspeed "$OUT/x8.pcap")"
echo "tcpreplay -i veth --topspeed x8.pcap:                           $(rss ip netns exec "$NS" tcpreplay -q -i "rba$$" --topspeed "$OUT/x8.pcap")"
echo "tcpreplay -i veth --topspeed -K x8.pcap:                        $(rss ip netns exec "$NS" tcpreplay -q -i "rba$$" --topspeed -K "$OUT/x8.pcap")"
fi

# ---- 3. stalls ----------------------------------------------------------------------
# pace_all FILE SECONDS: one line per reader
pace_all() {
	local f=$1 secs=$2 mode r l p o io iol late
	for mode in libpcap ours window kernel none; do
		l=() p=() o=() io=() iol=() late=()
		for _ in $(seq "$RUNS"); do
			r=$(coldrun "'$B/readbench' pace $mode '$f' 100000 $secs")
			l+=("$(echo "$r" | field longest)")
			p+=("$(echo "$r" | field p99.9)")
			o+=("$(echo "$r" | grep -o 'over 1 ms [0-9]*' | awk '{ print $4 }')")
			io+=("$(echo "$r" | grep -o 'waited for I/O [0-9]*' | awk '{ print $4 }')")
			iol+=("$(echo "$r" | grep -o 'I/O [0-9]* (longest [0-9.]*' | awk '{ print $4 }')")
			late+=("$(echo "$r" | field lateness)")
		done
		printf "%-8s longest %8.1f us  p99.9 %6.1f us  >1 ms %4s  waited for I/O %5s (longest %8.1f us)  worst lateness %9.1f us  [longest: %s]\n" \
			"$mode" "$(printf '%s\n' "${l[@]}" | median)" "$(printf '%s\n' "${p[@]}" | median)" \
			"$(printf '%s\n' "${o[@]}" | median)" "$(printf '%s\n' "${io[@]}" | median)" \
			"$(printf '%s\n' "${iol[@]}" | median)" "$(printf '%s\n' "${late[@]}" | median)" \
			"$(printf '%s\n' "${l[@]}" | all)"
	done
}
section 3 || exit 0
echo
echo "## 3. reading a cold trace at 100 kpps (median of $RUNS)"
echo "### this machine's disk"
echo "small.pcap (64-byte frames, 8 MB/s), 10 s:"
pace_all "$OUT/small.pcap" 10
echo "large.pcap (1514-byte frames, 153 MB/s), 7 s:"
pace_all "$OUT/large.pcap" 7
# A device of our own with the read-ahead many systems default to.
truncate -s 3G "$OUT/loop.img"
LOOPDEV=$(losetup --show -f --direct-io=on "$OUT/loop.img")
mkfs.ext4 -q "$LOOPDEV"
mkdir -p "$MNT"
mount "$LOOPDEV" "$MNT"
echo 128 >"/sys/block/$(basename "$LOOPDEV")/queue/read_ahead_kb"
cp "$OUT/small.pcap" "$OUT/large.pcap" "$MNT/"
echo "### loop device (direct I/O to the disk), read_ahead_kb=128"
echo "small.pcap, 10 s:"
pace_all "$MNT/small.pcap" 10
echo "large.pcap, 7 s:"
pace_all "$MNT/large.pcap" 7
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
