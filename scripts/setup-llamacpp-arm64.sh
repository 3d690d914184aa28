#!/usr/bin/env bash
# setup-llamacpp-arm64.sh installs what an arm64 pocketeval with the
# llama.cpp runtime needs to run under qemu-user on an x86 machine, and
# prints the library directory on stdout:
#
#   - the prebuilt linux/arm64 llama.cpp CPU libraries of the npm package
#     pinned in third_party/llamacpp-arm64 (@node-llama-cpp/linux-arm64@3.21.1,
#     the same llama.cpp release v0.4.0 as the x86 libraries of
#     setup-llamacpp.sh), installed with `npm ci`;
#   - libffi.so.8 for arm64 (the binding opens it at start-up), from
#     Debian's libffi8:arm64: taken from /usr/lib/aarch64-linux-gnu when
#     multiarch already installed it, else downloaded with `apt-get download`
#     (as root this adds the arm64 architecture to dpkg and runs apt-get
#     update once) and unpacked with dpkg -x, without installing it.
#
# The libraries' other needs (libstdc++.so.6, libgcc_s.so.1, libm, libc)
# come from the cross toolchain's sysroot (Debian's g++-aarch64-linux-gnu,
# /usr/aarch64-linux-gnu), which qemu is given with -L.
#
# Directory: the first argument, else $POCKETEVAL_LLAMA_ARM64_HOME, else
# $XDG_CACHE_HOME/pocketeval/llamacpp-arm64 or ~/.cache/pocketeval/llamacpp-arm64.
# <dir>/lib holds symlinks under the names the loader opens (libllama.so,
# libggml.so, libggml-base.so), every CPU backend, and libffi.so.8. Running
# it again is cheap. Exits 1 with the reason when a piece cannot be had.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pin="$here/../third_party/llamacpp-arm64"
ver=v0.4.0

if [[ $# -gt 1 ]]; then
	echo "usage: $0 [install-dir]" >&2
	exit 2
fi
if [[ $# -eq 1 ]]; then
	dir=$1
elif [[ -n "${POCKETEVAL_LLAMA_ARM64_HOME:-}" ]]; then
	dir=$POCKETEVAL_LLAMA_ARM64_HOME
elif [[ -n "${XDG_CACHE_HOME:-}" ]]; then
	dir=$XDG_CACHE_HOME/pocketeval/llamacpp-arm64
else
	dir=${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache/pocketeval/llamacpp-arm64
fi
fail() {
	echo "setup-llamacpp-arm64: $*" >&2
	exit 1
}

command -v npm >/dev/null || fail "npm not found (install nodejs and npm)"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bins="$dir/node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64"
if ! cmp -s "$pin/package-lock.json" "$dir/package-lock.json" || [[ ! -f "$bins/libllama.$ver.so" ]]; then
	echo "setup-llamacpp-arm64: installing pinned packages into $dir" >&2
	cp "$pin/package.json" "$pin/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
for f in "libllama.$ver.so" "libggml.$ver.so" libggml-base.so; do
	[[ -f "$bins/$f" ]] || fail "$bins/$f missing after install"
done

# libffi.so.8 for arm64.
ffi=""
for f in /usr/lib/aarch64-linux-gnu/libffi.so.8 "$dir/sysroot/usr/lib/aarch64-linux-gnu/libffi.so.8"; do
	if [[ -e $f ]]; then
		ffi=$f
		break
	fi
done
if [[ -z $ffi ]]; then
	command -v apt-get >/dev/null || fail "no arm64 libffi.so.8 and no apt-get to download Debian's libffi8:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[[ $(id -u) -eq 0 ]] || fail "no arm64 libffi.so.8: dpkg has no arm64 architecture and adding it needs root (dpkg --add-architecture arm64 && apt-get update)"
		echo "setup-llamacpp-arm64: adding the arm64 architecture to dpkg (for apt-get download libffi8:arm64)" >&2
		dpkg --add-architecture arm64
		apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || fail "apt-get update failed"
	fi
	debs=$(mktemp -d)
	trap 'rm -rf "$debs"' EXIT
	chmod 777 "$debs" # apt's _apt user downloads into it
	if ! (cd "$debs" && apt-get download libffi8:arm64 >&2); then
		# The package lists may predate the arm64 architecture.
		[[ $(id -u) -eq 0 ]] && apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
		(cd "$debs" && apt-get download libffi8:arm64 >&2) || fail "apt-get download libffi8:arm64 failed"
	fi
	dpkg -x "$debs"/libffi8_*_arm64.deb "$dir/sysroot"
	ffi="$dir/sysroot/usr/lib/aarch64-linux-gnu/libffi.so.8"
	[[ -e $ffi ]] || fail "libffi8:arm64 has no libffi.so.8"
fi

tmp=$(mktemp -d "$dir/.lib.XXXXXX")
for f in "$bins"/*.so; do
	ln -s "$f" "$tmp/$(basename "$f")"
done
ln -s "$bins/libllama.$ver.so" "$tmp/libllama.so"
ln -s "$bins/libggml.$ver.so" "$tmp/libggml.so"
ln -s "$(readlink -f "$ffi")" "$tmp/libffi.so.8"
cp "$bins/_nlcBuildMetadata.json" "$tmp/build-metadata.json"
chmod 755 "$tmp"
rm -rf "$dir/lib.old"
if [[ -e "$dir/lib" ]]; then
	mv "$dir/lib" "$dir/lib.old"
fi
mv "$tmp" "$dir/lib"
rm -rf "$dir/lib.old"
echo "$dir/lib"
