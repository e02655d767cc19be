# shellcheck shell=bash
# Shared by the end-to-end tests: results, the lab (tools/lab.sh), cleanup.
# Contract with tests/run.sh: print PASS:/FAIL:/SKIP: lines, exit non-zero on any failure.
set -u
# The labs' interfaces and namespaces have fixed names, so one e2e script runs at a time on a
# machine, whichever tree it comes from (worktrees, the bench): each script re-runs itself under
# the lock. -o: the processes a test starts (a daemon it forgets) never hold it.
if [ -z "${XRL_LAB_LOCKED:-}" ]; then
	export XRL_LAB_LOCKED=1
	exec flock -o /tmp/xrl-lab.lock "$BASH" "$0" "$@"
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tools/lab.sh
. "$ROOT/tools/lab.sh"
BUILD=${BUILD:-$ROOT/build}
# shellcheck disable=SC2034 # XRL and UDP: for the tests that source this
XRL=$BUILD/xdp-ratelimit UDP=$BUILD/xrl-udp
failures=0
# "${KILLABLE[@]}" COMMAND...: COMMAND, which the test SIGKILLs at a random moment, with no leak
# check at its exit under make SANITIZE=1 (ASan and UBSan stay on), and the same pid (env execs
# it). LeakSanitizer stops the process's threads from a tracer of its own at exit; a SIGKILL
# landing there leaves the tracer writing "Unable to get registers from thread N" into a report
# file, or the file empty: a finding of the kill, not of the command (tests/run.sh fails on any
# report). Outside a sanitized build the option is ignored.
# shellcheck disable=SC2034 # for the tests that source this
KILLABLE=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failures=$((failures + 1)); }
skip() { echo "SKIP: $1: $2"; }
# check NAME COMMAND...: PASS when the command succeeds; what it printed shows when it fails.
check() {
	local n=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$n"; else fail "$n" "'$*' failed: $out"; fi
}
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# conforms DEF COMMAND...: its -j document is DEF of docs/json-schema.json.
conforms() {
	local def=$1 out why
	shift
	out=$("$@" 2>/dev/null)
	if why=$(python3 "$ROOT/tests/e2e/json_check.py" "$ROOT/docs/json-schema.json" "$def" <<<"$out" 2>&1); then
		pass "$* -j conforms to the schema's $def"
	else
		fail "$* -j conforms to the schema's $def" "$why"
	fi
}
# expect_err NAME CODE PATTERN COMMAND...: exit code CODE and PATTERN (grep -E) in what it printed.
expect_err() {
	local n=$1 code=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && grep -qE -- "$pat" <<<"$out"; then pass "$n"
	else fail "$n" "exit $rc, printed: $out"; fi
}
# expect_range NAME GOT LO HI
expect_range() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then pass "$1 ($2 in $3..$4)"
	else fail "$1" "got $2, want $3..$4"; fi
}

# lab_undo COMMAND... (tools/lab.sh) runs COMMAND when the test exits, however it exits.
trap lab_cleanup EXIT
trap 'exit 130' INT TERM

# needs_root SUITE: skips the whole suite visibly when not root or tools are missing.
needs_root() {
	if [ "$(id -u)" -ne 0 ]; then skip "$1" "needs root (XDP, network namespaces)"; exit 0; fi
	if ! command -v ip >/dev/null; then skip "$1" "needs iproute2"; exit 0; fi
	lab_bpffs
}

# veth_lab NS HOST_IF PEER_IF NET4 NET6: tools/lab.sh's lab_clients. HOST_IF keeps .1 in the
# root namespace; PEER_IF and addresses .2 .. .5 (and NET6::2) go to NS.
veth_lab() { lab_clients "$@" || fail "lab" "cannot build the veth lab in $1"; }

# lab_prologue SUITE NS HOST_IF PEER_IF NET4 NET6: what most suites start with. needs_root SUITE,
# veth_lab NS HOST_IF PEER_IF NET4 NET6, the limiter unloaded from HOST_IF at the end, and dir: a
# temporary folder removed at the end.
lab_prologue() {
	needs_root "$1"
	shift
	veth_lab "$@"
	lab_undo "$XRL unload $2"
	dir=$(mktemp -d)
	lab_undo "rm -rf $dir"
}

# raw_lab SUITE NS HOST_IF PEER_IF NET4 NET6: lab_prologue, then what a suite that sends frames
# of its own from PEER_IF needs: RAW (build/xrl-rawsend, a FAIL when missing), python3 (a SKIP
# without it; tests/e2e/frames.py builds the frames), and HMAC and PMAC, the MAC addresses of
# HOST_IF and PEER_IF.
raw_lab() {
	lab_prologue "$@"
	RAW=$BUILD/xrl-rawsend
	if [ ! -x "$RAW" ]; then fail "$1" "$RAW is missing: build it first (make)"; finish; fi
	if ! command -v python3 >/dev/null; then skip "$1" "needs python3 (scripts/deps.sh installs it)"; exit 0; fi
	# shellcheck disable=SC2034 # HMAC and PMAC: for the suites that call this
	HMAC=$(cat "/sys/class/net/$3/address") PMAC=$(ip netns exec "$2" cat "/sys/class/net/$4/address")
}

# recv_bg FILE ADDR PORT SECONDS: "xrl-udp recv ADDR PORT SECONDS" in the background into FILE,
# its pid in rx. Returns once the receiver has bound its port (it prints "ready" first), so
# that nothing sent afterwards is lost for want of a socket, however slowly it started; its
# SECONDS count from then. A receiver not ready within 10 s is a FAIL.
recv_bg() {
	local f=$1
	shift
	# A FILE used before still says "ready" until the new receiver's shell truncates it, which
	# may come late on a busy machine: the wait would pass at once, and the datagrams sent then
	# find no socket (chain.sh's 199 of 200).
	rm -f "$f"
	$UDP recv "$@" >"$f" &
	# shellcheck disable=SC2034 # for the caller
	rx=$!
	lab_wait 10 grep -qx ready "$f" || fail "receiver on $1 port $2" "not ready within 10 s"
}

# pin_dir IFACE [NS]: where the instance loaded on IFACE (in NS) has its pins, from status -j.
pin_dir() {
	local in=()
	[ -n "${2:-}" ] && in=(nsenter --net="/run/netns/$2")
	"${in[@]}" "$XRL" -j status | jq -r --arg i "$1" '.interfaces[] | select(.interface == $i and .this_netns) | .pin_dir // empty'
}

# traffic_on IFACE [N]: returns once the program on IFACE has seen N frames (200 unless told)
# more than when called: a sender started in the background is going through it, however late a
# busy machine started it. A FAIL if not within 5 s.
traffic_on() {
	local want
	want=$(($("$XRL" -j stats "$1" | json .counters.seen) + ${2:-200}))
	lab_wait 5 seen_reach "$1" "$want" || fail "traffic on $1" "fewer than ${2:-200} frames within 5 s"
}
seen_reach() { [ "$("$XRL" -j stats "$1" | json .counters.seen)" -ge "$2" ]; }

# judged IFACE MATCH...: the frames the rules of IFACE with these matches have judged (passed and
# blocked, from stats -j).
judged() {
	local i=$1
	shift
	"$XRL" -j stats "$i" | jq '[.rules[] | select(.match | IN($ARGS.positional[])) | .passed + .blocked] | add // 0' --args "$@"
}
# judged_wait N IFACE MATCH...: returns once those rules have judged N frames in all, the frames a
# test sent: the figures it reads next are final. A FAIL if not within 5 s.
judged_wait() {
	local n=$1
	shift
	lab_wait 5 judged_reach "$n" "$@" || fail "frames judged on $1" "$(judged "$@") of $n within 5 s"
}
judged_reach() {
	local n=$1
	shift
	[ "$(judged "$@")" -ge "$n" ]
}

# free_port: a TCP port free on the loopback now, for a server the test starts.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# json FILTER: one value out of JSON on stdin.
json() { jq -r "$1"; }

finish() { [ "$failures" -eq 0 ]; exit $?; }
