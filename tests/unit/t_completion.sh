#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The shell completions generated from the option tables complete every
# option each program's --help lists (the list is taken from --help, not from
# the generator), and complete values: interfaces for -i, files for -w, the
# words of an "a|b" argument.  bash: the completion function is called as
# bash-completion would, with COMP_WORDS.  zsh (if installed): the file is
# valid zsh, and the _arguments specs it passes name every option.  After
# "replay bridge" the words complete as its own: its options and interfaces.
set -euo pipefail
: "${REPLAY:?}" "${REPLAY_RX:?}" "${COMPLETION_DIR:?}"

fail() { echo "FAIL: $*" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# help_options PROG [SUBCOMMAND]: every long and short option in PROG [SUBCOMMAND] --help, one a line.
help_options() {
	"$@" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z0-9-]+' | tr ',' ' ' | tr -s ' ' '\n' |
		grep -v '^$'
}

# bash_complete FN WORD...: COMPREPLY, one a line, for the command line WORD... (last is completed).
bash_complete() {
	local fn=$1
	shift
	bash -c 'source "$1"; fn=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		"$fn"; printf "%s\n" "${COMPREPLY[@]}"' _ "$FILE" "$fn" "$@"
}

check_bash() {
	local prog=$1 fn=$2 n got
	FILE="$COMPLETION_DIR/$prog"
	[ -f "$FILE" ] || fail "$FILE was not generated"
	bash -n "$FILE" || fail "$FILE is not valid bash"
	help_options "$3" >"$TMP/opts"
	# One shell for every option (a shell each is slow on a loaded machine): each must
	# be offered for the command line "PROG OPTION<TAB>"; the misses are printed.
	got=$(bash -c 'source "$1"; while read -r opt; do COMP_WORDS=("$3" "$opt"); COMP_CWORD=1
		"$2"; printf "%s\n" "${COMPREPLY[@]}" | grep -qxF -- "$opt" || echo "$opt"; done <"$4"' \
		_ "$FILE" "$fn" "$prog" "$TMP/opts")
	[ -z "$got" ] || fail "bash: $prog: these options do not complete: $got"
	n=$(wc -l <"$TMP/opts")
	[ "$n" -gt 15 ] || fail "bash: only $n options checked for $prog"
	# A prefix offers exactly the options that start with it.
	got=$(bash_complete "$fn" "$prog" --ver)
	[ "$(sort <<<"$got" | tr '\n' ' ')" = "--verbose --version " ] || fail "bash: --ver gives '$got'"
	echo "bash: $prog: $n options complete"
}

check_zsh() {
	local prog=$1 opt n=0 specs
	command -v zsh >/dev/null || { echo "zsh: not installed, not checked"; return 0; }
	FILE="$COMPLETION_DIR/_$prog"
	zsh -n "$FILE" || fail "$FILE is not valid zsh"
	head -n1 "$FILE" | grep -qx "#compdef $prog" || fail "$FILE: no #compdef line"
	# Run the completion function with _arguments replaced by one that prints its specs.
	specs=$(zsh -f -c '_arguments() { printf "%s\n" "$@"; }; source "$1"' _ "$FILE")
	while read -r opt; do
		grep -qE -- "^\*?${opt}[+=]?(\[|$)" <<<"$specs" || fail "zsh: $prog: no spec for $opt"
		n=$((n + 1))
	done < <(help_options "$2")
	echo "zsh: $prog: $n options in the specs"
}

check_bash replay _replay "$REPLAY"
check_bash replay-rx _replay_rx "$REPLAY_RX"
check_zsh replay "$REPLAY"
check_zsh replay-rx "$REPLAY_RX"

# Values.
FILE="$COMPLETION_DIR/replay"
bash_complete _replay replay -i l | grep -qx lo || fail "bash: 'replay -i l<TAB>' does not offer lo"
bash_complete _replay replay --intf1 = l | grep -qx lo || fail "bash: 'replay --intf1=l<TAB>' does not offer lo"
[ "$(bash_complete _replay replay --enet-vlan '' | sort | tr '\n' ' ')" = "add del " ] ||
	fail "bash: --enet-vlan does not offer add, del"
bash_complete _replay replay -w "$COMPLETION_DIR/_repl" | grep -qx "$COMPLETION_DIR/_replay" ||
	fail "bash: -w does not complete file names"
[ -z "$(bash_complete _replay replay --pps '')" ] || fail "bash: --pps N offers something"
bash_complete _replay replay pr | grep -qx prep || fail "bash: 'replay pr<TAB>' does not offer prep"
bash_complete _replay replay se | grep -x serve >/dev/null || fail "bash: 'replay se<TAB>' does not offer serve"
bash_complete _replay replay li | grep -x live >/dev/null || fail "bash: 'replay li<TAB>' does not offer live"
# replay bridge: its own options after "bridge", interfaces as its operands, none of replay's.
help_options "$REPLAY" bridge >"$TMP/bopts"
got=$(bash -c 'source "$1"; while read -r opt; do COMP_WORDS=(replay bridge "$opt"); COMP_CWORD=2
	_replay; printf "%s\n" "${COMPREPLY[@]}" | grep -qxF -- "$opt" || echo "$opt"; done <"$2"' \
	_ "$FILE" "$TMP/bopts")
[ -z "$got" ] || fail "bash: replay bridge: these options do not complete: $got"
[ "$(wc -l <"$TMP/bopts")" -gt 60 ] || fail "bash: only $(wc -l <"$TMP/bopts") options checked for replay bridge"
[ "$(bash_complete _replay replay bridge --ttl-a)" = "--ttl-ab" ] || fail "bash: 'replay bridge --ttl-a<TAB>' does not give --ttl-ab"
[ -z "$(bash_complete _replay replay bridge --pps)" ] || fail "bash: 'replay bridge --pps<TAB>' offers replay's option"
bash_complete _replay replay bridge --ttl 3 l | grep -qx lo || fail "bash: 'replay bridge --ttl 3 l<TAB>' does not offer lo"
[ "$(bash_complete _replay replay bridge --enet-vlan-ba '' | sort | tr '\n' ' ')" = "add del " ] ||
	fail "bash: replay bridge --enet-vlan-ba does not offer add, del"
if command -v zsh >/dev/null; then
	specs=$(zsh -f -c 'words=(replay bridge x); CURRENT=3; _arguments() { printf "%s\n" "$@"; }; source "$1"' \
		_ "$COMPLETION_DIR/_replay")
	while read -r opt; do
		grep -qE -- "^\*?${opt}[+=]?(\[|$)" <<<"$specs" || fail "zsh: replay bridge: no spec for $opt"
	done <"$TMP/bopts"
	! grep -qE -- "^\*?--pps" <<<"$specs" || fail "zsh: replay bridge: replay's --pps among its specs"
fi
echo "replay bridge: $(wc -l <"$TMP/bopts") options complete"
FILE="$COMPLETION_DIR/replay-rx"
[ "$(bash_complete _replay_rx replay-rx --plot "$COMPLETION_DIR/gen-completion.")" = "$COMPLETION_DIR/gen-completion.p" ] ||
	fail "bash: replay-rx --plot does not complete directories only"
echo "PASS"
