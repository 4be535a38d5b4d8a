#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Build the Debian packages from a copy of this tree (dpkg-buildpackage -us -uc -b):
# replay (the programs), libreplay0 (the shared library), libreplay-dev (header,
# link, pkg-config file) and python3-replay (the Python package and its pytest
# plugin).  Let lintian check them (no errors allowed), check what each holds and
# needs, then use them: extracted into a scratch root always -- the programs run,
# a C program built against the library and run, the Python package used -- and
# installed with dpkg -i (removed again at exit) when run as root: the programs
# alone first, then the library's packages.  Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

die() { echo "check-package: $*" >&2; exit 1; }
for tool in dpkg-buildpackage dh lintian; do
	command -v $tool >/dev/null || die "$tool is missing (scripts/deps.sh installs it)"
done

version=$(dpkg-parsechangelog -S Version)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
pkgs=(replay libreplay0 libreplay-dev python3-replay)
work=$(mktemp -d /tmp/replay-pkg.XXXXXX)
installed=""
cleanup() {
	local rc=$?
	[ -n "$installed" ] && dpkg --purge "${pkgs[@]}" >/dev/null 2>&1 || true
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT

# A clean copy: no build directories, no git metadata.
mkdir "$work/replay-$version"
tar -C "$src" --exclude='./build*' --exclude=./.git --exclude='./obj-*' -cf - . |
	tar -C "$work/replay-$version" -xf -
(cd "$work/replay-$version" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -n 60 "$work/build.log" >&2; die "dpkg-buildpackage failed (log above)"; }
declare -A debs
for p in "${pkgs[@]}"; do
	debs[$p]=$(ls "$work/${p}_${version}"_*.deb 2>/dev/null) || die "no $p package was built"
	echo "check-package: built $(basename "${debs[$p]}")"
done
deb=${debs[replay]}
changes=$(ls "$work"/replay_"$version"_*.changes)

lintian --fail-on error --tag-display-limit 0 "$changes" >"$work/lintian.log" 2>&1 ||
	{ cat "$work/lintian.log" >&2; die "lintian reports errors"; }
grep -E "^[EW]: " "$work/lintian.log" || true
echo "check-package: lintian: no errors"

# has PACKAGE PATH...: each path (an extended regex) is a file of PACKAGE's .deb.
has() {
	local p=$1 contents
	shift
	contents=$(dpkg-deb -c "${debs[$p]}")
	for f in "$@"; do
		grep -qE " \./$f( -> .*)?\$" <<<"$contents" || die "$p lacks /$f"
	done
}
# lacks PACKAGE REGEX: no file of PACKAGE matches.
lacks() {
	local hits
	hits=$(dpkg-deb -c "${debs[$1]}" | grep -E " \./($2)" || true)
	[ -z "$hits" ] || die "$1 holds what is not its own: $hits"
}
has replay usr/bin/replay usr/bin/replay-rx usr/bin/replay-veth-check usr/bin/replay-bridge-check \
	usr/share/man/man1/replay.1.gz usr/share/man/man1/replay-rx.1.gz \
	usr/share/man/man1/replay-veth-check.1.gz usr/share/man/man1/replay-bridge-check.1.gz \
	usr/share/bash-completion/completions/replay usr/share/bash-completion/completions/replay-rx \
	usr/share/zsh/vendor-completions/_replay usr/share/zsh/vendor-completions/_replay-rx \
	usr/share/doc/replay/README.Debian usr/share/doc/replay/copyright
lacks replay 'usr/lib/|usr/include/|usr/share/man/man3/'
has libreplay0 "usr/lib/$multiarch/libreplay\.so\.0\.[0-9.]+" "usr/lib/$multiarch/libreplay\.so\.0" \
	usr/share/doc/libreplay0/copyright
lacks libreplay0 "usr/bin/|usr/include/|usr/lib/$multiarch/libreplay\.so |usr/lib/python"
has libreplay-dev usr/include/libreplay.h "usr/lib/$multiarch/libreplay\.so" \
	"usr/lib/$multiarch/pkgconfig/libreplay\.pc" usr/share/man/man3/libreplay.3.gz
lacks libreplay-dev "usr/bin/|usr/lib/$multiarch/libreplay\.so\.0"
has python3-replay usr/lib/python3/dist-packages/replay/__init__.py \
	usr/lib/python3/dist-packages/replay/pytest_plugin.py
lacks python3-replay 'usr/bin/|usr/lib/[^p]|.*__pycache__'
# What each needs: the programs link the engine statically; the library's users need it.
! dpkg-deb -f "$deb" Depends | grep -q libreplay || die "replay depends on libreplay0, which it does not use"
dpkg-deb -f "${debs[libreplay-dev]}" Depends | grep -qF "libreplay0 (= $version)" ||
	die "libreplay-dev must depend on libreplay0 (= $version)"
dpkg-deb -f "${debs[python3-replay]}" Depends | grep -qF "libreplay0 (>= $version)" ||
	die "python3-replay must depend on libreplay0 (>= $version)"
dpkg-deb -f "${debs[python3-replay]}" Depends | grep -qE "(^|, )python3(,|$| )" ||
	die "python3-replay must depend on python3"
dpkg-deb -I "${debs[libreplay0]}" symbols | grep -q "replay_run_exec@LIBREPLAY_0" ||
	die "libreplay0 has no symbols file"

# run_from ROOT: --version and a dry run with the programs under ROOT/usr/bin.
run_from() {
	local bin=$1/usr/bin out="$work/dry.pcap"
	"$bin/replay" --version | grep -qx "replay ${version%%-*}" || die "$bin/replay --version"
	"$bin/replay-rx" --version | grep -qx "replay-rx ${version%%-*}" || die "$bin/replay-rx --version"
	"$bin/replay" -q -w "$out" "$src/traces/dns.pcap" || die "$bin/replay: the dry run failed"
	# The same frames as the build tree's replay writes (timestamps are the run's own).
	if [ -x "$src/build/replay" ] && [ -x "$src/build/pcapdiff" ]; then
		"$src/build/replay" -q -w "$work/ref.pcap" "$src/traces/dns.pcap"
		"$src/build/pcapdiff" "$out" "$work/ref.pcap" >/dev/null ||
			die "$bin/replay: the dry run's frames differ from build/replay's"
	fi
	"$bin/replay-rx" -q -r "$out" --reference "$out" || die "$bin/replay-rx: checking the dry run failed"
	"$bin/replay-veth-check" --help >/dev/null || die "$bin/replay-veth-check --help"
	"$bin/replay-bridge-check" --help >/dev/null || die "$bin/replay-bridge-check --help"
	rm -f "$out"
	echo "check-package: $bin: --version, dry run, replay-rx -r: ok"
}

# A user of the library, as libreplay(3)'s example: a dry run, its count printed.
cat >"$work/user.c" <<'C'
#include <stdio.h>
#include <libreplay.h>

int main(int argc, char **argv)
{
	const char *args[] = { "replay", "-q", "-w", argv[1], argv[2] };
	struct replay_run *run;
	struct replay_stats st;

	if (argc != 3 || replay_run_new_argv(&run, 5, args, NULL) < 0 || replay_run_exec(run) < 0 ||
	    replay_run_stats(run, &st, sizeof(st)) < 0)
		return 1;
	printf("%s %llu\n", replay_version(), (unsigned long long)st.packets_sent);
	replay_run_free(run);
	return 0;
}
C
# The trace's packets, counted here: what both users must report.
dns_packets=$(python3 -c 'import sys
d, o, n = open(sys.argv[1], "rb").read(), 24, 0
while o + 16 <= len(d):
    o += 16 + int.from_bytes(d[o + 8:o + 12], "little")
    n += 1
print(n)' "$src/traces/dns.pcap")
want="${version%%-*} $dns_packets"

# lib_from ROOT: user.c built with ROOT's header, pkg-config file and library, and
# run; the Python package over ROOT's library.  ROOT "" is the system.
lib_from() {
	local root=$1 pc flags got
	pc=(env PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$root/usr/lib/$multiarch/pkgconfig:$root/usr/share/pkgconfig")
	[ -n "$root" ] || pc=()
	flags=$("${pc[@]}" pkg-config --cflags --libs libreplay) || die "${root:-/}: pkg-config finds no libreplay"
	# shellcheck disable=SC2086 # the flags are words
	cc -Wall -Werror -o "$work/user" "$work/user.c" $flags ||
		die "${root:-/}: a program does not build against libreplay-dev (flags: $flags)"
	got=$(LD_LIBRARY_PATH="${root:+$root/usr/lib/$multiarch}" "$work/user" "$work/lib.pcap" "$src/traces/dns.pcap") ||
		die "${root:-/}: the program built against libreplay failed"
	[ "$got" = "$want" ] || die "${root:-/}: the program built against libreplay says '$got', not '$want'"
	# Debian's own interpreter: the package is for its dist-packages (and python3-pytest),
	# whatever other python3 comes first on PATH.
	got=$(env ${root:+LIBREPLAY="$root/usr/lib/$multiarch/libreplay.so.0"} \
		${root:+PYTHONPATH="$root/usr/lib/python3/dist-packages"} /usr/bin/python3 -c 'import sys, replay, replay.pytest_plugin
s = replay.Replay(sys.argv[2], write=sys.argv[1]).run()
print(replay.library_version(), s.packets_sent)' "$work/lib.pcap" "$src/traces/dns.pcap") ||
		die "${root:-/}: the Python package failed"
	[ "$got" = "$want" ] || die "${root:-/}: the Python package says '$got', not '$want'"
	rm -f "$work/lib.pcap" "$work/user"
	echo "check-package: ${root:-/}: a C program over libreplay-dev, the Python package: ok"
}

for p in "${pkgs[@]}"; do
	dpkg-deb -x "${debs[$p]}" "$work/root"
done
run_from "$work/root"
lib_from "$work/root"

if [ "$(id -u)" = 0 ]; then
	already=""
	for p in "${pkgs[@]}"; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			already+=" $p"
		fi
	done
	if [ -n "$already" ]; then
		echo "check-package: already installed:$already; dpkg -i skipped"
	else
		installed=yes
		# The programs alone: they need none of the library's packages.
		dpkg -i "$deb" >/dev/null
		run_from ""
		# Installed where the shells look.
		[ -f /usr/share/bash-completion/completions/replay ] || die "no bash completion installed"
		man -w replay >/dev/null 2>&1 || [ ! -x /usr/bin/man ] || die "man -w replay finds no page"
		dpkg -i "${debs[libreplay0]}" "${debs[libreplay-dev]}" "${debs[python3-replay]}" >/dev/null
		lib_from ""
		man -w 3 libreplay >/dev/null 2>&1 || [ ! -x /usr/bin/man ] || die "man -w 3 libreplay finds no page"
		dpkg --purge "${pkgs[@]}" >/dev/null
		installed=""
		echo "check-package: dpkg -i (the programs, then the library's packages), run, dpkg --purge: ok"
	fi
elif [ "${CI:-}" = true ]; then
	die "CI must run this as root (dpkg -i)"
fi
echo "check-package: passed"
