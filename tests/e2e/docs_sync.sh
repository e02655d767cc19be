#!/usr/bin/env bash
# One source for each fact: the README's command table may show a command only as the command
# table ('xdp-ratelimit -j help', which --help and the completion come from) and the man page
# spell it. Every row's command must exist in both, and every option the row shows must be one
# of that command's options in both. (tests/e2e/install.sh checks the man page has every
# command and option of the table; tests/e2e/completion.sh the completion.)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
if ! command -v man >/dev/null; then skip docs_sync "needs man-db (scripts/deps.sh installs it)"; exit 0; fi

page=$(MANWIDTH=200 man -l "$ROOT/dist/man/xdp-ratelimit.8" 2>/dev/null)
table=$("$XRL" -j help)
# shellcheck disable=SC2016 # backquotes of Markdown, not of the shell
rows=$(grep -oE '^\| `xdp-ratelimit [^`]+`' "$ROOT/README.md" | sed 's/^| `//; s/`$//')
expect_eq "the README's command table has a row a command" "$(($(wc -l <<<"$rows") >= 10))" 1
bad=""
while read -r _ cmd rest; do
	# 'rule add|del|list IFACE ...': the command, then its subcommands.
	jq -e --arg c "$cmd" '.commands[] | select(.command == $c)' <<<"$table" >/dev/null || bad+=" $cmd(not a command)"
	grep -qE "^ +$cmd( |$)" <<<"$page" || bad+=" $cmd(not in the man page)"
	if [ "$cmd" = rule ]; then
		for sub in $(grep -oE '^[a-z|]+' <<<"$rest" | tr '|' ' '); do
			jq -e --arg s "$sub" '.commands[] | select(.command == "rule") | .subcommands[] | select(.command == $s)' \
				<<<"$table" >/dev/null || bad+=" rule-$sub(not a subcommand)"
			grep -qE "^ +rule $sub( |$)" <<<"$page" || bad+=" rule-$sub(not in the man page)"
		done
	fi
	# shellcheck disable=SC2013 # one option a word
	for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$rest" | sed 's/^--//'); do
		jq -e --arg c "$cmd" --arg o "$opt" '.commands[] | select(.command == $c) | .options[] | select(.name == $o)' \
			<<<"$table" >/dev/null || bad+=" $cmd--$opt(not an option of it)"
		grep -qE -- "--$opt( |$)" <<<"$page" || bad+=" $cmd--$opt(not in the man page)"
	done
done <<<"$rows"
expect_eq "every command and option of the README's table is in the command table and the man page" "$bad" ""

# The README names the man pages and every docs/ file it maps, and they exist.
missing=""
for f in $(grep -oE '\]\((docs/[a-z-]+\.(md|json)|dist/man/[a-z.-]+|CHANGELOG\.md)\)' "$ROOT/README.md" | tr -d '()]'); do
	[ -e "$ROOT/$f" ] || missing+=" $f"
done
expect_eq "every file the README links to exists" "$missing" ""
for f in "$ROOT"/docs/*.md; do
	grep -q "(docs/$(basename "$f"))" "$ROOT/README.md" || missing+=" $(basename "$f")"
done
expect_eq "the README's map names every docs/*.md" "$missing" ""
expect_range "the README stays short (lines)" "$(wc -l <"$ROOT/README.md")" 50 320
finish
