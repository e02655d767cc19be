#!/usr/bin/env bash
# ./run, the README's entry point, is plain POSIX sh (a fresh Debian has dash, no make), and
# explains itself: with no target it prints its usage (exit 2), without root it says to use
# sudo (exit 1) before it installs or builds anything. tests/fresh/run.sh ('make test-fresh')
# runs it on a debootstrapped Debian 12; this is the cheap check.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
run=$ROOT/run
if ! command -v dash >/dev/null; then skip run_entry "needs dash"; exit 0; fi
check "./run parses as POSIX sh (dash -n)" dash -n "$run"
if command -v shellcheck >/dev/null; then check "./run is clean for shellcheck -s sh" shellcheck -s sh "$run"
else skip "./run under shellcheck -s sh" "needs shellcheck"; fi
expect_err "./run with no target prints its usage" 2 "usage: ./run demo \| ./run test" dash "$run"
if [ "$(id -u)" -ne 0 ]; then
	skip "./run without root" "the test runs as a user already; needs root to drop to one"
elif ! command -v setpriv >/dev/null; then
	skip "./run without root" "needs setpriv (util-linux)"
else
	# A copy the user can read: the tree may sit where only root can (a clone in a mktemp -d).
	copy=$(mktemp -d)
	lab_undo rm -rf "$copy"
	chmod 755 "$copy" && cp "$run" "$copy/run" && chmod 755 "$copy/run"
	expect_err "./run without root says to use sudo, and does nothing" 1 "try 'sudo ./run test'" \
		setpriv --reuid=65534 --regid=65534 --clear-groups dash "$copy/run" test
	expect_eq "... not even a file beside it" "$(ls "$copy")" run
fi
expect_eq "the README's two commands are ./run demo and ./run test" \
	"$(grep -cE '^\./run (demo|test) ' "$ROOT/README.md")" 2
expect_eq ".ci/run runs the README's test command" "$(grep -cx './run test' "$ROOT/.ci/run")" 1
# A fresh Debian root that make test-fresh left in the build folder (interrupted) holds folders
# named *.d (etc/apparmor.d): make read them as dependency files and stopped ("Is a directory").
if command -v make >/dev/null; then
	out=$(mktemp -d)
	lab_undo rm -rf "$out"
	mkdir -p "$out/fresh/root/etc/apparmor.d"
	check "make works beside a fresh root left in the build folder" make -n -C "$ROOT" OUT="$out" all
else skip "make beside a fresh root" "needs make"; fi
finish
