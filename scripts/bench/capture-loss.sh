#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Capture loss against snap length, ring size and kernel filter, replay-rx
# against tcpdump: the experiment of Menski ("tcpdump Analyse", 2016), which
# took tcpdump's loss from 7.7 % to 0.004 % with those three settings, here
# over a veth pair between two network namespaces at the highest rate the
# machine offers: two trafgen (netsniff-ng) processes sending flat out.
#
# Half of the offered frames are the measured flow (UDP to 198.19.0.1:9),
# half unrelated traffic (UDP to 198.19.0.2:53), so that a kernel filter
# that keeps only the measured flow has something to keep out.  For every
# snap length x ring size x filter (none, or the measured flow), each
# receiver runs alone on the same traffic, in turn, REPEAT times:
#   rx   replay-rx -s SNAP -B RING*1024 (its own layout: 8 blocks or more, 100 ms block timeout)
#   td   tcpdump -s SNAP -B RING*1024 -w /dev/null (libpcap's own layout of the same bytes)
# A measurement holds the bench lock (/tmp/replay-bench.lock), so benchmarks
# never overlap.  Loss is the kernel's count of frames the ring had no room
# for (replay-rx: kernel_drops in --json; tcpdump: "dropped by kernel"),
# as a share of the frames the receiver's interface took in.
#
#   sudo scripts/bench/capture-loss.sh [--repeat N] [--count N] [--size BYTES]
#        [--snaps "64 128 1514"] [--rings "2 8 64"] [--filters "none flow"]
#        [--out FILE]
#
# Prints one line per measurement, then the median loss per setting; --out
# keeps the lines (TSV).  Needs root, trafgen and tcpdump, and build/replay-rx.
# Exit status: 0 done, 1 a program or the bench failed, 2 usage error.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh

usage() {
	echo "usage: $0 [--repeat N] [--count N] [--size BYTES] [--snaps \"S ...\"] [--rings \"MIB ...\"] [--filters \"none flow\"] [--out FILE]" >&2
	exit 2
}
REPEAT=3 COUNT=2000000 SIZE=512 SNAPS="64 128 1514" RINGS="2 8 64" FILTERS="none flow" OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; REPEAT=$2; shift 2 ;;
	--count) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; COUNT=$2; shift 2 ;;
	--size) [[ ${2:-} =~ ^[0-9]+$ ]] && [ "$2" -ge 60 ] && [ "$2" -le 1514 ] || usage; SIZE=$2; shift 2 ;;
	--snaps) [[ ${2:-} =~ ^[0-9]+( [0-9]+)*$ ]] || usage; SNAPS=$2; shift 2 ;;
	--rings) [[ ${2:-} =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] || usage; RINGS=$2; shift 2 ;;
	--filters) [[ ${2:-} =~ ^(none|flow)( (none|flow))*$ ]] || usage; FILTERS=$2; shift 2 ;;
	--out) [ -n "${2:-}" ] || usage; OUT=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "capture-loss: needs root" >&2; exit 1; }
for t in trafgen tcpdump; do command -v $t >/dev/null || { echo "capture-loss: $t missing (scripts/deps.sh)" >&2; exit 1; }; done
[ -x build/replay-rx ] || { echo "capture-loss: build first (ninja -C build)" >&2; exit 1; }
RX=$PWD/build/replay-rx
FLOW="udp and dst host 198.19.0.1 and dst port 9"

NS_A="clb-a-$$" NS_B="clb-b-$$" IF_A="clba$$" IF_B="clbb$$"
WORK=$(mktemp -d /tmp/capture-loss.XXXXXX)
PID=""
cleanup() {
	[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
ip netns add "$NS_A"
ip netns add "$NS_B"
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
for s in "$NS_A $IF_A" "$NS_B $IF_B"; do
	set -- $s
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set dev "$2" mtu 1500 multicast off up
done
links_up "$NS_A" "$IF_A" "$NS_B" "$IF_B"

# Two frames of SIZE bytes in turn: the measured flow and unrelated traffic (the last
# payload byte counting, so frames differ).  IPv4 total length SIZE - 14, UDP SIZE - 34.
fill=$((SIZE - 14 - 20 - 8 - 1))
hi() { echo $((($1 >> 8) & 255)); }
lo() { echo $(($1 & 255)); }
cat >"$WORK/udp.cfg" <<CFG
{ 0x02,0,0,0,0,2, 0x02,0,0,0,0,1, 0x08,0x00, 0x45,0,$(hi $((SIZE - 14))),$(lo $((SIZE - 14))), 0,0,0,0, 64,17,0,0,
  198,18,0,1, 198,19,0,1, 0x04,0x00, 0,9, $(hi $((SIZE - 34))),$(lo $((SIZE - 34))), 0,0, fill(0x41, $fill), dinc(0, 255) }
{ 0x02,0,0,0,0,2, 0x02,0,0,0,0,1, 0x08,0x00, 0x45,0,$(hi $((SIZE - 14))),$(lo $((SIZE - 14))), 0,0,0,0, 64,17,0,0,
  198,18,0,1, 198,19,0,2, 0x04,0x00, 0,53, $(hi $((SIZE - 34))),$(lo $((SIZE - 34))), 0,0, fill(0x42, $fill), dinc(0, 255) }
CFG

# measure KIND SNAP RING_MIB FILTER: one run; prints "offered_pps taken dropped received".
measure() {
	local kind=$1 snap=$2 ring=$3 filter=$4 expr="" rx0 rx1 t0 t1 got drp
	[ "$filter" = none ] || expr=$FLOW
	: >"$WORK/err"
	rx0=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/statistics/rx_packets")
	case $kind in
	rx) ip netns exec "$NS_B" "$RX" -i "$IF_B" -q -s "$snap" -B $((ring * 1024)) \
		${expr:+--filter "$expr"} --json "$WORK/rx.json" 2>"$WORK/err" & ;;
	td) ip netns exec "$NS_B" tcpdump -i "$IF_B" -Q in -s "$snap" -B $((ring * 1024)) -w /dev/null \
		${expr:+"$expr"} 2>"$WORK/err" & ;;
	esac
	PID=$!
	until grep -q "listening on" "$WORK/err"; do
		kill -0 "$PID" 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
		sleep 0.05
	done
	t0=$(date +%s%N)
	ip netns exec "$NS_A" trafgen -o "$IF_A" -i "$WORK/udp.cfg" -n "$COUNT" -q -C -P 2 >/dev/null 2>&1
	t1=$(date +%s%N)
	# tcpdump's ring hands a block over after 1 s; stopping sooner loses its last frames.
	sleep 1.2
	kill -TERM "$PID"
	wait "$PID" || true
	PID=""
	rx1=$(ip netns exec "$NS_B" cat "/sys/class/net/$IF_B/statistics/rx_packets")
	case $kind in
	rx) got=$(grep -o '"received":[0-9]*' "$WORK/rx.json" | cut -d: -f2)
		drp=$(grep -o '"kernel_drops":[0-9]*' "$WORK/rx.json" | cut -d: -f2) ;;
	td) got=$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$WORK/err")
		drp=$(sed -n 's/^\([0-9]*\) packets dropped by kernel/\1/p' "$WORK/err") ;;
	esac
	echo "$(((rx1 - rx0) * 1000000000 / (t1 - t0))) $((rx1 - rx0)) ${drp:-0} ${got:-0}"
}

printf '# receiver snap ring_mib filter run offered_pps taken_in dropped received loss_pct\n' |
	tee "$WORK/results"
for snap in $SNAPS; do
	for ring in $RINGS; do
		for filter in $FILTERS; do
			for r in $(seq "$REPEAT"); do
				for kind in rx td; do
					line=$(flock /tmp/replay-bench.lock bash -c "$(declare -f measure); \
						NS_A=$NS_A NS_B=$NS_B IF_A=$IF_A IF_B=$IF_B WORK=$WORK RX=$RX \
						COUNT=$COUNT FLOW='$FLOW' PID=''; measure $kind $snap $ring $filter")
					set -- $line
					printf '%s %s %s %s %s %s %s %s %s %.4f\n' "$kind" "$snap" "$ring" "$filter" "$r" \
						"$1" "$2" "$3" "$4" "$(awk -v d="$3" -v n="$2" 'BEGIN { print n ? 100 * d / n : 0 }')" |
						tee -a "$WORK/results"
				done
			done
		done
	done
done
[ -z "$OUT" ] || cp "$WORK/results" "$OUT"

echo
echo "# median over $REPEAT runs per setting: offered pps, loss % (dropped by the kernel / taken in by the interface)"
awk '!/^#/ { k = $1 " s" $2 " " $3 "MiB " $4; n[k]++; off[k, n[k]] = $6; loss[k, n[k]] = $10 }
     function med(a, k, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
       for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
       return v[int((m + 1) / 2)] }
     END { for (k in n) printf "%-28s %10d %8.4f\n", k, med(off, k, n[k]), med(loss, k, n[k]) }' \
	"$WORK/results" | sort -k2,2 -k3,3n -k4,4 -k1,1
