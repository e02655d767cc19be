#!/usr/bin/env bash
# A bounded run of the rules-parser fuzzers (make fuzz runs them for as long as asked).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
if ! ls "$BUILD"/fuzz/fuzz_* >/dev/null 2>&1; then
	echo "SKIP: fuzz_rules: no fuzzers built (clang with libFuzzer missing?)"
	exit 0
fi
RUNS=${FUZZ_RUNS:-30000} tests/fuzz/run.sh "$BUILD"
