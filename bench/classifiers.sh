#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/classifiers.sh [BUILD_DIR]: issue 34's classifiers side by side (LBVS, a
# linear scan, a HiCuts tree; bench/classifiers.c) by BPF_PROG_TEST_RUN, no lab:
# the table on stdout and in BUILD_DIR/bench/classifiers.txt. About a minute.
# make bench runs it (bench/run.sh; XRLB_ONLY=classifiers: it alone). XRLB_REPS:
# runs a row (default 3). Needs root.
set -Eeuo pipefail
# One lab user at a time (tests/e2e/lib.sh): no test's traffic on the CPU it measures.
if [ -z "${XRL_LAB_LOCKED:-}" ]; then
	export XRL_LAB_LOCKED=1
	exec flock -o /tmp/xrl-lab.lock "$BASH" "$0" "$@"
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${1:-$here/../build}
bin=$BUILD/bench/classifiers
if [ ! -x "$bin" ]; then
	echo "classifiers: $bin is missing: run make first" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "classifiers: needs root (BPF_PROG_TEST_RUN): run 'sudo make bench'" >&2
	exit 1
fi
runs=${XRLB_REPS:-3}
[ "$runs" -le 15 ] || runs=15
"$bin" -r "$runs" | tee "$BUILD/bench/classifiers.txt"
