#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Install what building and testing replay needs, from Debian's packages,
# if any of it is missing.  Idempotent; quiet when everything is there.
set -euo pipefail

PKGS=(
	# build
	meson ninja-build pkg-config gcc clang libclang-rt-14-dev
	libpcap-dev libnet1-dev liburing-dev libbpf-dev libxdp-dev libcmocka-dev
	zlib1g-dev libzstd-dev liblzma-dev liblz4-dev libbz2-dev # compressed traces
	# tests and comparisons
	iproute2 tcpdump tshark wireshark-common tcpreplay netsniff-ng ethtool util-linux mandoc librsvg2-bin time
	abigail-tools # libreplay_abi: libreplay.so's ABI against the dump checked in
	python3-pytest # t_python: the Python package's pytest plugin and examples/
	gzip zstd xz-utils lz4 bzip2 # tests: compressed traces
	nftables # scripts/bench: a far-side packet counter
	stress-ng # scripts/bench/timing.sh: the loaded variant
	rt-tests # scripts/bench/timing.sh: cyclictest, the machine's floor
	libxml2-utils # tests: xmllint checks replay-rx's SVG figures
	nginx-light curl netcat-openbsd bind9-dnsutils # t_live: replay live and serve against real programs; t_bridge: HTTP through it
	iputils-ping # t_bridge: ping's round trip through the bridge
	wrk # scripts/bench/live.sh: what the server can take
	# packaging (scripts/check-package.sh), running without root (t_caps), completions
	debhelper dpkg-dev fakeroot lintian build-essential libcap2-bin zsh man-db
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
