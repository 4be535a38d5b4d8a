#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every file a run reads is an input no output may overwrite: the traces,
# the --load-opts files, the -c cache, the --prep sidecar, the --impair
# traces (and replay-rx's -r, --reference, --send-log).  A run that would is
# refused before anything is written (--save-opts included): one line
# naming both, exit 2, the input byte for byte as it was, no output made.
# No root needed.
set -euo pipefail
: "${REPLAY:?}" "${REPLAY_RX:?}" "${TRACE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

cp "$TRACE" t.pcap
cp "$TRACE" t.orig
printf 'loop = 2\n' >c.conf
cp c.conf c.orig
cp "$TRACE" x.cache
cp x.cache x.orig
ln -s t.pcap link.pcap

# refused WANT INPUT ORIG -- ARGS...: exit 2, one line matching WANT, INPUT unchanged, no o.* made.
refused() {
	local want=$1 input=$2 orig=$3 rc=0
	shift 4
	"$@" >out 2>err || rc=$?
	[ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2; stderr: $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "'$*': not one line: $(cat err)"
	grep -qE -- "$want" err || fail "'$*': stderr lacks /$want/: $(cat err)"
	cmp -s "$input" "$orig" || fail "'$*' changed $input"
	[ ! -e o.pcap ] && [ ! -e o.json ] || fail "'$*' wrote an output"
}

refused "^replay: --save-opts t.pcap: is the same file as the input t.pcap; refusing to overwrite an input$" \
	t.pcap t.orig -- "$REPLAY" --save-opts t.pcap -w o.pcap t.pcap
refused "^replay: --save-opts link.pcap: is the same file as the input t.pcap" \
	t.pcap t.orig -- "$REPLAY" --save-opts link.pcap -w o.pcap t.pcap
refused "^replay: -w x.cache: is the same file as the -c x.cache; refusing to overwrite an input$" \
	x.cache x.orig -- "$REPLAY" -c x.cache -e 10.1.1.1:10.2.2.2 -w x.cache t.pcap
refused "^replay: --stats-json x.cache: is the same file as the -c x.cache" \
	x.cache x.orig -- "$REPLAY" -c x.cache -e 10.1.1.1:10.2.2.2 -w o.pcap --stats-json x.cache t.pcap
refused "^replay: -w c.conf: is the same file as the --load-opts c.conf; refusing to overwrite an input$" \
	c.conf c.orig -- "$REPLAY" --load-opts c.conf -w c.conf t.pcap
refused "^replay: --save-opts c.conf: is the same file as the --load-opts c.conf" \
	c.conf c.orig -- "$REPLAY" --load-opts c.conf --save-opts c.conf
refused "^replay: --send-log c.conf: is the same file as the --load-opts c.conf" \
	c.conf c.orig -- "$REPLAY" --load-opts=c.conf -w o.pcap --send-log c.conf t.pcap
refused "^replay: -w x.cache: is the same file as the --prep x.cache" \
	x.cache x.orig -- "$REPLAY" --prep x.cache -w x.cache t.pcap
refused "^replay: -o t.pcap: is the same file as the input t.pcap" \
	t.pcap t.orig -- "$REPLAY" prep t.pcap -o t.pcap
refused "^replay-rx: -w t.pcap: is the same file as the -r t.pcap; refusing to overwrite an input$" \
	t.pcap t.orig -- "$REPLAY_RX" -r t.pcap -w t.pcap
refused "^replay-rx: --json link.pcap: is the same file as the --reference t.pcap" \
	t.pcap t.orig -- "$REPLAY_RX" -r "$TRACE" --reference t.pcap --json link.pcap

# The check compares files, not names: distinct ones still run.
"$REPLAY" -q --load-opts c.conf -w o.pcap t.pcap || fail "a run with distinct files failed"
[ -s o.pcap ] || fail "no -w output"
"$REPLAY" --load-opts c.conf --save-opts s.conf 2>/dev/null || fail "--save-opts to a new file failed"
grep -q '^loop' s.conf || fail "--save-opts did not keep the loaded option"
echo "ok"
