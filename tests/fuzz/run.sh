#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS (or RUNS inputs when RUNS is set), under ASan and UBSan.
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
set -u
build=$1 secs=${2:-60}
failed=0
for h in "$build"/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	name=$(basename "$h")
	corpus="$build/fuzz/corpus-$name"
	mkdir -p "$corpus"
	cp -n tests/fuzz/seeds/* "$corpus"/ 2>/dev/null
	if [ -n "${RUNS:-}" ]; then lim="-runs=$RUNS"; else lim="-max_total_time=$secs"; fi
	if "$h" "$lim" -max_len=512 -timeout=5 -artifact_prefix="$build/fuzz/$name-" "$corpus" >"$build/fuzz/$name.log" 2>&1; then
		execs=$(grep -o 'Done [0-9]* runs' "$build/fuzz/$name.log" | grep -o '[0-9]*')
		echo "PASS: $name: ${execs:-?} inputs, no crash, no leak"
	else
		echo "FAIL: $name: see $build/fuzz/$name.log"; tail -20 "$build/fuzz/$name.log"
		failed=1
	fi
done
exit $failed
