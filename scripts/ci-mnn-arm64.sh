#!/usr/bin/env bash
# ci-mnn-arm64.sh — MNN in process on linux/arm64, under qemu-user. It
# finds an arm64 MNN (scripts/ci-lib.sh, find_mnn: MNN_ARM64_ROOT, else
# /opt/mnn-arm64, else the prebuilt MNN in
# ../shared/engines/mnn-3.6.1/linux-aarch64), Debian's aarch64 cross
# compiler and qemu-aarch64 (installing g++-aarch64-linux-gnu and
# qemu-user-static with apt-get when they are missing and it can), then
# cross-builds pocketeval's MNN runtime and bench packages with cgo and
# -tags mnn, runs their unit tests under qemu (with the cross toolchain's
# sysroot for libstdc++ and libc), and runs the arm64 pocketeval on the
# tiny shared packages: bench (a prefill+decode test at two KV-cache
# depths, with the SVG plot), bench --prompts-from gsm8k, and a GSM8K/IFEval
# run that must score every sample; then the arm64 `serve --runtime mnn`
# under qemu answers a host-side `run --runtime openai`, whose responses
# must equal the in-process run's. The server runs in its own process group
# and is stopped with it; last the script checks that no process it
# started is still running.
#
# Where a piece is missing it says "ci-mnn-arm64: SKIPPED …" and which,
# and exits 0; under CI=true (or MNN_ARM64_REQUIRE=1) that is a failure.
#
# The binary is built with -tags nollamacpp: the llama.cpp runtime loads
# libffi at start-up, and the cross toolchain has no arm64 libffi.
#
# Emulation is slow (MNN's NEON kernels run instruction by instruction):
# test timeouts are hang guards, nothing here depends on speed.
#
# Environment: MNN_ARM64_ROOT; ARM64_SYSROOT (default /usr/aarch64-linux-gnu);
# POCKETEVAL_SHARED (default <repo>/../shared); CI=true or MNN_ARM64_REQUIRE=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=$PATH:/usr/local/go/bin
. scripts/ci-lib.sh
mark_run
if [[ ${MNN_ARM64_REQUIRE:-} == 1 ]]; then
	export CI=true
fi
skip() { ci_skip ci-mnn-arm64 "the arm64 MNN tests: $1"; }

if ! root=$(find_mnn aarch64 2>&1); then
	skip "$root (docs/device.md §2 builds it)"
fi
cross=ok
arm64_tools ci-mnn-arm64 || cross=
if [[ -z $cross ]]; then
	skip "no aarch64 cross toolchain (Debian's g++-aarch64-linux-gnu, with its sysroot $sysroot)"
fi
if [[ -z $qemu ]]; then
	skip "no qemu-aarch64 (Debian's qemu-user-static or qemu-user)"
fi
case "$(aarch64-linux-gnu-readelf -h "$root/lib/libllm.so" 2>/dev/null | grep Machine)" in
*AArch64*) ;;
*) skip "$root/lib/libllm.so is not an arm64 library" ;;
esac
shared=${POCKETEVAL_SHARED:-$(pwd)/../shared}
tiny=$shared/models/mnn/tiny-int4
data=${POCKETEVAL_DATA:-$shared/datasets}
if [[ ! -d $tiny ]]; then
	skip "the tiny MNN package is not at $tiny"
fi

export CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++
# Flags from the environment come before the package's #cgo defaults
# (/opt/mnn, the host's MNN): the arm64 prefix wins, and the linker skips
# the incompatible x86 libraries it also finds.
export CGO_CXXFLAGS="-I$root/include ${CGO_CXXFLAGS:-}"
export CGO_LDFLAGS="-L$root/lib -Wl,-rpath,$root/lib ${CGO_LDFLAGS:-}"
tags="mnn nollamacpp"
tmp=$(mktemp -d)
server=
# stop_server ends the server's process group: qemu and the arm64
# pocketeval it emulates (one process), started with setsid.
stop_server() {
	if [[ -n $server ]]; then
		kill -TERM -- "-$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		server=
	fi
}
trap 'stop_server; rm -rf "$tmp"' EXIT
run() { "$qemu" -L "$sysroot" "$@"; }

echo "== arm64 MNN at $root, under $(basename "$qemu") with $sysroot"
go vet -tags "$tags" ./runtime/mnn/... ./bench/...
for pkg in ./runtime/mnn ./bench; do
	dir=$(go list -tags "$tags" -f '{{.Dir}}' "$pkg")
	bin="$tmp/$(basename "$pkg").test"
	go test -c -tags "$tags" -o "$bin" "$pkg"
	(cd "$dir" && run "$bin" -test.short -test.count=1 -test.timeout=40m >"$tmp/out" 2>&1) || {
		cat "$tmp/out" >&2
		echo "arm64 tests of $pkg failed" >&2
		exit 1
	}
	grep -E '^(ok|PASS)' "$tmp/out" | tail -1 | sed "s|^|$pkg (arm64): |"
done

go build -tags "$tags" -o "$tmp/pocketeval" ./cmd/pocketeval
pe() { run "$tmp/pocketeval" "$@"; }
set -x
pe bench --runtime mnn --model "$tiny" --pg 32,8 --depth 0,64 --rep 1 --threads 1 --plot "$tmp/depth.svg" --json >"$tmp/bench.json"
pe bench --runtime mnn --model "$tiny" --prompts-from gsm8k --limit 2 --max-tokens 8 --threads 1 --data-dir "$data" --json >"$tmp/prompts.json"
pe run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 3 --max-tokens 16 --threads 1 --data-dir "$data" --out "$tmp/run"
set +x
for want in '"name": "pp32+tg8@d64"' '"n_depth": 64' '"decode": {'; do
	grep -qF "$want" "$tmp/bench.json" || {
		cat "$tmp/bench.json" >&2
		echo "arm64 bench --depth lacks $want" >&2
		exit 1
	}
done
grep -q '<svg' "$tmp/depth.svg" || {
	echo "arm64 bench --plot wrote no SVG" >&2
	exit 1
}
grep -q '"e2e_ms": {' "$tmp/prompts.json" || {
	cat "$tmp/prompts.json" >&2
	echo "arm64 bench --prompts-from reported no latency" >&2
	exit 1
}
grep -q '"complete": true' "$tmp/run/summary.json" || {
	cat "$tmp/run/summary.json" >&2
	echo "the arm64 run did not score every sample" >&2
	exit 1
}

# The phone workflow of docs/device.md section 3 without adb: the arm64
# `serve --runtime mnn` (here under qemu, there on the phone) driven by a
# host-side `run --runtime openai`; the served greedy answers must be the
# in-process arm64 run's, sample for sample.
GOOS= GOARCH= CGO_ENABLED=0 go build -tags nollamacpp -o "$tmp/pocketeval-host" ./cmd/pocketeval
port=$((20000 + $$ % 20000))
set -x
# Not through run(): a backgrounded shell function is a subshell, and $!
# would name it instead of qemu. setsid gives qemu its own process group.
setsid "$qemu" -L "$sysroot" "$tmp/pocketeval" serve --runtime mnn --model "$tiny" --threads 1 --addr "127.0.0.1:$port" --quiet &
server=$!
set +x
i=0
until curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
	i=$((i + 1))
	if [[ $i -gt 600 ]] || ! kill -0 "$server" 2>/dev/null; then
		echo "the arm64 pocketeval serve did not become healthy" >&2
		exit 1
	fi
	sleep 0.5
done
set -x
"$tmp/pocketeval-host" run --runtime openai --base-url "http://127.0.0.1:$port/v1" --model tiny --tasks gsm8k,ifeval \
	--limit 3 --max-tokens 16 --data-dir "$data" --out "$tmp/served"
set +x
stop_server
if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
	echo "the arm64 server still answers on port $port after it was stopped" >&2
	exit 1
fi
grep -q '"complete": true' "$tmp/served/summary.json" || {
	cat "$tmp/served/summary.json" >&2
	echo "the run against the arm64 server did not score every sample" >&2
	exit 1
}
for task in gsm8k ifeval; do
	if ! cmp -s <(grep -o '"response":"[^"]*"' "$tmp/run/samples/$task.jsonl") <(grep -o '"response":"[^"]*"' "$tmp/served/samples/$task.jsonl"); then
		echo "responses for $task differ between the in-process and the served arm64 MNN" >&2
		exit 1
	fi
	echo "$task: the arm64 server's $(grep -c '"response"' "$tmp/served/samples/$task.jsonl") responses equal the in-process arm64 run's"
done
check_no_survivors ci-mnn-arm64
echo "== arm64 MNN checks passed (unit tests, bench at depth, latency on real prompts, GSM8K and IFEval, served to a host-side run)"
