#!/usr/bin/env bash
# Installs every Debian package ftf-bpf needs to build, test and benchmark.
# Idempotent: run it as often as you like; it only installs what is missing.
# libbpf 1.4 and bpftool 7.5 come from bookworm-backports (bookworm has 1.1).
set -euo pipefail

why="it installs Debian packages, which needs root"
. "$(dirname "$0")/need-root.sh"

export DEBIAN_FRONTEND=noninteractive

bp=/etc/apt/sources.list.d/ftf-bpf-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat >"$bp" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	rm -f /var/lib/apt/ftf-bpf-updated
fi

base_pkgs=(build-essential pkg-config meson ninja-build clang llvm
	libcmocka-dev libelf-dev libdw-dev zlib1g-dev libzstd-dev libiberty-dev
	linux-perf trace-cmd python3 python3-dev man-db groff-base systemtap-sdt-dev bpftrace
	golang-go nodejs libc6-dbg rustc musl-tools)
bp_pkgs=(libbpf-dev bpftool)

missing=()
for p in "${base_pkgs[@]}" "${bp_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# libbpf-dev must be the backports version (>= 1.4).
if ! pkg-config --atleast-version=1.4 libbpf 2>/dev/null; then
	missing+=(libbpf-dev)
fi

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

apt-get update -qq -o Acquire::Retries=3 || apt-get update -o Acquire::Retries=3
apt-get install -y -qq --no-install-recommends "${base_pkgs[@]}"
apt-get install -y -qq --no-install-recommends -t bookworm-backports "${bp_pkgs[@]}"
