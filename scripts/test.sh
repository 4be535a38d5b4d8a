#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Run every test, as CI does: install what is missing, build with -Werror,
# run the unit and integration suites, then again under ASan+UBSan, and
# lint the man pages.  Integration tests need root; under CI=true a
# skipped integration test is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh

log() { echo "== $*"; }

# setup_build DIR [MESON OPTIONS...]: configure once, reconfigure if options changed.
setup_build() {
	local dir=$1
	shift
	if [ -d "$dir" ]; then
		meson configure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir"
}

# check_no_skips DIR: fail if an integration test skipped where it must run.
check_no_skips() {
	local log="$1/meson-logs/testlog.json"
	if [ "${CI:-}" = true ] && grep -q '"result": "SKIP"' "$log"; then
		grep '"result": "SKIP"' "$log" | grep -o '"name": "[^"]*"' >&2
		echo "test: integration tests were skipped in CI" >&2
		exit 1
	fi
}

run_suites() {
	local dir=$1
	meson test -C "$dir" --suite unit --print-errorlogs
	meson test -C "$dir" --suite golden --print-errorlogs
	meson test -C "$dir" --suite fuzz --print-errorlogs
	meson test -C "$dir" --suite integration --print-errorlogs --num-processes 1
	check_no_skips "$dir"
}

log "build (gcc, -Werror)"
setup_build build -Dwerror=true
run_suites build

log "build with AddressSanitizer + UndefinedBehaviorSanitizer"
setup_build build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_suites build-asan

log "man pages"
mandoc -Tlint -Wwarning man/*.1

log "all tests passed"
