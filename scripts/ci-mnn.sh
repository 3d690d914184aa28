#!/usr/bin/env bash
# ci-mnn.sh — the MNN part of CI. It finds MNN (scripts/ci-lib.sh,
# find_mnn: MNN_ROOT, else /opt/mnn, else the prebuilt MNN in
# ../shared/engines/mnn-3.6.1/linux-x86_64), vets and tests pocketeval's
# MNN runtime and bench packages with -tags mnn against it (including the
# test that three bench processes measure the same peak memory within 1 %),
# runs `pocketeval bench` on the tiny shared package, with and without
# lookahead speculative decoding, and checks that run and serve, run with
# speculative decoding and run without the prefix cache give the same
# greedy answers, that run --dry-run counts prompt tokens, bench at
# several KV-cache depths and on a task's real prompts, that a run killed
# with SIGKILL and resumed equals a clean one, that wikitext.yaml scores
# perplexity in rolling windows, and that the
# decision example (examples/decisions) runs both scorings. Last it checks
# that no process it started (the server above all) is still running.
#
# Without MNN, cgo or the tiny package it says "ci-mnn: SKIPPED …" and
# exits 0; under CI=true that is a failure (exit 1) instead.
#
# Environment: MNN_ROOT; POCKETEVAL_SHARED (default <repo>/../shared) for
# the test models and the prebuilt MNN; POCKETEVAL_MNN_BENCH_MODEL, a
# Pocket-shaped package for the memory test (default: the tiny package);
# CI=true.
set -euo pipefail
export PATH=$PATH:/usr/local/go/bin
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/ci-lib.sh
mark_run

if ! root=$(find_mnn x86_64 2>&1); then
	ci_skip ci-mnn "the MNN tests: $root (docs/mnn.md §1 builds MNN, or use a prebuilt one)"
fi
if [ "$(go env CGO_ENABLED)" != 1 ]; then
	ci_skip ci-mnn "the MNN tests: MNN found at $root but cgo is disabled (CGO_ENABLED=0; install gcc and g++)"
fi
shared="${POCKETEVAL_SHARED:-$(pwd)/../shared}"
tiny="$shared/models/mnn/tiny-int4"
if [ ! -d "$tiny" ]; then
	ci_skip ci-mnn "the MNN tests: the tiny MNN package is not at $tiny"
fi

# Flags from the environment come before the package's #cgo defaults
# (/opt/mnn), so the prefix found wins.
export CGO_CXXFLAGS="-I$root/include ${CGO_CXXFLAGS:-}"
export CGO_LDFLAGS="-L$root/lib -Wl,-rpath,$root/lib ${CGO_LDFLAGS:-}"

echo "== MNN at $root"
set -x
go vet -tags mnn ./runtime/mnn/... ./bench/...
go test -count=1 -tags mnn ./runtime/mnn/... ./bench/...
set +x

tmp="$(mktemp -d)"
server=
# stop_server ends the server's process group (it runs in its own,
# started with setsid) and waits for it.
stop_server() {
	if [ -n "$server" ]; then
		kill -TERM -- "-$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		server=
	fi
}
trap 'stop_server; rm -rf "$tmp"' EXIT
set -x
go build -tags mnn -o "$tmp/pocketeval" ./cmd/pocketeval
"$tmp/pocketeval" bench --runtime mnn --model "$tiny" -p 64 -n 16 --pg 64,16 --rep 2 --threads 1
"$tmp/pocketeval" bench --runtime mnn --model "$tiny" --pg 32,8 --rep 1 --threads 1 --json >"$tmp/bench.json"
set +x
# The JSON report must hold the pp32+tg8 row with prefill and decode speeds.
for want in '"name": "pp32+tg8"' '"prefill": {' '"decode": {' '"name": "mnn"' '"engine_bytes"'; do
	if ! grep -qF "$want" "$tmp/bench.json"; then
		echo "bench --json output lacks $want:" >&2
		cat "$tmp/bench.json" >&2
		exit 1
	fi
done
# Lookahead speculative decoding: measured stepwise, with draft counts.
set -x
"$tmp/pocketeval" bench --runtime mnn --model "$tiny" --pg 32,32 --rep 2 --threads 1 --speculative lookahead --json >"$tmp/spec.json"
set +x
if ! grep -q '"speculative": {' "$tmp/spec.json" || grep -q '"verify_steps": 0,' "$tmp/spec.json"; then
	echo "bench --speculative lookahead reported no speculative decoding:" >&2
	cat "$tmp/spec.json" >&2
	exit 1
fi

# Context depths (the KV cache filled first, reuse_kv) with the SVG plot,
# and latency on a task's real prompts.
data="${POCKETEVAL_DATA:-$shared/datasets}"
set -x
"$tmp/pocketeval" bench --runtime mnn --model "$tiny" -p 32 -n 8 --depth 0,128,512 --rep 2 --threads 1 --plot "$tmp/depth.svg" --json >"$tmp/depth.json"
"$tmp/pocketeval" bench --runtime mnn --model "$tiny" --prompts-from gsm8k --limit 4 --max-tokens 16 --threads 1 --data-dir "$data" --json >"$tmp/prompts.json"
set +x
for want in '"name": "tg8@d512"' '"n_depth": 128' '"phases": {'; do
	if ! grep -qF "$want" "$tmp/depth.json"; then
		echo "bench --depth output lacks $want:" >&2
		cat "$tmp/depth.json" >&2
		exit 1
	fi
done
if ! grep -q '<svg' "$tmp/depth.svg" || ! grep -q '"ttft_ms": {' "$tmp/prompts.json"; then
	echo "bench --plot wrote no SVG or bench --prompts-from measured no time to first token" >&2
	exit 1
fi

# run and serve with --runtime mnn: the same greedy answers in process and
# through the OpenAI-compatible server.
set -x
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 6 --max-tokens 24 \
	--concurrency 2 --data-dir "$data" --out "$tmp/inproc"
# Prefix reuse (the default) changes no answer of the tiny package: the
# same responses computed from an empty cache every time.
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 6 --max-tokens 24 \
	--concurrency 2 --prefix-cache off --data-dir "$data" --out "$tmp/noprefix"
set +x
for task in gsm8k ifeval; do
	if ! cmp -s <(grep -o '"response":"[^"]*"' "$tmp/inproc/samples/$task.jsonl") <(grep -o '"response":"[^"]*"' "$tmp/noprefix/samples/$task.jsonl"); then
		echo "responses for $task differ between --prefix-cache on and off" >&2
		exit 1
	fi
done
# Reproducible by default: a second clean run with the default settings,
# and one with the prefix cache on, give byte-identical samples, timings
# aside (README, Reproducibility).
set -x
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 6 --max-tokens 24 \
	--concurrency 2 --data-dir "$data" --out "$tmp/inproc2"
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 6 --max-tokens 24 \
	--concurrency 2 --prefix-cache on --data-dir "$data" --out "$tmp/prefixon"
set +x
# same_samples A B TASK: the samples of TASK in runs A and B are equal,
# timings aside, in any line order.
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
for other in inproc2 prefixon; do
	for task in gsm8k ifeval; do
		if ! same_samples inproc "$other" "$task"; then
			echo "samples of $task differ between two runs of the same configuration ($other)" >&2
			exit 1
		fi
	done
done
# Crash-safe resume: a run killed with SIGKILL after 2 and after 20 of its
# 40 samples, then resumed with the same command, gives a clean run's
# samples; the resumed run must have had samples left to generate.
resume_args=(run --runtime mnn --model "$tiny" --tasks gsm8k --limit 40 --max-tokens 128 --concurrency 1 --data-dir "$data")
set -x
"$tmp/pocketeval" "${resume_args[@]}" --out "$tmp/clean40" >/dev/null
set +x
for at in 2 20; do
	dir="$tmp/killed$at"
	"$tmp/pocketeval" "${resume_args[@]}" --out "$dir" >/dev/null 2>&1 &
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
	"$tmp/pocketeval" "${resume_args[@]}" --out "$dir" >"$tmp/resume.out" 2>&1
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
# The dry run (with the prefix cache asked for: auto is off for MNN) counts
# prompt tokens with the package's tokenizer and what
# the prefix cache supplies (runtime.PromptCounter).
set -x
"$tmp/pocketeval" run --dry-run --runtime mnn --model "$tiny" --tasks bbh --shard 0/50 --prefix-cache on --data-dir "$data" --json >"$tmp/plan.json"
set +x
if ! grep -q '"counted": true' "$tmp/plan.json" || grep -q '"cached_tokens": 0,' "$tmp/plan.json"; then
	echo "run --dry-run counted no prompt tokens, or no cached ones, for BBH:" >&2
	cat "$tmp/plan.json" >&2
	exit 1
fi
set -x
port=$((20000 + $$ % 20000))
setsid "$tmp/pocketeval" serve --runtime mnn --model "$tiny" --addr "127.0.0.1:$port" --quiet &
server=$!
set +x
i=0
until curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ "$i" -gt 600 ] || ! kill -0 "$server" 2>/dev/null; then
		echo "pocketeval serve did not become healthy" >&2
		exit 1
	fi
	sleep 0.1
done
set -x
"$tmp/pocketeval" run --runtime openai --base-url "http://127.0.0.1:$port/v1" --model tiny --tasks gsm8k,ifeval \
	--limit 6 --max-tokens 24 --concurrency 2 --data-dir "$data" --out "$tmp/served"
# The served run records no template or thinking mode (the server applies
# them), so the two are compared as unlike runs, marked as such.
"$tmp/pocketeval" compare "$tmp/inproc" "$tmp/served" --allow-unlike --json >"$tmp/compare.json"
set +x
stop_server
# Identical greedy responses: every task's difference is exactly zero and
# no sample is discordant.
if [ "$(grep -c '"diff": 0,' "$tmp/compare.json")" != 2 ] || grep -q '"only_[ab]": [1-9]' "$tmp/compare.json"; then
	echo "in-process and served MNN runs differ:" >&2
	cat "$tmp/compare.json" >&2
	exit 1
fi
for task in gsm8k ifeval; do
	if ! cmp -s <(grep -o '"response":"[^"]*"' "$tmp/inproc/samples/$task.jsonl") <(grep -o '"response":"[^"]*"' "$tmp/served/samples/$task.jsonl"); then
		echo "responses for $task differ between in-process and served MNN" >&2
		exit 1
	fi
done
# Speculative decoding is lossless at temperature 0: every response is
# checked against plain decoding (--speculative-verify fails the sample
# otherwise) and equals the in-process run's.
set -x
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks gsm8k,ifeval --limit 6 --max-tokens 24 \
	--speculative lookahead --speculative-verify --data-dir "$data" --out "$tmp/spec"
set +x
for task in gsm8k ifeval; do
	if ! cmp -s <(grep -o '"response":"[^"]*"' "$tmp/inproc/samples/$task.jsonl") <(grep -o '"response":"[^"]*"' "$tmp/spec/samples/$task.jsonl"); then
		echo "responses for $task differ between plain and speculative decoding" >&2
		exit 1
	fi
done
# Decisions (docs/decisions.md): the synthetic intent example scored both
# ways on the tiny package, with the selective-prediction report, a
# latency per decision and the test against chance in the summary.
set -x
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --tasks examples/decisions --threads 1 --out "$tmp/decisions" --json >"$tmp/decisions.json"
set +x
for want in '"task": "app_decision_first_token"' '"task": "app_decision_option"' '"scoring": "first_token"' '"scoring": "option/tokens"' '"latency_ms_median"' '"above_chance"'; do
	if ! grep -qF "$want" "$tmp/decisions.json"; then
		echo "run --json of examples/decisions lacks $want:" >&2
		cat "$tmp/decisions.json" >&2
		exit 1
	fi
done
# Fidelity (docs/quantization.md) with MNN on both sides: a reference
# saved from tiny-fp32, compared with tiny-int4 (a token-level report over
# the same positions) and gated against tiny-fp32 itself, which must agree
# at every position. The two packages share the tokenizer but not the
# weights (mnn-tinyllm draws the int4 codes at random), so their KL is
# reported, not bounded.
fp32="$shared/models/mnn/tiny-fp32"
text="$shared/datasets/bbh/cot-prompts/date_understanding.txt"
printf 'max_kl_mean: 0.0001\nmin_top1_agreement: 100\nmax_ppl_increase_pct: 0.01\n' >"$tmp/self-gate.yaml"
set -x
"$tmp/pocketeval" fidelity reference --runtime mnn --model "$fp32" --threads 1 --text "$text" --ctx 128 -o "$tmp/ref.logits"
"$tmp/pocketeval" fidelity compare --ref "$tmp/ref.logits" --runtime mnn --model "$tiny" --threads 1 --json >"$tmp/fidelity.json"
"$tmp/pocketeval" fidelity gate --policy "$tmp/self-gate.yaml" --ref "$tmp/ref.logits" --runtime mnn --model "$fp32" --threads 1
set +x
for want in '"kl_mean": {' '"top1_agreement": {' '"ppl_cand": {' '"tokens_per_sec"'; do
	if ! grep -qF "$want" "$tmp/fidelity.json"; then
		echo "fidelity compare --json of tiny-int4 against tiny-fp32 lacks $want:" >&2
		cat "$tmp/fidelity.json" >&2
		exit 1
	fi
done
# Perplexity (loglikelihood_rolling): lm-eval's wikitext.yaml, unchanged,
# on a wikitext-shaped split, in one window per document (MNN's
# max_all_tokens 2048) and in windows of 64 tokens; both runs report the
# three metrics, and their log-likelihoods differ (a 64-token window sees
# less context), while bits per byte stays finite.
wikitext="evals/taskfile/testdata/lmeval/tasks/wikitext/wikitext.yaml"
wikidata="evals/taskfile/testdata/lmeval/data"
set -x
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --threads 1 --tasks "$wikitext" --data-dir "$wikidata" --out "$tmp/wiki" --json >"$tmp/wiki.json"
"$tmp/pocketeval" run --runtime mnn --model "$tiny" --threads 1 --mnn-config '{"max_all_tokens":64}' --tasks "$wikitext" --data-dir "$wikidata" --out "$tmp/wiki64" --json >"$tmp/wiki64.json"
set +x
if ! /usr/bin/python3 - "$tmp/wiki.json" "$tmp/wiki64.json" <<'PY'
import json, math, sys
def metrics(p):
    t = json.load(open(p, encoding="utf-8"))["tasks"][0]
    return {m["name"]: m["value"] for m in t["metrics"]}
a, b = metrics(sys.argv[1]), metrics(sys.argv[2])
for m in (a, b):
    assert set(m) == {"word_perplexity", "byte_perplexity", "bits_per_byte"}, m
    assert all(math.isfinite(v) and v > 0 for v in m.values()), m
    # bits per byte is log2 of the byte perplexity
    assert abs(m["bits_per_byte"] - math.log2(m["byte_perplexity"])) < 1e-9 * m["bits_per_byte"], m
assert a["bits_per_byte"] != b["bits_per_byte"], (a, b)
print("wikitext on MNN: bits_per_byte %.4f (one window), %.4f (64-token windows)" % (a["bits_per_byte"], b["bits_per_byte"]))
PY
then
	echo "wikitext.yaml on MNN did not report consistent perplexities:" >&2
	cat "$tmp/wiki.json" "$tmp/wiki64.json" >&2
	exit 1
fi
check_no_survivors ci-mnn
echo "== MNN checks passed (run, serve, speculative decoding, the prefix cache and resume agree; decisions scored both ways; perplexity in rolling windows)"
