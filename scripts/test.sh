#!/usr/bin/env bash
# test.sh sets up a fresh machine (scripts/setup.sh) and runs every test:
# formatting and vet checks, the whole Go test suite against the shared
# datasets, models and conformance material, a bounded run of every fuzz
# target (scripts/fuzz.sh), and the MNN tests when an
# installed MNN is found (they are skipped, with a message, otherwise).
#
# Datasets: $POCKETEVAL_DATA, default ../shared/datasets next to the repo.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

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
	echo "python3-jinja2 not installed: the goldens were not re-rendered"
fi

echo "== go test"
go test -count=1 -timeout 30m ./...

echo "== sandbox conformance" && go run ./cmd/pocketeval sandbox conformance

echo "== determinism (second pass)"
go test -count=1 -run 'Determinism' ./...

echo "== fuzz (every target, bounded)"; "$here/fuzz.sh"

"$here/ci-arm64.sh"
echo "== llama.cpp on arm64 (qemu)"
"$here/ci-llamacpp-arm64.sh"

if [[ -x "$here/ci-mnn.sh" ]]; then
	echo "== MNN"
	"$here/ci-mnn.sh"
fi
echo "== MNN on arm64 (qemu)"
"$here/ci-mnn-arm64.sh"

