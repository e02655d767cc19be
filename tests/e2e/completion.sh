#!/usr/bin/env bash
# bash completion (dist/bash-completion/xdp-ratelimit) against the command table, so that the two
# cannot drift: every command, subcommand and option 'xdp-ratelimit -j help' lists completes,
# each option value of an enum (--mode native|generic) completes after it, and an interface
# completes where the usage line has IFACE. Needs bash-completion (scripts/deps.sh), not root.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then skip completion "needs bash-completion ($bc)"; exit 0; fi
# shellcheck disable=SC1090
source "$bc"
# shellcheck source=dist/bash-completion/xdp-ratelimit
source "$ROOT/dist/bash-completion/xdp-ratelimit"

# comp LINE: what completing the end of LINE offers, one a line.
comp() {
	local COMP_LINE=$1 COMP_POINT=${#1} COMP_WORDS COMP_CWORD COMPREPLY=()
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_xdp_ratelimit xdp-ratelimit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}
# offers NAME LINE WORD: completing LINE offers WORD.
offers() {
	if comp "$2" | grep -qxF -- "$3"; then pass "$1"; else fail "$1" "'$2<TAB>' offers $(comp "$2" | tr '\n' ' '), not '$3'"; fi
}

table=$("$XRL" -j help) || { fail "xdp-ratelimit -j help" "exit $?"; finish; }
n=0
for cmd in $(jq -r '.commands[].command' <<<"$table"); do
	offers "command $cmd" "xdp-ratelimit " "$cmd"
	n=$((n + 1))
	usage=$(jq -r --arg c "$cmd" '.commands[] | select(.command == $c) | .usage' <<<"$table")
	[[ $usage == "xdp-ratelimit $cmd IFACE"* ]] && offers "$cmd IFACE: an interface" "xdp-ratelimit $cmd " lo
	for sub in $(jq -r --arg c "$cmd" '.commands[] | select(.command == $c) | .subcommands[]?.command' <<<"$table"); do
		offers "$cmd subcommand $sub" "xdp-ratelimit $cmd " "$sub"
		offers "$cmd $sub IFACE: an interface" "xdp-ratelimit $cmd $sub " lo
	done
	while IFS=$'\t' read -r opt value; do
		[ -n "$opt" ] || continue
		offers "$cmd --$opt" "xdp-ratelimit $cmd --" "--$opt"
		n=$((n + 1))
		[[ $value == *'|'* ]] || continue
		for v in ${value//|/ }; do offers "$cmd --$opt $v" "xdp-ratelimit $cmd --$opt " "$v"; done
	done < <(jq -r --arg c "$cmd" '.commands[] | select(.command == $c) | .options[] | [.name, .value // ""] | @tsv' <<<"$table")
done
# The checks above can fail: a word the table does not have is not offered.
if comp "xdp-ratelimit " | grep -qx frobnicate; then fail "no made-up command" "frobnicate offered"; else pass "no made-up command"; fi
expect_range "commands and options in the table, each checked" "$n" 20 1000
offers "a rule may be a dst rule" "xdp-ratelimit rule add lo " dst
offers "a port rule may be narrowed to a destination" "xdp-ratelimit rule add lo port 53/udp " dst
offers "a dst rule's words after its address" "xdp-ratelimit rule add lo dst 192.0.2.0/24 " rate
offers "a rule may begin with a field" "xdp-ratelimit rule add lo " sport
offers "a rule of several fields: another field" "xdp-ratelimit rule add lo proto udp sport 53 " length
offers "a rule of several fields: its rate" "xdp-ratelimit rule add lo proto udp sport 53 " rate
offers "a rule of several windows: another rate" "xdp-ratelimit rule add lo port 53/udp rate 20/s " rate
offers "a rate's own window" "xdp-ratelimit rule add lo port 53/udp rate 20/s rate 600/min " window
offers "tcp flags" "xdp-ratelimit rule add lo proto tcp tcp " flags
offers "a TCP flag" "xdp-ratelimit rule add lo proto tcp tcp flags " ack
offers "a fragment state" "xdp-ratelimit rule add lo frag " later
offers "a DSCP name" "xdp-ratelimit rule add lo dscp " ef
offers "what a rule counts by" "xdp-ratelimit rule add lo proto udp sport 53 rate 1/s per " src,dport
if comp "xdp-ratelimit rule add lo proto udp sport 53 rate 1/s " | grep -qx sport; then
	fail "no field after the rate" "sport offered after 'rate 1/s'"
else pass "no field after the rate"; fi
offers "a file after apply IFACE" "xdp-ratelimit apply lo $ROOT/dist/exa" "$ROOT/dist/example.conf"
finish
