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
if [[ -z ${POCKETEVAL_LLAMA_LIB:-} ]]; then
	# setup.sh has just installed the libraries and said so: ask only for
	# their directory (its message again only if it fails).
	log=$(mktemp)
	POCKETEVAL_LLAMA_LIB=$("$here/setup-llamacpp.sh" 2>"$log") || {
		cat "$log" >&2
		rm -f "$log"
		exit 1
	}
	rm -f "$log"
	export POCKETEVAL_LLAMA_LIB
fi
models=${POCKETEVAL_MODELS:-$(cd "$root/.." && pwd)/shared/models}
go build -buildvcs=auto -o bin/pocketeval ./cmd/pocketeval
bin/pocketeval run --runtime llamacpp --model "$models/gguf/stories260K.gguf" \
	--tasks gsm8k --limit 50 --max-tokens 128 --concurrency 2 --out "${OUT:-runs/example}" "$@"
