#!/usr/bin/env bash
# explain, in text and JSON: it exits 0 with nothing on stderr (under make SANITIZE=1, the text
# mode's leak of a JSON array was a LeakSanitizer finding, exit 1); what it says of a source with
# no window: with the cap on new sources not reached, or not set, its next packet creates one (the
# sketch only where the cap is reached, which tests/e2e/source_flood.sh checks during its flood).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

NS=xrle-x
lab_prologue explain $NS xrlx0 xrlx1 10.224.0 fd00:224
RULE=(port 7000/udp rate 100/s window 1s per-source)

# explain_ok WHAT ARGS...: explain ARGS exits 0 with nothing on stderr; its stdout in $dir/out.
explain_ok() {
	local what=$1 rc
	shift
	"$XRL" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	expect_eq "$what: exit 0, nothing on stderr" "$rc:$(cat "$dir/err")" "0:"
}
# says WHAT PATTERN: the text explain printed has PATTERN (grep -F).
says() { if grep -qF -- "$2" "$dir/out"; then pass "$1"; else fail "$1" "no '$2' in: $(cat "$dir/out")"; fi; }
says_not() { if grep -qF -- "$2" "$dir/out"; then fail "$1" "'$2' in: $(cat "$dir/out")"; else pass "$1"; fi; }

check "load (the cap on new sources: --max-keys by default)" "$XRL" load xrlx0
check "a per-source rule" "$XRL" rule add xrlx0 "${RULE[@]}"
explain_ok "explain (text) of a new source" explain xrlx0 --src 10.224.0.2 --dport 7000/udp
says "... it has no window yet, its next packet creates one" \
	"0 passed, 0 blocked of 100 allowed per 1000ms (no window yet: its next packet creates one); next packet passes"
says_not "... the cap is not reached: no word of the sketch" sketch
explain_ok "explain -j of a new source" -j explain xrlx0 --src 10.224.0.2 --dport 7000/udp
expect_eq "... untracked, no sketch estimate" "$(jq -c '.rules[0] | [.tracked, .sketch_estimate]' "$dir/out")" "[false,null]"
$UDP send -n $NS 10.224.0.2 10.224.0.1 7000 1000 1 5 >/dev/null
explain_ok "explain (text) of a source with a window" explain xrlx0 --src 10.224.0.2 --dport 7000/udp
says "... its window" "5 passed, 0 blocked of 100 allowed per 1000ms; next packet passes"
explain_ok "explain (text) of a source no rule matches" explain xrlx0 --src 10.224.0.3 --dport 7001/udp
says "... says so" "no rule matches: it passes unlimited"

check "unload" "$XRL" unload xrlx0
check "load --new-keys 0 (no cap)" "$XRL" load xrlx0 --new-keys 0
check "a per-source rule" "$XRL" rule add xrlx0 "${RULE[@]}"
explain_ok "no cap: explain (text) of a new source" explain xrlx0 --src 10.224.0.4 --dport 7000/udp
says "... no window yet, its next packet creates one" "(no window yet: its next packet creates one)"
says_not "... no word of the sketch or a cap" cap
finish
