#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The benchmark rig, for a few seconds, so that it cannot rot unnoticed: the
# generator delivers frames, the counters at both ends add up, the limiter's
# stats agree with the receiving driver's. Prints PASS, FAIL or SKIP (not
# root, or a kernel without what the rig needs). Usage: bench_smoke.sh [BUILD_DIR]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec "$root/bench/run.sh" --smoke "${1:-$root/build}"
