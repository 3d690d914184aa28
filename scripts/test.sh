#!/usr/bin/env bash
# test.sh sets up a fresh machine (scripts/setup.sh) and runs every test:
# formatting and vet checks, the whole Go test suite against the shared
# datasets, models and conformance material, a bounded run of every fuzz
# target (scripts/fuzz.sh), the arm64 checks under qemu, and the MNN
# tests: scripts/ci-mnn.sh (x86-64, in process), scripts/ci-mnn-convert.sh
# (stories260K converted from GGUF, against llama.cpp) and scripts/ci-mnn-arm64.sh
# (arm64 under qemu), against the MNN that scripts/ci-lib.sh finds:
# MNN_ROOT / MNN_ARM64_ROOT, else /opt/mnn / /opt/mnn-arm64, else the
# prebuilt MNN in ../shared/engines/mnn-3.6.1/.
#
# A step that cannot run here says "SKIPPED …"; test.sh repeats every such
# line at its end, so a skip is the last thing it prints. Under CI=true a
# missing MNN fails the run instead. Last it checks that no process the
# run started (a test server, qemu) is still running.
#
# Datasets: $POCKETEVAL_DATA, default ../shared/datasets next to the repo.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
. "$here/ci-lib.sh"
mark_run

skips=$(mktemp)
trap 'rm -f "$skips"' EXIT
# step NAME CMD...: runs a CI script, keeping the lines that say it
# skipped something for the end of the run.
step() {
	echo "== $1"
	shift
	local log
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	grep -E 'SKIPPED' "$log" >>"$skips" || true
	rm -f "$log"
}

"$here/setup.sh"
export PATH=$PATH:/usr/local/go/bin:$(go env GOPATH)/bin
export POCKETEVAL_DATA=${POCKETEVAL_DATA:-$(cd "$root/.." && pwd)/shared/datasets}
export POCKETEVAL_LLAMA_LIB=${POCKETEVAL_LLAMA_LIB:-$("$here/setup-llamacpp.sh")}
# The OpenAI Node SDK that runtime/serve/sdktest drives serve with; set, it
# is required (the suite fails instead of skipping).
export POCKETEVAL_OPENAI_NODE_HOME=${POCKETEVAL_OPENAI_NODE_HOME:-$("$here/setup-openai-node.sh")}

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [[ -n "$unformatted" ]]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...

echo "== chat template goldens (Python jinja2, transformers' conventions)"
if /usr/bin/python3 -c 'import jinja2' >/dev/null 2>&1; then
	/usr/bin/python3 "$here/chattemplate-goldens.py" --check
else
	echo "chat template goldens: SKIPPED re-rendering them: python3-jinja2 is not installed" | tee -a "$skips"
fi

echo "== go test"
# The bound is per package: the CLI's end-to-end tests (the story model's
# BFCL multi-turn runs, kill-and-resume) take about 7 minutes on an idle
# 2-core machine and passed 30 minutes at a load average of 25.
go test -count=1 -timeout 60m ./...

echo "== sandbox conformance" && go run ./cmd/pocketeval sandbox conformance

echo "== determinism (second pass)"
go test -count=1 -run 'Determinism' ./...

echo "== fuzz (every target, bounded)"; "$here/fuzz.sh"

step "arm64 (cross-built, qemu)" "$here/ci-arm64.sh"
step "llama.cpp on arm64 (qemu)" "$here/ci-llamacpp-arm64.sh"
step "MNN (x86-64, in process)" "$here/ci-mnn.sh"
step "GGUF to MNN conversion, against llama.cpp" "$here/ci-mnn-convert.sh"
step "MNN on arm64 (qemu)" "$here/ci-mnn-arm64.sh"

check_no_survivors test.sh
if [[ -s $skips ]]; then
	echo "== skipped (every test that ran passed; these did not run):"
	sort -u "$skips"
fi

