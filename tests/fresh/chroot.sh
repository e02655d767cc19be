# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# The fresh machine of tests/fresh/run.sh and tests/deb/run.sh: a minimal Debian 12 in a folder,
# chrooted into. Sourced; each function takes the folder.

# chroot_unmount ROOT: unmounts what is mounted under ROOT, deepest first; fails while one is left.
chroot_unmount() {
	local root=$1 m
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	! awk -v r="$root" '$2 == r || index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/self/mounts
}

# chroot_remove ROOT: unmounts, then removes ROOT; nothing of it is removed while a mount is left.
chroot_remove() {
	if chroot_unmount "$1"; then rm -rf --one-file-system "$1"; else echo "chroot: mounts left under $1, not removed" >&2; fi
}

# chroot_mirror: the mirror this machine's apt uses (the first URIs of debian.sources, or of
# sources.list).
chroot_mirror() {
	local mirror
	mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	echo "${mirror:-http://deb.debian.org/debian}"
}

# chroot_debootstrap ROOT LOG: 'debootstrap --variant=minbase bookworm' into ROOT from this
# machine's mirror (its output in LOG), then a new machine: this one's apt sources and settings,
# its DNS, empty apt lists.
chroot_debootstrap() {
	local root=$1
	debootstrap --variant=minbase bookworm "$root" "$(chroot_mirror)" >"$2" 2>&1 || return
	cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/"
	[ -f /etc/apt/sources.list.d/debian.sources ] && rm -f "$root/etc/apt/sources.list"
	cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	rm -rf "$root"/var/lib/apt/lists/*
}

# chroot_mount ROOT: ROOT a mount of its own ('ip -n NS' makes / a slave mount, which needs / to
# be a mount), /proc, /sys (bpffs and BTF with it) and /dev of the host, a /run of its own.
chroot_mount() {
	local root=$1
	mount --bind "$root" "$root" &&
		mount -t proc proc "$root/proc" &&
		mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" &&
		mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
		mkdir -p "$root/run" && mount -t tmpfs tmpfs "$root/run"
}

# chroot_run ROOT COMMAND...: COMMAND in ROOT, as a login would start it: a clean environment.
chroot_run() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb "$@"
}
