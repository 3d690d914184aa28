#!/usr/bin/env bash
# ci-mnn-convert.sh — GGUF to MNN conversion, checked against llama.cpp
# (docs/mnn-convert.md). With an MNN prefix (MNN_ROOT, else /opt/mnn, else
# ../shared/engines/mnn-3.6.1/linux-<arch>) it builds tools/mnnconvert
# against MNN's Express API and the mnn-tagged pocketeval, runs the
# converter's tests (synthetic llama, qwen2 and qwen3 files, with q/k norms,
# biases, untied output and BF16/F16/Q8_0 tensors, computed on MNN at fp32,
# int8 and int4 against a reference forward pass, and that reference against
# llama.cpp), converts the trained stories260K.gguf at fp32, int8 and int4,
# and checks on it:
#   - fidelity: a llama.cpp reference of the GGUF, each package compared
#     (vocabularies hash equal or compare refuses); fp32 gated at a mean KL
#     below 1e-4 and top-1 agreement of 99 %;
#   - greedy answers: 40 prompts (gsm8k and ifeval) on llama.cpp and on the
#     fp32 package, at least 35 byte-identical (37 measured) responses;
#   - a run killed with SIGKILL after 2 and after 20 of its 40 samples and
#     resumed gives a clean run's samples;
#   - pocketeval bench and MNN's llm_bench on the int4 package, 1 thread
#     (printed, not asserted: speed depends on the machine).
# MNN is found as scripts/ci-lib.sh's find_mnn says; without it the script
# says SKIPPED and exits 0, or fails under CI=true.
#
# Environment: MNN_ROOT; POCKETEVAL_SHARED (default <repo>/../shared);
# POCKETEVAL_LLAMA_LIB (default: scripts/setup-llamacpp.sh's directory).
set -euo pipefail
start=$SECONDS

cd "$(dirname "$0")/.."
shared="${POCKETEVAL_SHARED:-$(pwd)/../shared}"
arch="$(uname -m)"
[ "$arch" = arm64 ] && arch=aarch64
. scripts/ci-lib.sh
mark_run
root=$(find_mnn "$arch" 2>&1) || ci_skip ci-mnn-convert.sh "the GGUF to MNN conversion checks: $root"
for d in include/schema include/flatbuffers; do
	if [ ! -d "$root/$d" ]; then
		echo "MNN at $root lacks $d (MNN's generated schema and flatbuffers headers, needed by tools/mnnconvert)" >&2
		exit 1
	fi
done
gguf="$shared/models/gguf/stories260K.gguf"
if [ ! -f "$gguf" ]; then
	echo "$gguf not found" >&2
	exit 1
fi
export CGO_CXXFLAGS="-I$root/include ${CGO_CXXFLAGS:-}"
export CGO_LDFLAGS="-L$root/lib -Wl,-rpath,$root/lib ${CGO_LDFLAGS:-}"
export POCKETEVAL_LLAMA_LIB="${POCKETEVAL_LLAMA_LIB:-$(scripts/setup-llamacpp.sh)}"
data="${POCKETEVAL_DATA:-$shared/datasets}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "== GGUF to MNN conversion, MNN at $root"
set -x
g++ -std=c++17 -O2 -I"$root/include" -I"$root/include/schema" -I"$root/include/flatbuffers" \
	tools/mnnconvert/mnnconvert.cpp -o "$tmp/mnnconvert" \
	-L"$root/lib" -Wl,--no-as-needed -lMNN_Express -lMNN -Wl,-rpath,"$root/lib"
go build -tags mnn -o "$tmp/pocketeval" ./cmd/pocketeval
go vet -tags mnn ./runtime/mnnconv
POCKETEVAL_MNNCONVERT="$tmp/mnnconvert" go test -count=1 -tags mnn ./runtime/mnnconv ./internal/gguf
set +x
pe="$tmp/pocketeval"
export POCKETEVAL_MNNCONVERT="$tmp/mnnconvert"

set -x
"$pe" models convert "$gguf" --out "$tmp/fp32" --weights fp32 --embeddings fp32 --json >"$tmp/convert.json"
"$pe" models convert "$gguf" --out "$tmp/fp32-bf16emb" --weights fp32
"$pe" models convert "$gguf" --out "$tmp/int8" --weights int8 --embeddings fp32
"$pe" models convert "$gguf" --out "$tmp/int4" --weights int4
set +x
for want in '"arch": "llama"' '"rope_interleaved": true' '"vocab": 512' '"tied_output": false'; do
	if ! grep -qF "$want" "$tmp/convert.json"; then
		echo "models convert --json lacks $want:" >&2
		cat "$tmp/convert.json" >&2
		exit 1
	fi
done
# Bad input is refused before any work, with exit code 2.
rc=0
"$pe" models convert "$shared/models/gguf/missing.gguf" --out "$tmp/none" 2>/dev/null || rc=$?
if [ "$rc" != 2 ]; then
	echo "models convert of a missing file exited $rc, want 2" >&2
	exit 1
fi

# Fidelity: llama.cpp on the GGUF is the reference.
text="$shared/datasets/bbh/cot-prompts/date_understanding.txt"
set -x
"$pe" fidelity reference --runtime llamacpp --model "$gguf" --threads 1 --text "$text" --ctx 128 -o "$tmp/ref.logits"
set +x
for pkg in fp32 fp32-bf16emb int8 int4; do
	"$pe" fidelity compare --ref "$tmp/ref.logits" --runtime mnn --model "$tmp/$pkg" --threads 1 --json >"$tmp/fid-$pkg.json" 2>/dev/null
	/usr/bin/python3 - "$pkg" "$tmp/fid-$pkg.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2], encoding="utf-8"))["report"]
print("fidelity %-13s vs llama.cpp: %d positions, KL mean %.3g, top-1 agreement %.2f %%, PPL ratio %.4f" % (
    sys.argv[1], r["positions"], r["kl_mean"]["value"], 100 * r["top1_agreement"]["value"], r["ppl_ratio"]["value"]))
PY
done
printf 'max_kl_mean: 0.0001\nmin_top1_agreement: 99\nmax_ppl_increase_pct: 1\n' >"$tmp/fp32-gate.yaml"
set -x
"$pe" fidelity gate --policy "$tmp/fp32-gate.yaml" --ref "$tmp/ref.logits" --runtime mnn --model "$tmp/fp32" --threads 1
set +x

# Greedy answers on both engines: the same rendered prompts (ChatML, with
# BOS), and responses byte for byte.
run_args=(--tasks gsm8k,ifeval --limit 20 --max-tokens 64 --threads 1 --data-dir "$data")
set -x
"$pe" run --runtime llamacpp --model "$gguf" "${run_args[@]}" --out "$tmp/g-llama" >/dev/null
"$pe" run --runtime mnn --model "$tmp/fp32" "${run_args[@]}" --out "$tmp/g-mnn" >/dev/null
set +x
/usr/bin/python3 - "$tmp/g-llama" "$tmp/g-mnn" <<'PY'
import json, sys
def load(d, t):
    return {json.loads(l)["index"]: json.loads(l) for l in open(f"{d}/samples/{t}.jsonl", encoding="utf-8")}
n = same = prompts = 0
for t in ("gsm8k", "ifeval"):
    a, b = load(sys.argv[1], t), load(sys.argv[2], t)
    for i in a:
        n += 1
        prompts += a[i]["rendered_prompt"] == b[i]["rendered_prompt"] and a[i]["prompt_tokens"] == b[i]["prompt_tokens"]
        same += a[i]["response"] == b[i]["response"]
print("greedy: %d/%d responses byte-identical between llama.cpp and MNN fp32 (%d/%d prompts identical)" % (same, n, prompts, n))
if n != 40 or prompts != n or same < 35:
    sys.exit("llama.cpp and the converted package answer differently")
PY

# Crash-safe resume on the trained package (as ci-mnn.sh does on the tiny
# one): killed with SIGKILL after 2 and after 20 of 40 samples, resumed.
same_samples() {
	/usr/bin/python3 - "$tmp/$1/samples/$3.jsonl" "$tmp/$2/samples/$3.jsonl" <<'PY'
import json, sys
def load(p):
    out = []
    for line in open(p, encoding="utf-8"):
        r = json.loads(line)
        for k in [k for k in r if "timing" in k or k in ("latency_ms", "time", "duration")]:
            del r[k]
        out.append(json.dumps(r, sort_keys=True))
    return sorted(out)
sys.exit(0 if load(sys.argv[1]) == load(sys.argv[2]) else 1)
PY
}
resume_args=(run --runtime mnn --model "$tmp/fp32" --tasks gsm8k --limit 40 --max-tokens 128 --concurrency 1 --threads 1 --data-dir "$data")
set -x
"$pe" "${resume_args[@]}" --out "$tmp/clean40" >/dev/null
set +x
for at in 2 20; do
	dir="$tmp/killed$at"
	"$pe" "${resume_args[@]}" --out "$dir" >/dev/null 2>&1 &
	victim=$!
	while kill -0 "$victim" 2>/dev/null; do
		if [ "$(cat "$dir"/samples/*.jsonl 2>/dev/null | wc -l)" -ge "$at" ]; then
			kill -9 "$victim" 2>/dev/null || true
			break
		fi
		sleep 0.01
	done
	wait "$victim" 2>/dev/null || true
	set -x
	"$pe" "${resume_args[@]}" --out "$dir" >"$tmp/resume.out" 2>&1
	set +x
	if ! grep -q 'samples reused, [1-9][0-9]* generated' "$tmp/resume.out"; then
		echo "the run to be killed after $at samples was not killed mid-way:" >&2
		cat "$tmp/resume.out" >&2
		exit 1
	fi
	grep 'samples reused' "$tmp/resume.out"
	if ! same_samples clean40 "killed$at" gsm8k; then
		echo "samples differ between a clean run and one killed after $at samples and resumed" >&2
		exit 1
	fi
done

# Speed against MNN's own tool on the int4 package, 1 thread.
if [ -x "$root/bin/llm_bench" ]; then
	set -x
	"$pe" bench --runtime mnn --model "$tmp/int4" -p 128 -n 64 --rep 3 --threads 1
	(cd "$tmp" && "$root/bin/llm_bench" -m "$tmp/int4/config.json" -t 1 -p 128 -n 64 -rep 3 -c 2 -kv false)
	set +x
fi
echo "== GGUF to MNN conversion checks passed in $((SECONDS - start)) s (tests, fidelity, greedy answers, kill -9 and resume)"
check_no_survivors ci-mnn-convert.sh
