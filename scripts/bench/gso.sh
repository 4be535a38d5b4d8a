#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Frames longer than the wire at top speed: a capture of 64 KiB TCP frames
# (as taken before TSO) sent over a veth pair with MTU 1500, cut three ways:
#   soft      --segment: replay cuts each frame, the segments go out in batches
#   kernel    --segment --gso: each frame goes whole behind a virtio_net_hdr,
#             the kernel's GSO cuts it (one system call per frame)
#   presegmented  the same segments cut beforehand (replay --segment -w) and
#             sent as a trace of 1514-byte frames: the ceiling, no cutting at all
# for each method in METHODS, in network namespaces this script creates.
#
#   sudo scripts/bench/gso.sh [BUILD_DIR]        (default: build)
#   REPS=3 FRAMES=20000 METHODS="mmsg packet" OFFLOAD=off
#
# The trace holds 100 frames of 65535-byte IPv4 packets (46 segments each),
# looped FRAMES/100 times.  OFFLOAD=off (default) turns TSO, GSO and checksum
# offload off on the sending end, as on a NIC without TSO: the kernel then
# cuts and checksums in software, so the far side receives 1514-byte frames
# on every path.  OFFLOAD=on leaves veth's TSO on: the kernel path then hands
# each 64 KiB frame to the peer whole (as to a NIC that cuts it in hardware)
# and the far side counts super-frames; compare Gbit/s then, not frames/s.
# Per row, medians over REPS rounds (each round runs every row once in turn):
#   frames/s  frames B's ingress counted (nftables netdev counter) / wall time
#   Gbit/s    bytes B's ingress counted (IP packets, without the Ethernet
#             header) x 8 / wall time
#   far       frames counted at B in the last round (must be FRAMES x 46 with OFFLOAD=off)
#   cpu/seg   (user + sys CPU of the sender) / segments asked for, ns
# Holds /tmp/replay-bench.lock, as every benchmark here (run alone).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BUILD=${1:-build}
REPLAY=$PWD/$BUILD/replay
REPS=${REPS:-3}
FRAMES=${FRAMES:-20000}
METHODS=${METHODS:-"mmsg packet"}
OFFLOAD=${OFFLOAD:-off}
SEGS=46 # 65535 - 20 - 32 = 65483 payload bytes at an MSS of 1448: 45 full segments and a short one
[ "$(id -u)" = 0 ] || { echo "gso: needs root (network namespaces)" >&2; exit 1; }
[ -x "$REPLAY" ] || { echo "gso: build first (ninja -C $BUILD)" >&2; exit 1; }
[ $((FRAMES % 100)) = 0 ] && [ "$FRAMES" -gt 0 ] || { echo "gso: FRAMES is a multiple of 100" >&2; exit 2; }
case $OFFLOAD in on | off) ;; *) echo "gso: OFFLOAD is on or off" >&2; exit 2 ;; esac

if [ -z "${BENCH_LOCKED:-}" ]; then
	export BENCH_LOCKED=1
	exec flock /tmp/replay-bench.lock "$0" "$@"
fi

ID=$$
NA=bg-a-$ID NB=bg-b-$ID IA=bga$ID IB=bgb$ID
WORK=$(mktemp -d /tmp/replay-bench.XXXXXX)
cleanup() { ip netns del "$NA" 2>/dev/null || true; ip netns del "$NB" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
veth_pair "$NA" "$IA" "$NB" "$IB" 1 1500
[ "$OFFLOAD" = on ] || ip netns exec "$NA" ethtool -K "$IA" tso off gso off tx off >/dev/null
far_counter "$NB" "$IB"
far() { far_read "$NB"; }

# 100 frames of one TCP connection, each a 65535-byte IPv4 packet with the
# timestamps option, checksums left to offload, as a capture before TSO holds them.
python3 - "$WORK/tso.pcap" <<'PY'
import struct, sys
MAC = bytes.fromhex('02000000000b02000000000a') + b'\x08\x00'
body = bytes((i * 7) & 255 for i in range(65535 - 20 - 32))
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
    for i in range(100):
        tcp = struct.pack('!HHIIBBHHH', 40001, 5001, 1000 + i * len(body), 1, 8 << 4, 0x10, 512, 0, 0)
        tcp += b'\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02'
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 65535, i, 0x4000, 64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
        fr = MAC + ip + tcp + body
        f.write(struct.pack('<IIII', i, 0, len(fr), len(fr)) + fr)
PY
"$REPLAY" -q -t --segment -w "$WORK/seg.pcap" "$WORK/tso.pcap"

cmd_for() {
	local row=$1 m=${1#*:} l=$((FRAMES / 100))
	case ${row%%:*} in
	soft) echo "$REPLAY -q -i $IA --method $m --topspeed --loop $l --segment $WORK/tso.pcap" ;;
	kernel) echo "$REPLAY -q -i $IA --method $m --topspeed --loop $l --segment --gso $WORK/tso.pcap" ;;
	presegmented) echo "$REPLAY -q -i $IA --method $m --topspeed --loop $l $WORK/seg.pcap" ;;
	esac
}

# measure ROW: one run; prints "frames/s Gbit/s far cpu_ns_per_segment".
measure() {
	local f0 b0 f1 b1 start end u s
	read -r f0 b0 < <(far)
	start=$(date +%s%N)
	/usr/bin/time -f "%U %S" -o "$WORK/time" timeout -s KILL 300 ip netns exec "$NA" $(cmd_for "$1") \
		>"$WORK/out" 2>&1 || { echo "gso: $1 failed: $(cat "$WORK/out")" >&2; exit 1; }
	end=$(date +%s%N)
	sleep 0.2 # frames in B's backlog reach its ingress counter
	read -r f1 b1 < <(far)
	read -r u s <"$WORK/time"
	awk -v f=$((f1 - f0)) -v b=$((b1 - b0)) -v ns=$((end - start)) -v u="$u" -v s="$s" -v n=$((FRAMES * SEGS)) \
		'BEGIN { printf "%.0f %.2f %d %.0f\n", f * 1e9 / ns, b * 8 / ns, f, (u + s) * 1e9 / n }'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

ROWS=$(for m in $METHODS; do printf 'soft:%s kernel:%s presegmented:%s ' "$m" "$m" "$m"; done)
for r in $ROWS; do : >"$WORK/res.${r/:/.}"; done
for _ in $(seq "$REPS"); do
	for r in $ROWS; do measure "$r" >>"$WORK/res.${r/:/.}"; done
done
echo "# replay $("$REPLAY" --version | cut -d' ' -f2), kernel $(uname -r), $(nproc) CPUs, veth MTU 1500, offload $OFFLOAD, $FRAMES frames of 64 KiB ($((FRAMES * SEGS)) segments), $(date -u +%FT%TZ)"
printf "%-22s %12s %8s %10s %10s\n" row frames/s Gbit/s far cpu/seg
for r in $ROWS; do
	res=$WORK/res.${r/:/.}
	printf "%-22s %12s %8s %10s %10s\n" "$r" "$(cut -d' ' -f1 <"$res" | median)" "$(cut -d' ' -f2 <"$res" | median)" \
		"$(tail -n1 "$res" | cut -d' ' -f3)" "$(cut -d' ' -f4 <"$res" | median)"
done
