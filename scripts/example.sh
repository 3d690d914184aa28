#!/usr/bin/env bash
# example.sh is the main job on a fresh machine: set up, build pocketeval,
# evaluate the tiny llama.cpp story model on 50 GSM8K questions, and print the
# summary. Results land in ${OUT:-runs/example}; run it again to see resume.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
"$here/setup.sh"
export PATH=$PATH:/usr/local/go/bin
export POCKETEVAL_DATA=${POCKETEVAL_DATA:-$(cd "$root/.." && pwd)/shared/datasets}
export POCKETEVAL_LLAMA_LIB=${POCKETEVAL_LLAMA_LIB:-$("$here/setup-llamacpp.sh")}
models=${POCKETEVAL_MODELS:-$(cd "$root/.." && pwd)/shared/models}
go build -buildvcs=auto -o bin/pocketeval ./cmd/pocketeval
bin/pocketeval run --runtime llamacpp --model "$models/gguf/stories260K.gguf" \
	--tasks gsm8k --limit 50 --max-tokens 128 --concurrency 2 --out "${OUT:-runs/example}" "$@"
