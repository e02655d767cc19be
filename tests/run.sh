#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/run.sh BUILD_DIR [SUITE...]: runs every test binary in BUILD_DIR/tests/{unit,prog}
# (cmocka), then every tests/e2e/*.sh but lib.sh, which they source (BUILD is exported, and
# BUILD_DIR is also $1; they print "PASS: name", "FAIL: name: why" or "SKIP: name: why" and
# exit non-zero on a failure). SUITEs (unit, prog, e2e) pick some; all by default. Ends with
# one line "tests: N passed, N failed, N skipped" and exits non-zero if anything failed,
# crashed, hung or reported nothing.
set -u

build=${1:?usage: tests/run.sh BUILD_DIR [unit] [prog] [e2e]}
shift
suites=" ${*:-unit prog e2e} "
e2e_dir=$(dirname "$0")/e2e
BUILD=$(cd "$build" 2>/dev/null && pwd) || BUILD=$build
export BUILD
limit=${TEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0 binaries=0

# Under make SANITIZE=1 (ASan, UBSan, LeakSanitizer) a finding fails the suite wherever it
# happens, even in a command whose exit status or stderr its test does not look at: every report
# goes to a file in $san (log_path), looked for after each binary and script; and a sanitized
# process exits 86 (ASan, leaks) or 87 (UBSan), never the 1 or 2 a test may expect. The
# caller's options come first, ours win. Unsanitized binaries ignore all of it.
san=$(mktemp -d "${TMPDIR:-/tmp}/xrl-sanitizers.XXXXXX") || exit 1
trap 'rm -rf "$san"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:exitcode=86:log_path=$san/report"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1:exitcode=87:log_path=$san/report"
# sanitizer_reports NAME: a FAIL for NAME, with each report, when sanitized processes reported.
sanitizer_reports() {
	local r
	for r in "$san"/report*; do
		[ -f "$r" ] || continue
		if [ -s "$r" ]; then
			echo "FAIL: $1: sanitizer report ($(basename "$r")):"
			sed 's/^/    /' "$r"
		else # opened, never written: its process was SIGKILLed as it began to report
			echo "FAIL: $1: sanitizer report ($(basename "$r")) left empty: a process was killed as it began a report; a test that SIGKILLs one at a random moment starts it with \"\${KILLABLE[@]}\" (tests/e2e/lib.sh)"
		fi
		rm -f "$r"
		failed=$((failed + 1))
	done
}

# count OUT REGEX: the sum of the numbers N in every match of REGEX (which has N) in OUT.
count() {
	grep -oE "$2" <<<"$1" | grep -oE '[0-9]+' | awk '{ n += $1 } END { print n + 0 }'
}

for t in "$build"/tests/unit/* "$build"/tests/prog/*; do
	[[ -f $t && -x $t && $suites == *" $(basename "$(dirname "$t")") "* ]] || continue
	binaries=$((binaries + 1))
	echo "== $t"
	out=$(timeout "$limit" "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if ! grep -qE '\[  PASSED  \] [0-9]+ test\(s\)' <<<"$out"; then
		echo "FAIL: $t: no cmocka summary (exit status $rc)"
		failed=$((failed + 1))
		sanitizer_reports "$t"
		continue
	fi
	# " N FAILED TEST(S)" counts setup errors too; "[  FAILED  ] N test(s)" does not.
	p=$(count "$out" '\[  PASSED  \] [0-9]+ test\(s\)')
	f=$(count "$out" '[0-9]+ FAILED TEST\(S\)')
	s=$(count "$out" '\[  SKIPPED \] [0-9]+ test\(s\)')
	if ((rc != 0 && f == 0)); then
		echo "FAIL: $t: exit status $rc with no failed test"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	sanitizer_reports "$t"
done

if ((binaries == 0)) && [[ $suites == *" unit "* || $suites == *" prog "* ]]; then
	echo "FAIL: no test binaries in $build/tests: build them first (make)"
	failed=$((failed + 1))
fi

for t in "$e2e_dir"/*.sh; do
	[[ -f $t && $(basename "$t") != lib.sh && $suites == *" e2e "* ]] || continue
	echo "== $t"
	out=$(timeout "$limit" bash "$t" "$build" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(grep -c '^PASS: ' <<<"$out") f=$(grep -c '^FAIL: ' <<<"$out") s=$(grep -c '^SKIP: ' <<<"$out")
	if ((rc != 0 && f == 0)) || ((p + f + s == 0)); then
		echo "FAIL: $t: exit status $rc, $((p + f + s)) results"
		f=$((f + 1))
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	sanitizer_reports "$t"
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
