#!/usr/bin/env bash
# A name is not a path: every command refuses names that are no interface's ('..',
# '../../../../tmp/victim', 'a/b', '', too long...) before it builds a path from them, and
# unload never removes what xdp-ratelimit did not make, in its own folder or elsewhere.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
needs_root hostile_names

VICTIM=$(mktemp -d /tmp/xrl-victim.XXXXXX)
lab_undo "rm -rf $VICTIM"
touch "$VICTIM/precious"
# A pin of another tool's at the top of bpffs, and one in a folder under our root.
bpftool map create /sys/fs/bpf/xrlh_canary type array key 4 value 4 entries 1 name xrlh_canary
lab_undo "rm -f /sys/fs/bpf/xrlh_canary"
rule=(port 53/udp rate 10/s)
rules=$(mktemp)
lab_undo "rm -f $rules"
echo "port 53/udp rate 10/s" >"$rules"

# What a path could be made of: up, across, empty, too long, separators, spaces, control characters.
names=(".." "." "../../../../tmp/victim" "${VICTIM#/}" "../../../..$VICTIM" "a/b" "" "abcdefghijklmnop"
	"a b" "a:b" $'a\nb' $'\t')
names[3]="../../../..${VICTIM}"
for name in "${names[@]}"; do
	shown=$(printf '%q' "$name")
	for cmd in "load" "unload" "dump" "stats" "explain --src 10.0.0.1" "rule add" "rule del" "rule list" \
		"apply" "apply --check" "demo"; do
		read -ra words <<<"$cmd"
		args=("${words[@]}" "$name")
		case $cmd in
		"rule add") args+=("${rule[@]}") ;;
		"rule del") args+=(port 53/udp) ;;
		apply*) args+=("$rules") ;;
		explain*) args=(explain "$name" --src 10.0.0.1) ;;
		esac
		out=$("$XRL" "${args[@]}" 2>&1)
		rc=$?
		if [ $rc -eq 2 ] && grep -qE "not an interface name|cannot be empty" <<<"$out"; then
			pass "$cmd $shown is refused as no interface name"
		else
			fail "$cmd $shown is refused as no interface name" "exit $rc: $out"
		fi
	done
	out=$("$XRL" -j unload "$name" 2>&1)
	if jq -e '.error | test("interface name|cannot be empty")' <<<"$out" >/dev/null; then
		pass "-j unload $shown: the refusal in JSON"
	else fail "-j unload $shown: the refusal in JSON" "$out"; fi
done
check "the victim folder and its file are still there" test -f "$VICTIM/precious"
check "another tool's pin at the top of bpffs is still there" test -e /sys/fs/bpf/xrlh_canary

# A pin folder holding something we did not make: unload removes nothing, and says what is there.
ip link add xrlh0 type veth peer name xrlh1 && lab_undo "ip link del xrlh0"
lab_undo "$XRL unload xrlh0"
check "load on a veth" "$XRL" load xrlh0 --mode generic
pins=$(pin_dir xrlh0)
[[ $pins == /sys/fs/bpf/xdp-ratelimit/net* ]] || { fail "the pin folder" "status gave '$pins'"; finish; }
bpftool map create "$pins/foreign" type array key 4 value 4 entries 1 name foreign
lab_undo "rm -f $pins/foreign"
out=$("$XRL" unload xrlh0 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q "holds 'foreign', which xdp-ratelimit did not make: nothing was removed" <<<"$out"; then
	pass "unload refuses a folder holding a stranger, naming it"
else fail "unload refuses a folder holding a stranger, naming it" "exit $rc: $out"; fi
check "the stranger is still there" test -e "$pins/foreign"
check "... and so are our pins" test -e "$pins/link"
rm -f "$pins/foreign"
check "without the stranger, unload works" "$XRL" unload xrlh0
check "... and removes the folder" test ! -e "$pins"
finish
