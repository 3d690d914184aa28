#!/usr/bin/env bash
# setup-openai-node.sh installs the official OpenAI Node SDK pinned in
# third_party/openai-node (package.json and package-lock.json), which the
# serve compatibility suite (runtime/serve/sdktest) drives `pocketeval
# serve` with, and prints the directory holding its node_modules on stdout.
#
# It installs with `npm ci` into
#
#   $POCKETEVAL_OPENAI_NODE_HOME               if set, else
#   $XDG_CACHE_HOME/pocketeval/openai-node     if XDG_CACHE_HOME is set, else
#   $HOME/.cache/pocketeval/openai-node
#
# (or the directory given as the first argument), never into the
# repository. Running it again is cheap: npm is skipped while the installed
# lock file matches the pinned one. Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pin="$here/../third_party/openai-node"

if [[ $# -gt 1 ]]; then
	echo "usage: $0 [install-dir]" >&2
	exit 2
fi
if [[ $# -eq 1 ]]; then
	dir=$1
elif [[ -n "${POCKETEVAL_OPENAI_NODE_HOME:-}" ]]; then
	dir=$POCKETEVAL_OPENAI_NODE_HOME
elif [[ -n "${XDG_CACHE_HOME:-}" ]]; then
	dir=$XDG_CACHE_HOME/pocketeval/openai-node
else
	dir=${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache/pocketeval/openai-node
fi

command -v npm >/dev/null || {
	echo "setup-openai-node: npm not found (install nodejs and npm)" >&2
	exit 1
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if cmp -s "$pin/package-lock.json" "$dir/package-lock.json" && [[ -f "$dir/node_modules/openai/package.json" ]]; then
	echo "setup-openai-node: $dir is up to date" >&2
else
	echo "setup-openai-node: installing the pinned OpenAI SDK into $dir" >&2
	cp "$pin/package.json" "$pin/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
echo "$dir"
