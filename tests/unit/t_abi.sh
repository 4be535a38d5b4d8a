#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# libreplay.so's ABI against the one checked in (src/lib/libreplay.abi, abidw's
# output): a change that breaks a program linked against libreplay.so.0 (a
# function gone, a type of include/libreplay.h changed) fails.  Added functions
# pass; regenerate the dump with them:
#   abidw --no-corpus-path --no-comp-dir-path --header-file include/libreplay.h \
#     --drop-private-types --exported-interfaces-only build/src/lib/libreplay.so.0 \
#     --out-file src/lib/libreplay.abi
set -euo pipefail
: "${LIBREPLAY:?}" "${HEADER:?}" "${BASELINE:?}"
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
	[ "${CI:-}" = true ] && { echo "FAIL: abigail-tools is not installed (scripts/deps.sh)" >&2; exit 1; }
	echo "SKIP: abigail-tools is not installed"
	exit 77
fi
work=$(mktemp -d /tmp/replay-abi.XXXXXX)
trap 'rm -rf "$work"' EXIT
abidw --no-corpus-path --no-comp-dir-path --header-file "$HEADER" --drop-private-types \
	--exported-interfaces-only "$LIBREPLAY" --out-file "$work/now.abi"
rc=0
abidiff --no-added-syms "$BASELINE" "$work/now.abi" >"$work/report" 2>&1 || rc=$?
# abidiff's status bits: 1 error, 2 usage, 4 a change, 8 an incompatible change.
if [ $((rc & 11)) -ne 0 ]; then
	cat "$work/report" >&2
	echo "FAIL: libreplay.so's ABI broke against src/lib/libreplay.abi (abidiff status $rc)" >&2
	exit 1
fi
[ "$rc" -eq 0 ] || cat "$work/report"
echo "PASS: libreplay.so's ABI as checked in"
