#!/usr/bin/env bash
# setup-llamacpp.sh installs the prebuilt llama.cpp libraries that pocketeval's
# llamacpp runtime loads (no compiler, no cgo), and prints the library
# directory on stdout.
#
# The engine comes from the npm packages pinned in third_party/llamacpp
# (node-llama-cpp@3.21.1 and @node-llama-cpp/linux-x64@3.21.1, llama.cpp
# release v0.4.0). They are installed with `npm ci` into
#
#   $POCKETEVAL_LLAMA_HOME                     if set, else
#   $XDG_CACHE_HOME/pocketeval/llamacpp        if XDG_CACHE_HOME is set, else
#   $HOME/.cache/pocketeval/llamacpp
#
# (or the directory given as the first argument), and <dir>/lib is filled with
# symlinks under the names the loader opens (libllama.so, libggml.so,
# libggml-base.so) next to every library of the package, CPU backends
# included. The runtime looks in that lib directory by default; point
# POCKETEVAL_LLAMA_LIB at it when installing elsewhere.
#
# Running it again is cheap: npm is skipped while the installed lock file
# matches the pinned one. Progress goes to stderr; only the library directory
# is printed on stdout, so `export POCKETEVAL_LLAMA_LIB=$(scripts/setup-llamacpp.sh)`
# works.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pin="$here/../third_party/llamacpp"

if [[ $# -gt 1 ]]; then
	echo "usage: $0 [install-dir]" >&2
	exit 2
fi
if [[ $# -eq 1 ]]; then
	dir=$1
elif [[ -n "${POCKETEVAL_LLAMA_HOME:-}" ]]; then
	dir=$POCKETEVAL_LLAMA_HOME
elif [[ -n "${XDG_CACHE_HOME:-}" ]]; then
	dir=$XDG_CACHE_HOME/pocketeval/llamacpp
else
	dir=${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache/pocketeval/llamacpp
fi

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) platform=linux-x64 ;;
*)
	echo "setup-llamacpp: only linux-x64 is pinned (got $(uname -s)-$(uname -m))" >&2
	exit 1
	;;
esac

command -v npm >/dev/null || {
	echo "setup-llamacpp: npm not found (install nodejs and npm)" >&2
	exit 1
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bins="$dir/node_modules/@node-llama-cpp/$platform/bins/$platform"

fresh=1
if cmp -s "$pin/package-lock.json" "$dir/package-lock.json" && [[ -f "$bins/libllama.v0.4.0.so" ]]; then
	fresh=0
else
	echo "setup-llamacpp: installing pinned packages into $dir" >&2
	cp "$pin/package.json" "$pin/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --omit=optional --ignore-scripts --no-audit --no-fund >&2)
fi

for f in libllama.v0.4.0.so libggml.v0.4.0.so libggml-base.so; do
	[[ -f "$bins/$f" ]] || {
		echo "setup-llamacpp: $bins/$f missing after install" >&2
		exit 1
	}
done

# lib/ holds symlinks to every library of the package (CPU backends
# included) plus the three names the loader opens. A complete lib/ over an
# unchanged install is left alone, so running the script while tests load
# the libraries is harmless.
if [[ $fresh -eq 0 && -e "$dir/lib/libllama.so" && -e "$dir/lib/libggml.so" && -e "$dir/lib/libggml-base.so" && -f "$dir/lib/build-metadata.json" ]]; then
	echo "setup-llamacpp: $dir is up to date" >&2
else
	# Build lib/ in a temporary directory and swap it in.
	tmp=$(mktemp -d "$dir/.lib.XXXXXX")
	for f in "$bins"/*.so; do
		ln -s "$f" "$tmp/$(basename "$f")"
	done
	ln -s "$bins/libllama.v0.4.0.so" "$tmp/libllama.so"
	ln -s "$bins/libggml.v0.4.0.so" "$tmp/libggml.so"
	cp "$bins/_nlcBuildMetadata.json" "$tmp/build-metadata.json"
	chmod 755 "$tmp"
	rm -rf "$dir/lib.old"
	if [[ -e "$dir/lib" ]]; then
		mv "$dir/lib" "$dir/lib.old"
	fi
	mv "$tmp" "$dir/lib"
	rm -rf "$dir/lib.old"
fi

echo "$dir/lib"
