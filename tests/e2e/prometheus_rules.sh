#!/usr/bin/env bash
# dist/prometheus/xdp-ratelimit.rules.yml: 'promtool check rules' accepts it, and 'promtool test
# rules' passes xdp-ratelimit.test.yml (each alert with series that fire it and series beside
# them, and times before its 'for:', that must not); the tests cover every alert of the file.
# tests/e2e/dashboard.sh loads the rules into a real Prometheus scraping a real instance.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
if ! command -v promtool >/dev/null; then
	skip prometheus_rules "needs promtool (package prometheus; scripts/deps.sh installs it)"
	exit 0
fi
dir=$ROOT/dist/prometheus
check "promtool check rules xdp-ratelimit.rules.yml" promtool check rules "$dir/xdp-ratelimit.rules.yml"
check "promtool test rules xdp-ratelimit.test.yml" promtool test rules "$dir/xdp-ratelimit.test.yml"
alerts=$(sed -n 's/^ *- alert: //p' "$dir/xdp-ratelimit.rules.yml" | sort -u)
tested=$(sed -n 's/^ *alertname: //p' "$dir/xdp-ratelimit.test.yml" | sort -u)
expect_eq "every alert has a test ($(wc -l <<<"$alerts") alerts)" "$(comm -23 <(echo "$alerts") <(echo "$tested") | xargs)" ""
firing=$(awk '/alertname:/ { a = $2 } /exp_labels:/ { print a }' "$dir/xdp-ratelimit.test.yml" | sort -u)
expect_eq "... that fires it" "$(comm -23 <(echo "$alerts") <(echo "$firing") | xargs)" ""
finish
