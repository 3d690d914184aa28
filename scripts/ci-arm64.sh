#!/usr/bin/env bash
# ci-arm64.sh — the device part of CI: cross-builds the static linux/arm64
# pocketeval (CGO_ENABLED=0, -tags nollamacpp: everything that needs no cgo
# and no dynamic loading; see docs/device.md), checks that every package
# builds and vets for arm64 that way, checks that the packages whose numbers
# must be bit-identical on every platform contain no compiler-fused
# multiply-add, and runs the arm64 unit tests of the cgo-free packages a
# phone uses (energy sampling, bench, the OpenAI runtime, serve, replay, the
# runtime conformance suite, statistics, CPython's generator, scoring with
# language detection) under qemu-user.
#
# qemu: qemu-aarch64-static or qemu-aarch64 from PATH, else Debian's
# qemu-user-static is installed (once; a later run finds it). When qemu is
# not there and cannot be installed, the checks that need no qemu still run
# and the script says plainly that the arm64 binaries were not run, then
# exits 0 (ARM64_REQUIRE_QEMU=1 makes that an error).
#
# Nothing here depends on speed: test timeouts are hang guards only.
#
# Environment: ARM64_PACKAGES overrides the packages whose tests run;
# ARM64_EXACT_PACKAGES the packages checked for fused multiply-adds;
# ARM64_REQUIRE_QEMU=1 fails instead of skipping when qemu is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=$PATH:/usr/local/go/bin

export CGO_ENABLED=0 GOOS=linux GOARCH=arm64
tags=nollamacpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== arm64: every package builds and vets without cgo"
go build -tags "$tags" ./...
go vet -tags "$tags" ./...

# Go may fuse x*y+z into one FMA instruction on arm64 (the spec allows it
# unless a float64() conversion forces the product's rounding); amd64 and
# Python round the product first, so a fused instruction makes a number
# differ by an ulp across platforms. Only explicit math.FMA calls may
# produce one. scorers/mathx is left out: it compares expressions within a
# relative tolerance, and Go's complex multiplication fuses by itself.
echo "== arm64: no compiler-fused multiply-add in the bit-exact packages"
exact=${ARM64_EXACT_PACKAGES:-"./internal/pyrandom ./stats ./evals/... ./scorers/..."}
# shellcheck disable=SC2086 # the package list is split on purpose
exact_pkgs=$(go list -tags "$tags" $exact | grep -v '/scorers/mathx$')
# shellcheck disable=SC2086
if ! go build -tags "$tags" -gcflags=-S $exact_pkgs 2>"$tmp/asm"; then
	grep -v '^	0x' "$tmp/asm" | head -50 >&2
	exit 1
fi
module=$(go list -m)
fused=0
while read -r pos; do
	file=${pos%:*} line=${pos##*:}
	[[ -f $file ]] || file=${file#"$module"/} # -trimpath names
	src=$(sed -n "${line}p" "$file" 2>/dev/null || true)
	if [[ $src != *math.FMA\(* ]]; then
		echo "fused multiply-add at $pos: ${src#"${src%%[![:space:]]*}"}" >&2
		fused=1
	fi
done < <(grep -E $'\tFN?M(ADD|SUB)[DS]\t' "$tmp/asm" | grep -oE '\([^()]+\.go:[0-9]+\)' | tr -d '()' | sort -u)
if ((fused)); then
	echo "round the product with float64(x*y) where it is added (see internal/pyrandom twoProd)" >&2
	exit 1
fi

echo "== arm64: static pocketeval"
go build -tags "$tags" -trimpath -ldflags '-s -w' -o "$tmp/pocketeval" ./cmd/pocketeval

find_qemu() { command -v qemu-aarch64-static || command -v qemu-aarch64 || true; }
qemu=$(find_qemu)
if [[ -z $qemu ]]; then
	why=""
	sudo_cmd=()
	if [[ $(id -u) -ne 0 ]]; then
		if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
			sudo_cmd=(sudo -n)
		else
			why="not root and no password-less sudo"
		fi
	fi
	if [[ -z $why ]] && ! command -v apt-get >/dev/null; then
		why="no apt-get on this machine"
	fi
	if [[ -z $why ]]; then
		echo "ci-arm64: installing qemu-user-static" >&2
		export DEBIAN_FRONTEND=noninteractive
		if "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >"$tmp/apt.log" 2>&1 &&
			"${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends qemu-user-static >>"$tmp/apt.log" 2>&1; then
			qemu=$(find_qemu)
			[[ -n $qemu ]] || why="qemu-user-static installed no qemu-aarch64"
		else
			why="apt-get failed: $(tail -n 3 "$tmp/apt.log" | tr '\n' ' ')"
		fi
	fi
	if [[ -z $qemu ]]; then
		echo "ci-arm64: SKIPPED running the arm64 binary and unit tests: no qemu-aarch64 ($why)."
		echo "ci-arm64: the arm64 build, vet and fused multiply-add checks above passed."
		if [[ ${ARM64_REQUIRE_QEMU:-} == 1 ]]; then
			exit 1
		fi
		exit 0
	fi
fi

# qemu-user without a sysroot can only start a statically linked binary:
# running it proves there is no ELF interpreter to find.
"$qemu" "$tmp/pocketeval" version
"$qemu" "$tmp/pocketeval" energy --help >"$tmp/help"
grep -q -- "--energy" "$tmp/help"

echo "== arm64: unit tests under $(basename "$qemu")"
pkgs=${ARM64_PACKAGES:-"./energy ./bench ./stats ./internal/pyrandom ./runtime/openai ./runtime/replay ./runtime/serve ./runtime/speculative ./runtime/runtimetest ./results ./scorers/..."}
# shellcheck disable=SC2086 # the package list is split on purpose
for pkg in $(go list -tags "$tags" $pkgs); do
	dir=$(go list -tags "$tags" -f '{{.Dir}}' "$pkg")
	if [[ -z "$(go list -tags "$tags" -f '{{join .TestGoFiles " "}}{{join .XTestGoFiles " "}}' "$pkg")" ]]; then
		continue
	fi
	bin="$tmp/$(echo "$pkg" | tr / _).test"
	go test -c -tags "$tags" -o "$bin" "$pkg"
	# Test binaries run in their package directory (testdata), as go test
	# does; the timeout is a hang guard for emulation on a loaded machine.
	(cd "$dir" && "$qemu" "$bin" -test.short -test.count=1 -test.timeout=20m >"$tmp/out" 2>&1) || {
		cat "$tmp/out" >&2
		echo "arm64 tests of $pkg failed" >&2
		exit 1
	}
	echo "ok  $pkg (arm64)"
done
echo "== arm64 checks passed"
