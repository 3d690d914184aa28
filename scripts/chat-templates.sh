#!/usr/bin/env bash
# chat-templates.sh extracts llama.cpp's collection of real chat templates
# (models/templates/*.jinja: Qwen3-Coder, QwQ, DeepSeek R1/V3, Mistral,
# Granite, Command-R, GLM, Kimi, Hermes, functionary, ...) from the llama.cpp
# source that the node-llama-cpp npm package bundles (installed by
# scripts/setup-llamacpp.sh), and prints the directory. The templates are
# third-party files: they are read from the cache, never committed.
# runtime/chattemplate's TestRealTemplates renders them against jinja2.
set -euo pipefail
home=${POCKETEVAL_LLAMA_HOME:-${XDG_CACHE_HOME:-${HOME:?}/.cache}/pocketeval/llamacpp}
bundle=$home/node_modules/node-llama-cpp/llama/gitRelease.bundle
out=$home/chat-templates
if [[ ! -f $bundle ]]; then
	echo "chat-templates: $bundle not found (run scripts/setup-llamacpp.sh)" >&2
	exit 1
fi
if [[ ! -f $out/.done ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git -C "$tmp" init -q
	rev=$(git bundle list-heads "$bundle" | awk '{print $1; exit}')
	git -C "$tmp" fetch -q "$bundle" "$rev"
	rm -rf "$out" && mkdir -p "$out"
	git -C "$tmp" archive "$rev" models/templates | tar -x -C "$tmp"
	cp "$tmp"/models/templates/*.jinja "$out"/
	git -C "$tmp" rev-parse "$rev" >"$out/.done"
fi
echo "$out"
