#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Build the Debian package from a copy of this tree (dpkg-buildpackage -us -uc -b),
# let lintian check it (no errors allowed), then run the installed programs:
# extracted into a scratch root always, and installed with dpkg -i (removed again
# at exit) when run as root.  Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

die() { echo "check-package: $*" >&2; exit 1; }
for tool in dpkg-buildpackage dh lintian; do
	command -v $tool >/dev/null || die "$tool is missing (scripts/deps.sh installs it)"
done

version=$(dpkg-parsechangelog -S Version)
work=$(mktemp -d /tmp/replay-pkg.XXXXXX)
installed=""
cleanup() {
	local rc=$?
	[ -n "$installed" ] && dpkg --purge replay >/dev/null 2>&1 || true
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
deb=$(ls "$work"/replay_"$version"_*.deb)
changes=$(ls "$work"/replay_"$version"_*.changes)
echo "check-package: built $(basename "$deb")"

lintian --fail-on error --tag-display-limit 0 "$changes" >"$work/lintian.log" 2>&1 ||
	{ cat "$work/lintian.log" >&2; die "lintian reports errors"; }
grep -E "^[EW]: " "$work/lintian.log" || true
echo "check-package: lintian: no errors"

# What the package holds.
contents=$(dpkg-deb -c "$deb")
for f in usr/bin/replay usr/bin/replay-rx usr/bin/replay-veth-check \
	usr/share/man/man1/replay.1.gz usr/share/man/man1/replay-rx.1.gz \
	usr/share/man/man1/replay-veth-check.1.gz \
	usr/share/bash-completion/completions/replay usr/share/bash-completion/completions/replay-rx \
	usr/share/zsh/vendor-completions/_replay usr/share/zsh/vendor-completions/_replay-rx \
	usr/share/doc/replay/README.Debian usr/share/doc/replay/copyright; do
	grep -q " \./$f\$" <<<"$contents" || die "the package lacks /$f"
done

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
	rm -f "$out"
	echo "check-package: $bin: --version, dry run, replay-rx -r: ok"
}

dpkg-deb -x "$deb" "$work/root"
run_from "$work/root"

if [ "$(id -u)" = 0 ]; then
	if dpkg-query -W -f='${Status}' replay 2>/dev/null | grep -q "install ok installed"; then
		echo "check-package: a replay package is already installed; dpkg -i skipped"
	else
		installed=yes
		dpkg -i "$deb" >/dev/null
		run_from ""
		# Installed where the shells look.
		[ -f /usr/share/bash-completion/completions/replay ] || die "no bash completion installed"
		man -w replay >/dev/null 2>&1 || [ ! -x /usr/bin/man ] || die "man -w replay finds no page"
		dpkg --purge replay >/dev/null
		installed=""
		echo "check-package: dpkg -i, run, dpkg --purge: ok"
	fi
elif [ "${CI:-}" = true ]; then
	die "CI must run this as root (dpkg -i)"
fi
echo "check-package: passed"
