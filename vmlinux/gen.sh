#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux.h from the running kernel's BTF.
set -eu
case "$(uname -m)" in
x86_64|i?86) arch=x86 ;;
aarch64) arch=arm64 ;;
*) arch=$(uname -m) ;;
esac
dir=$(dirname "$0")/$arch
btf=/sys/kernel/btf/vmlinux
if [ ! -r "$btf" ]; then
	echo "gen.sh: $btf missing: the kernel has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2
	exit 1
fi
mkdir -p "$dir"
bpftool btf dump file "$btf" format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h"
