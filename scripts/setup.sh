#!/usr/bin/env bash
# setup.sh prepares a fresh Debian machine (run as root, or with sudo
# available) for building and testing pocketeval: Debian packages, Go
# modules, and the prebuilt llama.cpp libraries from npm. It is idempotent
# and cheap when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
	sudo_cmd=(sudo)
fi

# Debian packages: a system Python for the code sandbox (world-readable,
# fast start), Node.js/npm for the llama.cpp packages, Chromium for the
# leaderboard rendering test, gcc for cgo (MNN build tag only).
need=()
command -v /usr/bin/python3 >/dev/null 2>&1 || need+=(python3)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v git >/dev/null 2>&1 || need+=(git)
command -v curl >/dev/null 2>&1 || need+=(curl)
# jq: ci-llamacpp-arm64.sh reads its results with it.
command -v jq >/dev/null 2>&1 || need+=(jq)
# python3-jinja2: the reference renderer of the chat-template goldens.
/usr/bin/python3 -c 'import jinja2' >/dev/null 2>&1 || need+=(python3-jinja2)
# python3-mpmath: BFCL's multi-turn math backend (math_api.py) imports it; the
# bfcl_multi_turn_* tasks run that backend in the sandbox.
/usr/bin/python3 -c 'import mpmath' >/dev/null 2>&1 || need+=(python3-mpmath)
# libffi: the llama.cpp binding (yzma) loads it at start-up.
ldconfig -p 2>/dev/null | grep -q "libffi.so.8 " || need+=(libffi8)
if [[ ${#need[@]} -gt 0 ]]; then
	echo "setup: installing Debian packages: ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	"${sudo_cmd[@]}" apt-get update -qq
	"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

if ! command -v go >/dev/null 2>&1; then
	if [[ -x /usr/local/go/bin/go ]]; then
		export PATH=/usr/local/go/bin:$PATH
	else
		echo "setup: Go 1.26 or newer is required (https://go.dev/dl/)" >&2
		exit 1
	fi
fi

echo "setup: downloading Go modules" >&2
(cd "$root" && go mod download)

echo "setup: installing llama.cpp libraries" >&2
"$here/setup-llamacpp.sh" >/dev/null
# The official OpenAI Node SDK for serve's compatibility suite.
echo "setup: installing the OpenAI Node SDK" >&2
"$here/setup-openai-node.sh" >/dev/null
# The arm64 llama.cpp libraries and libffi8:arm64 for the qemu checks
# (ci-llamacpp-arm64.sh skips, saying why, when they cannot be had).
"$here/setup-llamacpp-arm64.sh" >/dev/null || echo "setup: arm64 llama.cpp libraries not installed (see above); ci-llamacpp-arm64.sh will skip" >&2
