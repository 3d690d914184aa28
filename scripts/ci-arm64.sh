#!/usr/bin/env bash
# ci-arm64.sh — the device part of CI: cross-builds the static linux/arm64
# pocketeval (CGO_ENABLED=0, -tags nollamacpp: everything that needs no cgo
# and no dynamic loading; see docs/device.md), checks that every package
# compiles for arm64 that way, and runs the arm64 unit tests of the cgo-free
# packages a phone uses (energy sampling, bench, the OpenAI runtime, serve,
# replay, scoring) under qemu-user. Installs Debian's qemu-user-static when
# no qemu-aarch64 is on PATH.
#
# Environment: ARM64_PACKAGES overrides the list of packages whose tests run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=$PATH:/usr/local/go/bin

qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [[ -z "$qemu" ]]; then
	echo "ci-arm64: installing qemu-user-static" >&2
	sudo_cmd=()
	if [[ $(id -u) -ne 0 ]]; then
		sudo_cmd=(sudo)
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo_cmd[@]}" apt-get update -qq
	"${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends qemu-user-static >&2
	qemu=$(command -v qemu-aarch64-static)
fi

export CGO_ENABLED=0 GOOS=linux GOARCH=arm64
tags=nollamacpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== arm64: vet (every package compiles without cgo)"
go vet -tags "$tags" ./...

echo "== arm64: static pocketeval"
go build -tags "$tags" -trimpath -ldflags '-s -w' -o "$tmp/pocketeval" ./cmd/pocketeval
# qemu-user without a sysroot can only start a statically linked binary:
# running it proves there is no ELF interpreter to find.
"$qemu" "$tmp/pocketeval" version
"$qemu" "$tmp/pocketeval" energy --help >"$tmp/help"
grep -q -- "--energy" "$tmp/help"

echo "== arm64: unit tests under $(basename "$qemu")"
pkgs=${ARM64_PACKAGES:-"./energy ./bench ./stats ./runtime/openai ./runtime/replay ./runtime/serve ./runtime/speculative ./runtime/runtimetest ./results ./scorers/..."}
# shellcheck disable=SC2086 # the package list is split on purpose
for pkg in $(go list $pkgs); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	if [[ -z "$(go list -f '{{join .TestGoFiles " "}}{{join .XTestGoFiles " "}}' "$pkg")" ]]; then
		continue
	fi
	bin="$tmp/$(echo "$pkg" | tr / _).test"
	go test -c -tags "$tags" -o "$bin" "$pkg"
	# Test binaries run in their package directory (testdata), as go test does.
	(cd "$dir" && "$qemu" "$bin" -test.short -test.count=1 -test.timeout=10m >"$tmp/out" 2>&1) || {
		cat "$tmp/out" >&2
		echo "arm64 tests of $pkg failed" >&2
		exit 1
	}
	echo "ok  $pkg (arm64)"
done
echo "== arm64 checks passed"
