#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Run every test, as CI does: install what is missing, build with -Werror,
# run the unit and integration suites, then again under ASan+UBSan, and
# lint the man pages.  Integration tests need root; under CI=true a
# skipped integration test is a failure.
#
#   scripts/test.sh           the complete check, exactly what CI runs
#   scripts/test.sh --quick   the -Werror build and its unit, golden, fuzz-corpus and
#                             integration suites only: no release compiles, sanitizer
#                             pass, fuzzing, man-page lint, package or tarball
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=0
case "$*" in
"") ;;
--quick) QUICK=1 ;;
-h | --help)
	sed -n '3,11s/^# \{0,1\}//p' "$0"
	exit 0
	;;
*)
	echo "test: unknown argument '$*' (scripts/test.sh [--quick])" >&2
	exit 2
	;;
esac

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

# fuzz_all DIR SECONDS: run every libFuzzer target in DIR (fuzz_NAME) for SECONDS from its
# seed corpus (tests/fuzz/corpus/NAME); new inputs go to a scratch directory, crashes to
# DIR/crashes/ (and fail the run).  tests/fuzz/NAME.options, if there, holds more libFuzzer
# flags for that target (-max_len for inputs past libFuzzer's default of 4096 bytes).
fuzz_all() {
	local dir=$1 secs=$2 f name work opts
	mkdir -p "$dir/crashes"
	for f in "$dir"/tests/fuzz/fuzz_*; do
		[ -x "$f" ] && [ -f "$f" ] || continue
		name=$(basename "$f")
		work=$(mktemp -d)
		opts=()
		[ -f "tests/fuzz/${name#fuzz_}.options" ] && read -ra opts <"tests/fuzz/${name#fuzz_}.options"
		log "fuzzing $name for ${secs}s ${opts[*]}"
		if ! "$f" "${opts[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$dir/crashes/$name-" "$work" "tests/fuzz/corpus/${name#fuzz_}" \
			>"$dir/$name.log" 2>&1; then
			tail -n 40 "$dir/$name.log" >&2
			echo "test: $name found a crash; the input is in $dir/crashes/" >&2
			rm -rf "$work"
			exit 1
		fi
		grep -E "^stat::number_of_executed_units" "$dir/$name.log" || true
		rm -rf "$work"
	done
}

if [ "$QUICK" = 1 ]; then
	log "build (gcc, -Werror)"
	setup_build build -Dwerror=true
	run_suites build
	log "quick check passed (not run: release compiles, ASan+UBSan, fuzzing, man pages, package, tarball)"
	exit 0
fi

# Release builds compile with warnings as errors too, with both compilers: a warning
# that appears only at -O3 (or without -O) fails here, not in a user's or packager's
# build.  Compile only, in their own build directories.
for cc in gcc clang; do
	for bt in release plain; do
		log "compile ($cc, --buildtype=$bt, -Werror)"
		CC=$cc setup_build "build-$cc-$bt" --buildtype=$bt -Dwerror=true -Dtests=disabled
	done
done

log "build (gcc, -Werror)"
setup_build build -Dwerror=true
run_suites build

log "build with AddressSanitizer + UndefinedBehaviorSanitizer"
setup_build build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	run_suites build-asan

# libFuzzer needs clang; its own build directory, every object with ASan+UBSan.
# CI fuzzes each target for 20 s (30 targets, ten minutes: the whole check stays under an hour), a
# local run for 10 s.
log "fuzz build (clang, libFuzzer, ASan+UBSan)"
CC=clang setup_build build-fuzz -Dfuzz=true -Db_lundef=false
ASAN_OPTIONS=detect_leaks=1 meson test -C build-fuzz --suite fuzz --print-errorlogs
fuzz_all build-fuzz "$([ "${CI:-}" = true ] && echo 20 || echo 10)"

log "man pages"
mandoc -Tlint -Wwarning man/*.1 man/*.5

log "Debian package (build, lintian, install, run)"
scripts/check-package.sh

log "release tarball (meson dist: builds and runs the unit tests from it)"
meson dist -C build --no-tests --allow-dirty --formats xztar >/dev/null
scripts/check-dist.sh build/meson-dist/replay-*.tar.xz

log "all tests passed"
