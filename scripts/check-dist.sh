#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# check-dist.sh TARBALL: the release tarball (meson dist) is complete on its own:
# unpacked in a scratch directory, it configures, builds and passes its unit tests.
set -euo pipefail
tarball=$(realpath "${1:?usage: check-dist.sh TARBALL}")
work=$(mktemp -d /tmp/replay-dist.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xf "$tarball"
dir=$(echo "$work"/*/)
[ -f "$dir/meson.build" ] || { echo "check-dist: $tarball holds no meson.build" >&2; exit 1; }
meson setup "$work/build" "$dir" -Dwerror=true >/dev/null
ninja -C "$work/build" >/dev/null
meson test -C "$work/build" --suite unit --print-errorlogs --timeout-multiplier 4 >"$work/test.log" 2>&1 ||
	{ cat "$work/test.log" >&2; echo "check-dist: unit tests fail from $(basename "$tarball")" >&2; exit 1; }
grep -E "^(Ok|Fail):" "$work/test.log"
echo "check-dist: $(basename "$tarball") builds and passes its unit tests"
