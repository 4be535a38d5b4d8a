#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# replay live against wrk, on the same nginx: connections a second and
# latency, many short HTTP connections, each tool on one core.
#
#   sudo scripts/bench/live.sh [-r ROUNDS] [-n CONNS] [-c CONCURRENCY] [-o DIR] [BUILD]
#
#   -r ROUNDS       rounds, each running both tools in turn (the order alternates;
#                   default 5); medians and ranges reported
#   -n CONNS        connections replay plays a round (default 20000)
#   -c CONCURRENCY  connections open at once, both tools (default 64)
#   -o DIR          capture and results (default: a new /tmp/replay-live.*)
#   BUILD           build directory with replay (default: build)
#
# Two network namespaces joined by a veth pair: nginx (one worker, access log
# off, pinned to CPU 1) in S serves a 1 KiB file; the clients run in C,
# pinned to CPU 0.  The capture replay plays is recorded here first: 200
# short connections, each one GET with "Connection: close", made by a small
# python3 client and recorded by tcpdump in C.  Per round:
#   wrk   -t 1 -c CONCURRENCY -H "Connection: close" for as long as replay
#         took in the round before (5 s the first time): its Requests/sec is
#         connections a second, since nginx closes each; latency percentiles
#         from --latency.
#   replay live --topspeed --max-concurrent CONCURRENCY --loop CONNS/200,
#         every reply compared with the recording (Date, ETag, Last-Modified
#         masked): connections a second = conversations / elapsed, latency =
#         the time to the end of each conversation, from --stats-json.
# The ratio replay / wrk is taken within each round; the goal is >= 0.8 with
# zero conversation errors: replay limited by the server, not by itself.
# Timing figures mean something only alone on the machine.
set -euo pipefail

ROUNDS=5 CONNS=20000 CONC=64 OUT=""
while getopts "r:n:c:o:" o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	n) CONNS=$OPTARG ;;
	c) CONC=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '3,12p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
B=$(cd "${1:-build}" && pwd)
REPLAY="$B/replay"
[ "$(id -u)" = 0 ] || { echo "live.sh: needs root (network namespaces)" >&2; exit 1; }
for t in nginx wrk tcpdump taskset python3; do
	command -v $t >/dev/null || { echo "live.sh: $t is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
[ -x "$REPLAY" ] || { echo "live.sh: $REPLAY is not built" >&2; exit 1; }
PY=$(command -v /usr/bin/python3 || command -v python3)
. "$(dirname "$0")/lib.sh"

OUT=${OUT:-$(mktemp -d /tmp/replay-live.XXXXXX)}
mkdir -p "$OUT"
C="rlc-$$" S="rls-$$" CIF="rlc$$" SIF="rls$$"
CLI=198.18.0.1 SRV=198.18.0.2
NGINX_PID="" TD_PID=""
cleanup() {
	for p in $TD_PID $NGINX_PID; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
	ip netns del "$C" 2>/dev/null || true
	ip netns del "$S" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$C"
ip netns add "$S"
ip link add "$CIF" netns "$C" type veth peer name "$SIF" netns "$S"
ip -n "$C" addr add "$CLI/24" dev "$CIF"
ip -n "$S" addr add "$SRV/24" dev "$SIF"
for ns in "$C $CIF" "$S $SIF"; do
	set -- $ns
	ip -n "$1" link set lo up
	ip -n "$1" link set "$2" up
done
links_up "$C" "$CIF" "$S" "$SIF"
# Short connections by the ten thousand: ports to spare, TIME_WAIT reused.
ip netns exec "$C" sysctl -qw net.ipv4.ip_local_port_range="1024 65535" net.ipv4.tcp_tw_reuse=1
ip netns exec "$S" sysctl -qw net.core.somaxconn=4096 net.ipv4.tcp_max_syn_backlog=4096

mkdir -p "$OUT/www" "$OUT/nginx"
head -c 1024 /dev/zero | tr '\0' x >"$OUT/www/1k.bin"
cat >"$OUT/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 65536;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log;
events { worker_connections 16384; }
http {
	access_log off;
	client_body_temp_path $OUT/nginx/body;
	proxy_temp_path $OUT/nginx/proxy;
	fastcgi_temp_path $OUT/nginx/fastcgi;
	uwsgi_temp_path $OUT/nginx/uwsgi;
	scgi_temp_path $OUT/nginx/scgi;
	server { listen $SRV:80 backlog=4096; root $OUT/www; location / { } }
}
CONF
ip netns exec "$S" taskset -c 1 nginx -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" &
NGINX_PID=$!
for _ in $(seq 100); do
	ip netns exec "$C" bash -c "exec 3<>/dev/tcp/$SRV/80" 2>/dev/null && break
	sleep 0.05
done

# The capture: 200 short connections, one request each.
ip netns exec "$C" tcpdump -i "$CIF" -s 65535 -B 65536 -U --immediate-mode -w "$OUT/short.pcap" tcp port 80 2>"$OUT/tcpdump.err" &
TD_PID=$!
for _ in $(seq 100); do grep -q "listening on" "$OUT/tcpdump.err" && break; sleep 0.05; done
ip netns exec "$C" "$PY" - "$SRV" <<'PY'
import socket, sys
for i in range(200):
    s = socket.create_connection((sys.argv[1], 80))
    s.sendall(b"GET /1k.bin HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nConnection: close\r\n\r\n")
    while s.recv(65536):
        pass
    s.close()
PY
sleep 0.5
kill "$TD_PID"; wait "$TD_PID" 2>/dev/null || true; TD_PID=""

LOOPS=$(( (CONNS + 199) / 200 ))
DUR=5
: >"$OUT/rounds.tsv"
run_wrk() {
	ip netns exec "$C" taskset -c 0 wrk -t 1 -c "$CONC" -d "${DUR}s" --latency -H "Connection: close" \
		"http://$SRV/1k.bin" >"$OUT/wrk.$1.txt"
	# Requests/sec, then p50/p90/p99 in ms.
	awk '/^Requests\/sec/ { r = $2 }
	     function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
	     /^ +50%/ { p50 = ms($2) } /^ +90%/ { p90 = ms($2) } /^ +99%/ { p99 = ms($2) }
	     /Non-2xx|Socket errors/ { err = err $0 }
	     END { printf "%s %s %s %s %s\n", r, p50, p90, p99, err == "" ? "-" : "errors" }' "$OUT/wrk.$1.txt"
}
run_replay() {
	local js="$OUT/replay.$1.json" t0 t1
	t0=$(date +%s.%N)
	ip netns exec "$C" taskset -c 0 "$REPLAY" live --topspeed --max-concurrent "$CONC" --loop "$LOOPS" \
		--mask-header Date --mask-header ETag --mask-header Last-Modified --mismatch-max 3 \
		--stats-json "$js" "$OUT/short.pcap" >"$OUT/replay.$1.txt" 2>&1 || true
	t1=$(date +%s.%N)
	DUR=$(awk -v a="$t0" -v b="$t1" 'BEGIN { d = int(b - a + 0.5); print d < 2 ? 2 : d }')
	"$PY" - "$js" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n = len(j["conversations"])
bad = n - j["verdicts"]["ok"]
d = j["timings_ns"]["duration"]
print("%.1f %.3f %.3f %.3f %d" % (n / (j["elapsed_ns"] / 1e9), d["p50"] / 1e6, d["p90"] / 1e6, d["p99"] / 1e6, bad))
PY
}

echo "# round tool cps p50_ms p90_ms p99_ms errors" | tee "$OUT/rounds.tsv"
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="replay wrk"; else order="wrk replay"; fi
	for tool in $order; do
		if [ "$tool" = replay ]; then line=$(run_replay "$r"); else line=$(run_wrk "$r"); fi
		echo "$r $tool $line" | tee -a "$OUT/rounds.tsv"
	done
done
"$PY" - "$OUT/rounds.tsv" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
by = {}
for r in rows:
    by.setdefault(r[0], {})[r[1]] = r
ratios = [float(v["replay"][2]) / float(v["wrk"][2]) for v in by.values() if "replay" in v and "wrk" in v]
def col(tool, i):
    return [float(r[i]) for r in rows if r[1] == tool]
print()
for tool in ("wrk", "replay"):
    c = col(tool, 2)
    print("%-7s cps median %.0f (%.0f-%.0f); p50 %.3f ms, p90 %.3f ms, p99 %.3f ms (medians)" % (
        tool, statistics.median(c), min(c), max(c), statistics.median(col(tool, 3)),
        statistics.median(col(tool, 4)), statistics.median(col(tool, 5))))
errs = sum(int(r[6]) for r in rows if r[1] == "replay")
print("replay/wrk ratio median %.3f (%.3f-%.3f) over %d rounds; replay conversation errors %d" % (
    statistics.median(ratios), min(ratios), max(ratios), len(ratios), errs))
PY
echo "# results in $OUT"
