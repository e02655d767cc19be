#!/usr/bin/env bash
# Installs the Debian packages the build, tests, lint, demo, benchmark and the Debian package
# (make deb: debhelper, dpkg-dev, lintian) need, when
# they are missing. Idempotent and non-interactive; silent when nothing is missing.
set -euo pipefail

pkgs=(make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
      libcmocka-dev libjansson-dev linux-libc-dev iproute2 nftables iptables
      gnuplot-nox ethtool jq util-linux procps libclang-rt-14-dev clang-format shellcheck
      python3 debootstrap systemd groff man-db bash-completion prometheus prometheus-node-exporter curl
      libhiredis-dev redis-server redis-tools libpcap-dev tcpdump
      xdp-tools libxdp1)
# tests/e2e/upgrade_layout.sh: what the oldest release it builds from its history (0.5.0, layout 8) links.
pkgs+=(libmicrohttpd-dev)
# make deb and make test-deb: the Debian package's build and its check.
pkgs+=(debhelper dpkg-dev build-essential lintian)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run 'sudo ./run deps' (or install them with apt-get) and try again" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
