#!/usr/bin/env bash
# make install and make uninstall, into a DESTDIR: exactly the files expected (the binary in
# sbin, two man pages, bash completion, every unit of systemd/, the example configuration),
# with their modes; the man pages render without a groff warning, show the version from VERSION
# and name every command and option of the command table; an example configuration of the
# user's is never overwritten; uninstall removes exactly what install put there, never a
# configuration of the user's. No root needed.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip install "needs man-db and groff (scripts/deps.sh installs them)"
	exit 0
fi
d=$(mktemp -d)
lab_undo "rm -rf $d"
version=$(cat "$ROOT/VERSION")
# shellcheck disable=SC2317 # inst and uninst run through check
inst() { make -s --no-print-directory -C "$ROOT" install DESTDIR="$1" "${@:2}" >/dev/null 2>&1; }
# shellcheck disable=SC2317
uninst() { make -s --no-print-directory -C "$ROOT" uninstall DESTDIR="$1" "${@:2}" >/dev/null 2>&1; }
files() { (cd "$1" && find . ! -type d -printf '%m %P\n' | sort -k2); }

want=$( {
	echo "644 etc/xdp-ratelimit/example.conf"
	for u in "$ROOT"/systemd/*.service "$ROOT"/systemd/*.timer "$ROOT"/systemd/*.socket; do
		[ -e "$u" ] && echo "644 usr/local/lib/systemd/system/${u##*/}"
	done
	echo "755 usr/local/sbin/xdp-ratelimit"
	echo "644 usr/local/share/bash-completion/completions/xdp-ratelimit"
	echo "644 usr/local/share/man/man5/xdp-ratelimit.conf.5"
	echo "644 usr/local/share/man/man8/xdp-ratelimit.8"
} | sort -k2)
check "make install DESTDIR" inst "$d/a"
expect_eq "... installs exactly these files, with these modes" "$(files "$d/a")" "$want"
expect_eq "... the binary is the version in VERSION" "$("$d/a/usr/local/sbin/xdp-ratelimit" --version)" \
	"xdp-ratelimit $version"
expect_eq "... units name the installed binary" \
	"$(grep -ho '/[^ =]*sbin/xdp-ratelimit' "$d"/a/usr/local/lib/systemd/system/* | sort -u)" /usr/local/sbin/xdp-ratelimit
expect_eq "... and no placeholder is left" "$(grep -rlI '@[A-Z]*@' "$d/a")" ""

for page in man8/xdp-ratelimit.8 man5/xdp-ratelimit.conf.5; do
	f=$d/a/usr/local/share/man/$page
	expect_eq "$page: groff -man -ww warns of nothing" "$(groff -man -ww -z "$f" 2>&1)" ""
	text=$(MANWIDTH=80 man -l "$f" 2>"$d/man.err")
	expect_eq "$page: man -l renders it, silently" "$(cat "$d/man.err")" ""
	expect_eq "$page: shows the version" "$(grep -c "xdp-ratelimit $version" <<<"$text")" 1
done
# The man page and the command table cannot drift: every command and option is in it.
page=$(MANWIDTH=200 man -l "$d/a/usr/local/share/man/man8/xdp-ratelimit.8" 2>/dev/null)
table=$("$XRL" -j help)
missing=""
for cmd in $(jq -r '.commands[].command' <<<"$table"); do
	grep -qE "^ +$cmd( |$)" <<<"$page" || missing+=" $cmd"
	for sub in $(jq -r --arg c "$cmd" '.commands[] | select(.command == $c) | .subcommands[]?.command' <<<"$table"); do
		grep -qE "^ +$cmd $sub( |$)" <<<"$page" || missing+=" $cmd-$sub"
	done
	for opt in $(jq -r --arg c "$cmd" '.commands[] | select(.command == $c) | .options[].name' <<<"$table"); do
		grep -qE -- "--$opt( |$)" <<<"$page" || missing+=" $cmd--$opt"
	done
done
expect_eq "xdp-ratelimit(8) has every command and option of 'xdp-ratelimit -j help'" "$missing" ""
for s in "EXIT STATUS" FILES EXAMPLES "SURVIVING A REBOOT"; do
	expect_eq "xdp-ratelimit(8) has $s" "$(grep -c "^$s" <<<"$page")" 1
done
check "the example configuration is valid" "$XRL" lint "$d/a/etc/xdp-ratelimit/example.conf"

check "make uninstall DESTDIR" uninst "$d/a"
expect_eq "... removes every file" "$(files "$d/a")" ""
expect_eq "... and the configuration folder it made" "$([ -e "$d/a/etc/xdp-ratelimit" ] && echo left)" ""

# The user's files: an example they edited and a saved configuration are theirs.
check "install again" inst "$d/b"
echo "port 9/udp rate 1/s" >>"$d/b/etc/xdp-ratelimit/example.conf"
echo "port 53/udp rate 1/s" >"$d/b/etc/xdp-ratelimit/eth0.conf"
check "install over it" inst "$d/b"
expect_eq "... keeps the example the user edited" "$(tail -1 "$d/b/etc/xdp-ratelimit/example.conf")" "port 9/udp rate 1/s"
check "uninstall" uninst "$d/b"
expect_eq "... leaves the user's files alone, and only them" "$(files "$d/b")" \
	"$(printf '644 etc/xdp-ratelimit/eth0.conf\n644 etc/xdp-ratelimit/example.conf')"

check "install with PREFIX=/usr" inst "$d/c" PREFIX=/usr
expect_eq "... the binary in /usr/sbin, units in /usr/lib/systemd/system" \
	"$(files "$d/c" | grep -cE ' usr/sbin/xdp-ratelimit$| usr/lib/systemd/system/xdp-ratelimit@.service$')" 2
check "uninstall with PREFIX=/usr" uninst "$d/c" PREFIX=/usr
expect_eq "... removes every file" "$(files "$d/c")" ""
finish
