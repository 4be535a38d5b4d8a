#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# The receiver's own capacity: how many packets per second replay-rx takes
# with no drops, against tcpdump in the same run, over a veth pair between
# two network namespaces.  trafgen (netsniff-ng) sends 64-byte frames as fast
# as it can, or at fixed rates; each receiver runs alone on the same traffic,
# in turn, every setting REPEAT times.  Every measurement holds the bench
# lock (/tmp/replay-bench.lock) so benchmarks never overlap.
#
#   sudo scripts/bench/rx-capacity.sh [--repeat N] [--count N] [--rates "PPS ..."]
#
# Prints one line per measurement and a summary (medians).  Receivers:
#   rx-64M    replay-rx as it comes: snap 128, ring 64 x 1 MiB, block timeout 100 ms (TPACKET_V3)
#   td-64M    tcpdump -s 128 -w /dev/null -B 65536 (TPACKET_V3, 256 x 256 KiB, 1000 ms)
#   rx-2M     replay-rx with tcpdump's default ring: 8 x 256 KiB, 1000 ms, as libpcap lays it out
#   td-2M     tcpdump -s 128 -w /dev/null with its default 2 MiB buffer
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh

REPEAT=3 COUNT=1000000 RATES="100000 200000 400000 top top2"
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) REPEAT=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--rates) RATES=$2; shift 2 ;;
	*) echo "usage: $0 [--repeat N] [--count N] [--rates \"PPS ... top top2\"]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "rx-capacity: needs root" >&2; exit 1; }
for t in trafgen tcpdump; do command -v $t >/dev/null || { echo "rx-capacity: $t missing (scripts/deps.sh)" >&2; exit 1; }; done
[ -x build/replay-rx ] || { echo "rx-capacity: build first (ninja -C build)" >&2; exit 1; }
RX=$PWD/build/replay-rx

ID=$$ NS_A="rxb-a-$$" NS_B="rxb-b-$$" IF_A="rxba$$" IF_B="rxbb$$"
WORK=$(mktemp -d /tmp/rx-capacity.XXXXXX)
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
	ip -n "$1" link set dev "$2" multicast off up
done
links_up "$NS_A" "$IF_A" "$NS_B" "$IF_B"

# 64-byte UDP frames, the last payload byte counting (so frames differ).
cat >"$WORK/udp.cfg" <<'CFG'
{ 0x02,0,0,0,0,2, 0x02,0,0,0,0,1, 0x08,0x00, 0x45,0,0,50, 0,0,0,0, 64,17,0,0,
  198,18,0,1, 198,19,0,1, 0x04,0x00, 0,9, 0,30, 0,0, fill(0x41, 21), dinc(0, 255) }
CFG

start_rx() { # KIND: start a receiver on B, wait until it listens
	local kind=$1
	: >"$WORK/err"
	case $kind in
	rx-64M) ip netns exec "$NS_B" "$RX" -i "$IF_B" -q --json "$WORK/rx.json" 2>"$WORK/err" & ;;
	rx-2M) ip netns exec "$NS_B" "$RX" -i "$IF_B" -q --blocks 8 --block-size 262144 --block-timeout 1000 \
		--json "$WORK/rx.json" 2>"$WORK/err" & ;;
	td-2M) ip netns exec "$NS_B" tcpdump -i "$IF_B" -Q in -s 128 -w /dev/null 2>"$WORK/err" & ;;
	td-64M) ip netns exec "$NS_B" tcpdump -i "$IF_B" -Q in -s 128 -B 65536 -w /dev/null 2>"$WORK/err" & ;;
	esac
	PID=$!
	until grep -q "listening on" "$WORK/err"; do
		kill -0 "$PID" 2>/dev/null || { cat "$WORK/err" >&2; exit 1; }
		sleep 0.05
	done
	# CPU time the receiver has used so far (ns, /proc/PID/schedstat): setup, not capture.
	cut -d' ' -f1 "/proc/$PID/schedstat" >"$WORK/cpu0"
}

stop_rx() { # KIND: stop it; prints "received dropped cpu_ns"
	local cpu
	# tcpdump's ring hands over a block after 1 s; stopping sooner loses its last frames.
	sleep 1.2
	cpu=$(($(cut -d' ' -f1 "/proc/$PID/schedstat") - $(cat "$WORK/cpu0")))
	kill -TERM "$PID"
	wait "$PID" || true
	PID=""
	case $1 in
	rx-*) echo "$(grep -o '"received":[0-9]*' "$WORK/rx.json" | cut -d: -f2)" \
		"$(grep -o '"kernel_drops":[0-9]*' "$WORK/rx.json" | cut -d: -f2)" "$cpu" ;;
	td-*) echo "$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$WORK/err")" \
		"$(sed -n 's/^\([0-9]*\) packets dropped by kernel/\1/p' "$WORK/err")" "$cpu" ;;
	esac
}

send() { # RATE: trafgen, COUNT frames; prints the achieved pps
	local rate=$1 args=(-P 1) t0 t1 tx0 tx1
	case $rate in
	top) ;;
	top2) args=(-P 2) ;; # two senders: one shares the receiver's core
	*) args+=(-b "${rate}pps") ;;
	esac
	tx0=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/statistics/tx_packets")
	t0=$(date +%s%N)
	ip netns exec "$NS_A" trafgen -o "$IF_A" -i "$WORK/udp.cfg" -n "$COUNT" -q -C "${args[@]}" >/dev/null 2>&1
	t1=$(date +%s%N)
	tx1=$(ip netns exec "$NS_A" cat "/sys/class/net/$IF_A/statistics/tx_packets")
	echo "$((tx1 - tx0)) $(((tx1 - tx0) * 1000000000 / (t1 - t0)))"
}

echo "# receiver rate run sent offered_pps received dropped receiver_cpu_ns"
for rate in $RATES; do
	for r in $(seq "$REPEAT"); do
		for kind in rx-64M td-64M rx-2M td-2M; do
			line=$(flock /tmp/replay-bench.lock bash -c "$(declare -f start_rx stop_rx send); \
				NS_A=$NS_A NS_B=$NS_B IF_A=$IF_A IF_B=$IF_B WORK=$WORK RX=$RX COUNT=$COUNT; \
				start_rx $kind; send $rate >$WORK/sent; stop_rx $kind >$WORK/got; \
				echo \$(cat $WORK/sent $WORK/got)")
			echo "$kind $rate $r $line" | tee -a "$WORK/results"
		done
	done
done

echo
echo "# median over $REPEAT runs: offered pps, received, dropped, receiver CPU ns per frame" \
	"(user + kernel time of the receiving process while capturing); 'ok' when nothing was dropped in any run"
awk '{ k = $1 " " $2; n[k]++; off[k, n[k]] = $5; rec[k, n[k]] = $6; drp[k, n[k]] = $7
       cpf[k, n[k]] = $6 ? $8 / $6 : 0
       if ($7 > 0 || $6 < $4) bad[k] = 1; order[k] = NR }
     function med(a, k, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
       for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
       return v[int((m + 1) / 2)] }
     END { for (k in n) printf "%-14s %10d %10d %10d %8.1f %s\n", k, med(off, k, n[k]), med(rec, k, n[k]),
             med(drp, k, n[k]), med(cpf, k, n[k]), bad[k] ? "DROPS" : "ok" }' "$WORK/results" | sort -k2,2 -k1,1
