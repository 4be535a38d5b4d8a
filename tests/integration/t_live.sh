#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay live and replay serve against real programs: a capture of curl,
# netcat and a small load generator talking to nginx, recorded here, played
# back against that nginx (every conversation completes and compares equal
# with the volatile headers masked), against an nginx serving other content
# (every mismatch reported with its first differing byte), served by
# replay serve to curl (the recorded bodies byte for byte) and the bundled
# DNS capture served to dig; and bad input and bad servers, each one clear
# line, counted, nothing hanging.
. "$(dirname "$0")/lib.sh"

SRV=192.0.2.11
CLI=192.0.2.10
T="timeout 60"
NGINX_PID=""
SERVE_PID=""
TEARDOWN_PIDS="NGINX_PID SERVE_PID AUX_PID"
AUX_PID=""

require_root
# Debian's python3, not a version manager's shim (seconds a start on a loaded machine).
PY=$(command -v /usr/bin/python3 || command -v python3)
for tool in nginx curl dig nc python3 editcap; do
	if ! command -v $tool >/dev/null; then
		[ "${CI:-}" = true ] && die "$tool is not installed (scripts/deps.sh installs it)"
		echo "SKIP: $tool is not installed (scripts/deps.sh installs it)"
		exit $SKIP
	fi
done
init_ns
ip -n "$NS_A" addr add "$CLI/24" dev "$IF_A"
ip -n "$NS_B" addr add "$SRV/24" dev "$IF_B"
# The packet-exact replay reuses the recorded client ports: keep no TIME_WAIT of the recording on the server.
in_b sysctl -qw net.ipv4.tcp_max_tw_buckets=0
in_a ping -c 1 -W 2 "$SRV" >/dev/null 2>&1 || true

make_docroot() {
	local d=$1 variant=$2
	mkdir -p "$d"
	"$PY" - "$d" "$variant" <<'PY'
import os, sys
d, v = sys.argv[1], sys.argv[2]
text = "".join("line %04d of the first file, the same every run\n" % i for i in range(200))
if v == "other":
    text = text[:1000] + "CHANGED!" + text[1008:]
open(os.path.join(d, "a.txt"), "w").write(text)
blob = bytes((i * 7 + 3) % 256 for i in range(30000))
if v == "other":
    blob = blob[:20000]
open(os.path.join(d, "b.bin"), "wb").write(blob)
open(os.path.join(d, "index.html"), "w").write("<html><body>replay</body></html>\n")
PY
}

# The load generator: N keep-alive connections at once, each asking for three files.
LOADGEN='
import socket, sys, threading
host, n = sys.argv[1], int(sys.argv[2])
def one(k):
    s = socket.create_connection((host, 80))
    f = s.makefile("rb")
    for path in ["/a.txt", "/index.html", "/b.bin"]:
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: loadgen/%d\r\n\r\n" % (path, host, k)).encode())
        status = f.readline()
        length = 0
        while True:
            line = f.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        f.read(length)
        assert status.startswith(b"HTTP/1.1 200"), status
    s.close()
ts = [threading.Thread(target=one, args=(k,)) for k in range(n)]
[t.start() for t in ts]
[t.join() for t in ts]
'

record() {
	local cap="$WORK/rec.pcap"
	: >"$WORK/rec.err"
	ip netns exec "$NS_A" tcpdump -i "$IF_A" -s 65535 -B 131072 -U --immediate-mode -w "$cap" "tcp port 80" 2>"$WORK/rec.err" &
	TD_PID=$!
	wait_listening "$TD_PID" "$WORK/rec.err" tcpdump
	in_a $T curl -sf -o /dev/null "http://$SRV/a.txt" -o /dev/null "http://$SRV/b.bin" || die "curl keep-alive"
	in_a $T curl -s -o /dev/null "http://$SRV/missing.txt"
	in_a $T curl -s -o /dev/null -d "name=value&x=1" "http://$SRV/index.html"
	printf 'GET /a.txt HTTP/1.1\r\nHost: %s\r\n\r\nGET /index.html HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$SRV" "$SRV" |
		in_a $T nc -N "$SRV" 80 >/dev/null || die "nc pipelined"
	in_a $T "$PY" -c "$LOADGEN" "$SRV" 4 || die "load generator"
	sleep 0.3
	kill -TERM "$TD_PID"
	wait "$TD_PID" || true
	TD_PID=""
	! grep -E "^[1-9][0-9]* packets dropped by kernel" "$WORK/rec.err" || die "the recording lost packets"
	[ "$(grep -c "GET\|POST" "$WORK/nginx/access.log")" -eq 18 ] ||
		die "expected 18 requests in the access log: $(cat "$WORK/nginx/access.log")"
}

MASKS=(--mask-header Date --mask-header ETag --mask-header Last-Modified)

# expect_rc STATUS CMD...: CMD exits STATUS; its output in $WORK/out and $WORK/err.
expect_rc() {
	local want=$1 rc=0
	shift
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" -eq "$want" ] || die "'$*' exited $rc, expected $want: $(cat "$WORK/out" "$WORK/err")"
}

# wait_port PORT [udp]: until something in B listens on PORT.
wait_port() {
	local opt=-ltn
	[ "${2:-}" = udp ] && opt=-lun
	for _ in $(seq 100); do
		in_b ss -H $opt "sport = :$1" | grep -q . && return 0
		sleep 0.05
	done
	die "nothing listens on port $1"
}

json_conv() { "$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

test_replay_same() {
	local js="$WORK/same.json" n
	in_a $T "$REPLAY" live "${MASKS[@]}" --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>"$WORK/err" ||
		die "replay live against the same nginx exited $?: $(cat "$WORK/out" "$WORK/err")"
	n=$(json_conv "$js" 'len(j["conversations"])')
	[ "$n" -eq 8 ] || die "8 conversations expected, $n played: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'j["verdicts"]["ok"]')" -eq 8 ] || die "not every conversation ok: $(cat "$WORK/out")"
	json_conv "$js" 'all(c["bytes_received"] == c["bytes_received_recorded"] and c["bytes_sent"] == c["bytes_sent_recorded"] for c in j["conversations"])' |
		grep -qx True || die "bytes differ from the recording: $(cat "$js")"
	# Without the masks the Date headers differ (a second later at least).
	sleep 1
	in_a $T "$REPLAY" live --mismatch-max 1 "$WORK/rec.pcap" >"$WORK/out" 2>"$WORK/err" && die "unmasked replay compared equal"
	grep -q "^Mismatch: conversation" "$WORK/out" || die "no mismatch listed: $(cat "$WORK/out")"
	grep -q "^Mismatch: [0-9]* more not listed (--mismatch-max 1)" "$WORK/out" || die "the cap: $(cat "$WORK/out")"
	# --topspeed, --loop and the caps: twice over, one connection at a time.
	in_a $T "$REPLAY" live "${MASKS[@]}" --topspeed --loop 2 --max-concurrent 1 --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>&1 ||
		die "--topspeed --loop 2: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'j["verdicts"]["ok"]')" -eq 16 ] || die "--loop 2: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'j["max_active"]')" -eq 1 ] || die "--max-concurrent 1 kept $(json_conv "$js" 'j["max_active"]') open"
	# --cps 10: eight connections take at least 0.7 s, however fast the server.
	in_a $T "$REPLAY" live "${MASKS[@]}" --topspeed --cps 10 --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>&1 ||
		die "--cps 10: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'int(j["elapsed_ns"] >= 700000000 and j["verdicts"]["ok"] == 8)')" = 1 ] ||
		die "--cps 10 took $(json_conv "$js" 'j["elapsed_ns"]') ns: $(cat "$WORK/out")"
}

# --source-range: each connection from its own address of a range A routes to itself (AnyIP)
# and B routes back to A; nginx logs the addresses.
test_source_range() {
	local js="$WORK/range.json"
	ip -n "$NS_A" route add local 10.9.0.0/24 dev lo
	ip -n "$NS_B" route add 10.9.0.0/24 via "$CLI"
	: >"$WORK/nginx/access.log"
	in_a $T "$REPLAY" live "${MASKS[@]}" --source-range 10.9.0.0/24 --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>&1 ||
		die "--source-range: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'j["verdicts"]["ok"]')" -eq 8 ] || die "--source-range: $(cat "$WORK/out")"
	[ "$(cut -d" " -f1 "$WORK/nginx/access.log" | sort -u | tr "\n" " ")" = "10.9.0.1 10.9.0.2 10.9.0.3 10.9.0.4 10.9.0.5 10.9.0.6 10.9.0.7 10.9.0.8 " ] ||
		die "--source-range: nginx saw $(cut -d" " -f1 "$WORK/nginx/access.log" | sort -u | tr "\n" " ")"
	ip -n "$NS_B" route del 10.9.0.0/24 via "$CLI"
	ip -n "$NS_A" route del local 10.9.0.0/24 dev lo
}

test_replay_other_content() {
	local js="$WORK/other.json" rc=0
	nginx_stop
	make_docroot "$WORK/www2" other
	nginx_start "$SRV" "$WORK/www2"
	in_a $T "$REPLAY" live "${MASKS[@]}" --mismatch-max 100 --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" -eq 1 ] || die "replay live against other content exited $rc: $(cat "$WORK/out" "$WORK/err")"
	# a.txt differs at its byte 1000 (CHANGED!), b.bin is shorter: every conversation that fetched either.
	"$PY" - "$js" "$WORK/out" <<'PY' || die "mismatches: $(cat "$WORK/out")"
import json, sys
j = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
bad = [c for c in j["conversations"] if c["verdict"] == "mismatch"]
# curl a+b, nc a+index, 4 loadgen connections: 6 fetched a.txt; the 404 and the POST did not.
assert len(bad) == 6, (len(bad), j["verdicts"])
assert j["verdicts"]["ok"] == 2, j["verdicts"]
for c in bad:
    m = c["mismatch"]
    assert "CHANGED!" in m["live"] or "CHANGED" in m["live"], m
    assert m["offset"] == m["recorded_offset"], m
    assert "Mismatch: conversation %d " % c["conversation"] in out
PY
	nginx_stop
	nginx_start "$SRV" "$WORK/www"
}

test_bad_servers() {
	local js="$WORK/bad.json"
	# Nothing listens on port 81: refused.
	expect_rc 1 in_a $T "$REPLAY" live --port-map 80:81 --stats-json "$js" "$WORK/rec.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["refused"]')" -eq 8 ] || die "refused: $(cat "$WORK/out")"
	grep -q "^Failed: conversation 1 (.*), pass 1: refused$" "$WORK/out" || die "no refused line: $(cat "$WORK/out")"
	# A server that resets every connection once it has the request.
	ip netns exec "$NS_B" "$PY" -c '
import socket, struct
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$SRV'", 82)); s.listen(64)
while True:
    c, _ = s.accept(); c.recv(100)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()
' &
	AUX_PID=$!
	wait_port 82
	expect_rc 1 in_a $T "$REPLAY" live --port-map 80:82 --stats-json "$js" "$WORK/rec.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["reset"]')" -eq 8 ] || die "reset: $(cat "$WORK/out")"
	kill "$AUX_PID"; wait "$AUX_PID" 2>/dev/null || true
	# A server that accepts and never answers: each conversation times out after --timeout.
	ip netns exec "$NS_B" "$PY" -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$SRV'", 83)); s.listen(64)
cs = []
while True:
    c, _ = s.accept(); cs.append(c)
' &
	AUX_PID=$!
	wait_port 83
	expect_rc 1 in_a $T "$REPLAY" live --port-map 80:83 --timeout 1 --stats-json "$js" "$WORK/rec.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["timeout"]')" -eq 8 ] || die "timeout: $(cat "$WORK/out")"
	kill "$AUX_PID"; wait "$AUX_PID" 2>/dev/null || true
	AUX_PID=""
	# No route to the target's network.
	expect_rc 1 in_a $T "$REPLAY" live --target 198.51.100.1 --timeout 1 --stats-json "$js" "$WORK/rec.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["unreachable"]')" -eq 8 ] || die "unreachable: $(cat "$WORK/out")"
}

test_bad_input() {
	local js="$WORK/badin.json"
	# Without the handshakes: every TCP conversation refused with a reason, counted, exit 1.
	tcpdump -r "$WORK/rec.pcap" -w "$WORK/nohs.pcap" 'tcp[tcpflags] & tcp-syn == 0' 2>/dev/null
	expect_fail 1 "conversation 1 \(tcp $CLI:[0-9]+ -> $SRV:80\): no handshake in the capture" \
		in_a $T "$REPLAY" live "${MASKS[@]}" --stats-json "$js" "$WORK/nohs.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["skipped"]')" -eq 8 ] || die "skipped: $(cat "$WORK/out" "$WORK/err")"
	[ "$(grep -c "no handshake" "$WORK/err")" -eq 8 ] || die "one line each: $(cat "$WORK/err")"
	# --midstream plays them (the lower port, 80, is the server).
	in_a $T "$REPLAY" live "${MASKS[@]}" --midstream --stats-json "$js" "$WORK/nohs.pcap" >"$WORK/out" 2>&1 ||
		die "--midstream: $(cat "$WORK/out")"
	[ "$(json_conv "$js" 'j["verdicts"]["ok"]')" -eq 8 ] || die "--midstream: $(cat "$WORK/out")"
	# Cut by a snap length: the client side of the conversations whose requests were cut.
	editcap -s 100 "$WORK/rec.pcap" "$WORK/cut.pcap" >/dev/null
	expect_fail 1 "cut.pcap: conversation 1 \(tcp [^)]*\): record [0-9]+: the client's payload is cut by the snap length at stream byte 0; its client side cannot be played" \
		in_a $T "$REPLAY" live --stats-json "$js" "$WORK/cut.pcap"
	[ "$(json_conv "$js" 'j["verdicts"]["skipped"]')" -eq 8 ] || die "cut: $(cat "$WORK/err")"
	# Not a trace; and no conversation at all.
	expect_fail 1 "not a trace file" "$REPLAY" live "$WORK/nginx/nginx.conf"
	expect_fail 1 "no TCP or UDP conversation in the input" "$REPLAY" live "$TRACES/icmp-flood.pcap"
	expect_fail 2 "^replay: live no trace file given$" "$REPLAY" live
	expect_fail 2 "^replay: live --compare: 'fuzzy' is not one of exact, length or none" "$REPLAY" live --compare fuzzy x
}

# serve_start OPTIONS... TRACE: replay serve in B, until serve_stop.
serve_start() {
	ip netns exec "$NS_B" timeout 120 "$REPLAY" serve "$@" >"$WORK/serve.out" 2>"$WORK/serve.err" &
	SERVE_PID=$!
}

# serve_stop: SIGINT, then its exit status in $SERVE_RC.
serve_stop() {
	kill -INT "$SERVE_PID"
	SERVE_RC=0
	wait "$SERVE_PID" || SERVE_RC=$?
	SERVE_PID=""
}

test_serve_http() {
	local code
	nginx_stop
	serve_start --listen "$SRV" --stats-json "$WORK/serve.json" "$WORK/rec.pcap"
	wait_port 80
	# The recorded curl commands again: the recorded bodies, byte for byte, and the 404.
	in_a $T curl -sf -o "$WORK/a.out" "http://$SRV/a.txt" -o "$WORK/b.out" "http://$SRV/b.bin" ||
		die "curl against replay serve: $(cat "$WORK/serve.err")"
	cmp "$WORK/a.out" "$WORK/www/a.txt" || die "a.txt served differs"
	cmp "$WORK/b.out" "$WORK/www/b.bin" || die "b.bin served differs"
	code=$(in_a $T curl -s -o /dev/null -w '%{http_code}' "http://$SRV/missing.txt")
	[ "$code" = 404 ] || die "the recorded 404 came back as $code"
	code=$(in_a $T curl -s -o "$WORK/post.out" -w '%{http_code}' -d "name=value&x=1" "http://$SRV/index.html")
	[ "$code" = 405 ] || die "the recorded POST's 405 came back as $code"
	# Another client than recorded (another User-Agent): matched by its request line.
	in_a $T curl -sf -A "other-agent/1.0" -o "$WORK/a2.out" "http://$SRV/a.txt" || die "curl -A"
	cmp "$WORK/a2.out" "$WORK/www/a.txt" || die "a.txt served to another client differs"
	# A request recorded only as the second of a keep-alive connection, on a connection of its own.
	in_a $T curl -sf -A "other-agent/1.0" -o "$WORK/b2.out" "http://$SRV/b.bin" || die "curl -A b.bin"
	cmp "$WORK/b2.out" "$WORK/www/b.bin" || die "b.bin served on a connection of its own differs"
	sleep 0.3
	serve_stop
	[ "$SERVE_RC" -eq 0 ] || die "replay serve exited $SERVE_RC: $(cat "$WORK/serve.out" "$WORK/serve.err")"
	grep -q "^Verdicts: ok 5," "$WORK/serve.out" || die "replay serve's summary: $(cat "$WORK/serve.out")"
	"$PY" - "$WORK/serve.json" <<'PY' || die "serve JSON: $(cat "$WORK/serve.json")"
import json, sys
j = json.load(open(sys.argv[1]))
m = [c["match"] for c in j["conversations"]]
assert j["role"] == "serve" and len(m) == 5, m
assert m[:3] == ["exact"] * 3 and m[3:] == ["prefix"] * 2, m
PY
	nginx_start "$SRV" "$WORK/www"
}

# dns_payloads PCAP: the UDP payloads from port 53 in the capture, hex, one a line.
dns_payloads() {
	"$PY" - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
le = d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
e = "<" if le else ">"
off = 24
while off + 16 <= len(d):
    _, _, cap, _ = struct.unpack(e + "IIII", d[off:off + 16])
    f = d[off + 16:off + 16 + cap]
    off += 16 + cap
    if len(f) < 42 or f[12:14] != b"\x08\x00" or f[23] != 17:
        continue
    ihl = (f[14] & 15) * 4
    u = f[14 + ihl:]
    if struct.unpack(">H", u[0:2])[0] == 53:
        print(u[8:].hex())
PY
}

test_serve_dns() {
	local got want
	serve_start --stats-json "$WORK/dns.json" "$TRACES/dns.pcap"
	wait_port 53 udp
	: >"$WORK/dns.err"
	ip netns exec "$NS_A" tcpdump -i "$IF_A" -s 0 -U --immediate-mode -w "$WORK/dig.pcap" udp port 53 2>"$WORK/dns.err" &
	TD_PID=$!
	wait_listening "$TD_PID" "$WORK/dns.err" tcpdump
	[ "$(in_a $T dig +short +tries=1 +time=3 @"$SRV" www.example.com A)" = 192.0.2.80 ] || die "dig A"
	[ "$(in_a $T dig +short +tries=1 +time=3 @"$SRV" www.example.com AAAA)" = 2001:db8::80 ] || die "dig AAAA"
	in_a $T dig +tries=1 +time=3 @"$SRV" nosuch.example.com A | grep -q "status: NXDOMAIN" || die "dig NXDOMAIN"
	sleep 0.3
	kill -TERM "$TD_PID"; wait "$TD_PID" || true; TD_PID=""
	serve_stop
	[ "$SERVE_RC" -eq 0 ] || die "replay serve (DNS) exited $SERVE_RC: $(cat "$WORK/serve.out" "$WORK/serve.err")"
	# Byte for byte the recorded answers, but for the ID (the first two bytes), which is dig's.
	want=$(dns_payloads "$TRACES/dns.pcap" | cut -c5-)
	got=$(dns_payloads "$WORK/dig.pcap" | cut -c5-)
	[ -n "$want" ] && [ "$got" = "$want" ] || die "DNS answers differ: recorded
$want
served
$got"
	# Both roles at once: the recorded client (UDP, one flow of three queries) against the recorded server.
	serve_start "$TRACES/dns.pcap"
	wait_port 53 udp
	in_a $T "$REPLAY" live --stats-json "$WORK/dnslive.json" "$TRACES/dns.pcap" >"$WORK/out" 2>&1 ||
		die "replay live against replay serve (DNS): $(cat "$WORK/out")"
	serve_stop
	[ "$(json_conv "$WORK/dnslive.json" 'j["conversations"][0]["proto"] + " " + j["conversations"][0]["verdict"]')" = "udp ok" ] ||
		die "DNS live: $(cat "$WORK/out")"
}

# The recorded client packets themselves, from a host that does not own the client address
# (its kernel would reset the server's SYN/ACKs); the server reaches it by a static neighbour.
test_exact() {
	local js="$WORK/exact.json" before after mac
	mac=$(ip -n "$NS_A" -o link show "$IF_A" | grep -o "link/ether [0-9a-f:]*" | cut -d" " -f2)
	ip -n "$NS_A" addr del "$CLI/24" dev "$IF_A"
	ip -n "$NS_B" neigh replace "$CLI" lladdr "$mac" dev "$IF_B" nud permanent
	before=$(wc -l <"$WORK/nginx/access.log")
	: >"$WORK/exact.err"
	ip netns exec "$NS_B" tcpdump -i "$IF_B" -s 128 -U --immediate-mode -w "$WORK/exact-srv.pcap" tcp port 80 2>"$WORK/exact.err" &
	TD_PID=$!
	wait_listening "$TD_PID" "$WORK/exact.err" tcpdump
	in_a $T "$REPLAY" live --exact -i "$IF_A" "${MASKS[@]}" --stats-json "$js" "$WORK/rec.pcap" >"$WORK/out" 2>"$WORK/err" ||
		die "replay live --exact exited $?: $(cat "$WORK/out" "$WORK/err")"
	sleep 0.3
	kill -TERM "$TD_PID"; wait "$TD_PID" || true; TD_PID=""
	[ "$(json_conv "$js" 'j["verdicts"]["ok"]')" -eq 8 ] || die "--exact: $(cat "$WORK/out")"
	json_conv "$js" 'all(c["connect_ns"] is not None for c in j["conversations"])' | grep -qx True ||
		die "--exact: a handshake did not complete: $(cat "$js")"
	# No RST from the sending host, and every request in the server's log once more.
	[ "$(tcpdump -nr "$WORK/exact-srv.pcap" "src host $CLI and tcp[tcpflags] & tcp-rst != 0" 2>/dev/null | wc -l)" -eq 0 ] ||
		die "the sending host reset a connection: $(tcpdump -nr "$WORK/exact-srv.pcap" 2>/dev/null | grep -F "[R" | head)"
	after=$(wc -l <"$WORK/nginx/access.log")
	[ $((after - before)) -eq 18 ] || die "--exact: $((after - before)) requests reached nginx, 18 were recorded"
	ip -n "$NS_B" neigh del "$CLI" dev "$IF_B"
	ip -n "$NS_A" addr add "$CLI/24" dev "$IF_A"
}

make_docroot "$WORK/www" same
nginx_start "$SRV" "$WORK/www"
record
run_tests ${LIVE_TESTS:-test_replay_same test_source_range test_replay_other_content test_bad_servers test_bad_input \
	test_exact test_serve_http test_serve_dns}
