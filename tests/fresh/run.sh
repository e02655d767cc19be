#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/fresh/run.sh BUILD_DIR: the README's two commands, literally, on a fresh minimal Debian 12.
# debootstraps 'minbase' bookworm into BUILD_DIR/fresh/root (no make, no compiler, the apt lists
# emptied), from the mirror this machine's apt uses, copies the tree git tracks into it, and runs
# './run demo' then './run test' there, chrooted (into a bind mount of the folder), with /proc,
# /sys (bpffs and BTF with it) and /dev of the host and a /run of its own. Prints PASS:/FAIL:/SKIP: lines and how long each step took. It downloads and
# builds everything from nothing (about 5 minutes), so it is 'make test-fresh', a step of
# .ci/run of its own, not part of 'make test'. XRL_E2E_LOCK=FILE: hold that flock around the two
# commands (the lab's fixed names collide with other worktrees' tests on a shared machine).
set -u
build=${1:?usage: tests/fresh/run.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/fresh"
fresh=$(cd "$build/fresh" && pwd)
root=$fresh/root
failures=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failures=$((failures + 1)); }
skip() { echo "SKIP: $1: $2"; }

if [ "$(id -u)" -ne 0 ]; then skip fresh "needs root (debootstrap, chroot, XDP)"; exit 0; fi
if ! command -v debootstrap >/dev/null; then skip fresh "needs debootstrap (scripts/deps.sh installs it)"; exit 0; fi

# shellcheck source=tests/fresh/chroot.sh
. "$top/tests/fresh/chroot.sh"
cleanup() { chroot_remove "$root"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mirror=$(chroot_mirror)

cleanup
t0=$(date +%s)
if ! chroot_debootstrap "$root" "$fresh/debootstrap.log"; then
	fail "debootstrap minbase bookworm from $mirror" "$(tail -5 "$fresh/debootstrap.log")"
	exit 1
fi
t1=$(date +%s)
pass "debootstrap --variant=minbase bookworm ($((t1 - t0)) s, from $mirror)"

for tool in make gcc clang; do
	if chroot "$root" sh -c "command -v $tool" >/dev/null; then fail "the fresh machine has no $tool" "it has"; fi
done

# The tree as git tracks it (committed or not), as a clone would have it.
mkdir -p "$root/src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) | tar -x -C "$root/src"

chroot_mount "$root" || { fail "mounts in $root" "see above"; exit 1; }

lock=()
[ -n "${XRL_E2E_LOCK:-}" ] && lock=(flock "$XRL_E2E_LOCK")
for cmd in "./run demo" "./run test"; do
	# The time counts from when the lock is held: waiting for another worktree's tests is not ours.
	# shellcheck disable=SC2016 # $0 and $@ are that sh's
	"${lock[@]}" sh -c 'date +%s >"$0" && exec "$@"' "$fresh/t0" \
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
		sh -c "cd /src && $cmd" >"$fresh/${cmd#./run }.log" 2>&1
	rc=$?
	t1=$(date +%s)
	t0=$(cat "$fresh/t0" 2>/dev/null || echo "$t1")
	if [ $rc -eq 0 ]; then
		pass "'$cmd' on the fresh machine ($((t1 - t0)) s; log: $fresh/${cmd#./run }.log)"
	else
		fail "'$cmd' on the fresh machine" "exit $rc after $((t1 - t0)) s: $(tail -15 "$fresh/${cmd#./run }.log")"
	fi
done
grep -E '^tests: ' "$fresh/test.log" || fail "'./run test' summary" "no 'tests:' line in $fresh/test.log"
[ "$failures" -eq 0 ]
