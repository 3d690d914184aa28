// mnnprobe measures, on an MNN LLM package, the two things docs/mnn.md §7
// says about reusing work across requests in MNN 3.6.1:
//
//   prefix   how far the logits of a prompt computed from a cached prefix
//            (Llm::eraseHistory, then a forward pass over the rest) are
//            from those computed from an empty cache, for several prefix
//            lengths;
//   shared   whether several sequences can share one engine's KV cache and
//            run in one forward pass (Llm::forwardRaw with an explicit
//            float mask over the whole cache and explicit positions), how
//            close their logits are to running each alone, and what one
//            decoding step of S sequences with L cached tokens each costs
//            against one step of one sequence.
//
// It is a measurement program, not part of pocketeval (which runs one
// sequence per engine). Build and run it against an installed MNN:
//
//   g++ -std=c++17 -O2 -I/opt/mnn/include tools/mnnprobe/mnnprobe.cpp -o /tmp/mnnprobe \
//       -L/opt/mnn/lib -Wl,--no-as-needed -lllm -lMNN_Express -lMNN -lpthread -Wl,-rpath,/opt/mnn/lib
//   /tmp/mnnprobe /opt/models/pocket-int4/config.json prefix
//   /tmp/mnnprobe /opt/models/pocket-int4/config.json shared 100
//
// Engine settings: 1 thread, reuse_kv true (so that generate_init keeps the
// cache), otherwise the package's; an optional JSON argument after the mode
// (and L) is merged before load.
#include <llm/llm.hpp>

#include <MNN/expr/ExprCreator.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using MNN::Express::VARP;
using MNN::Transformer::Llm;

namespace {

double now() {
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// row copies row r of a [rows, vocab] logits variable (r < 0: the last).
std::vector<float> row(VARP v, int r) {
	int vocab = v->getInfo()->dim.back();
	int rows = (int)(v->getInfo()->size / vocab);
	if (r < 0) {
		r = rows - 1;
	}
	const float *p = v->readMap<float>() + (size_t)r * vocab;
	return std::vector<float>(p, p + vocab);
}

double maxDiff(const std::vector<float> &a, const std::vector<float> &b) {
	double m = 0;
	for (size_t i = 0; i < a.size(); i++) {
		m = std::max(m, (double)std::fabs(a[i] - b[i]));
	}
	return m;
}

double maxAbs(const std::vector<float> &a) {
	double m = 0;
	for (float x : a) {
		m = std::max(m, (double)std::fabs(x));
	}
	return m;
}

int argmax(const std::vector<float> &a) { return (int)(std::max_element(a.begin(), a.end()) - a.begin()); }

// fresh clears the request state and the cache.
void fresh(Llm *llm) {
	llm->generate_init(nullptr, "");
	llm->reset();
}

// prefix compares a prompt's last logits computed whole with those
// computed after rolling back the cache of another prompt that shares its
// first keep tokens.
void prefix(Llm *llm, const std::vector<int> &p) {
	int n = (int)p.size();
	fresh(llm);
	std::vector<float> whole = row(llm->forward(p), -1);
	printf("prompt %d tokens; logits up to %.3g in magnitude\n", n, maxAbs(whole));
	for (int keep : {1, n / 4, n / 2, 3 * n / 4, n - 16, n - 4, n - 2, n - 1}) {
		std::vector<int> other(p.begin(), p.begin() + keep);
		for (int i = 0; i < 40; i++) {
			other.push_back(1000 + 7 * i);
		}
		fresh(llm);
		llm->forward(other);
		llm->generate_init(nullptr, ""); // keeps the cache with reuse_kv
		llm->eraseHistory(keep, 0);
		std::vector<int> rest(p.begin() + keep, p.end());
		std::vector<float> reused = row(llm->forward(rest), -1);
		printf("keep %4d, run %4d: max |diff| %.3g, argmax %s\n", keep, n - keep, maxDiff(whole, reused),
		       argmax(whole) == argmax(reused) ? "same" : "differs");
	}
}

// maskedForward runs ids at positions pos in one forward pass over the
// cache, each row seeing the cache entries visible[row] says.
VARP maskedForward(Llm *llm, const std::vector<int> &ids, const std::vector<int> &pos,
                   const std::vector<std::vector<bool>> &visible) {
	int s = (int)ids.size(), k = (int)visible[0].size();
	VARP mask = MNN::Express::_Input({1, 1, s, k}, MNN::Express::NCHW, halide_type_of<float>());
	float *m = mask->writeMap<float>();
	for (int i = 0; i < s; i++) {
		for (int j = 0; j < k; j++) {
			m[i * k + j] = visible[i][j] ? 0.f : std::numeric_limits<float>::lowest();
		}
	}
	VARP p = MNN::Express::_Input({1, s}, MNN::Express::NCHW, halide_type_of<int>());
	std::copy(pos.begin(), pos.end(), p->writeMap<int>());
	llm->setKVCacheInfo(s, 0); // the tokens this pass adds to the cache
	std::vector<VARP> out = llm->forwardRaw(llm->embedding(ids), mask, p);
	return out.empty() ? nullptr : out[0];
}

// shared puts two prompts in one cache and decodes one step of both in
// one pass, against each alone; then times decoding steps of S sequences
// of L cached tokens each.
void shared(Llm *llm, const std::vector<int> &p, int L) {
	int a = (int)p.size() / 2;
	std::vector<int> A(p.begin(), p.begin() + a), B(p.begin() + a, p.end());
	int b = (int)B.size();
	fresh(llm);
	std::vector<float> aloneB = row(llm->forward(B), -1);
	int tokB = argmax(aloneB);
	std::vector<float> aloneB2 = row(llm->forward(std::vector<int>{tokB}), -1);
	fresh(llm);
	std::vector<float> aloneA = row(llm->forward(A), -1);
	int tokA = argmax(aloneA);
	std::vector<float> aloneA2 = row(llm->forward(std::vector<int>{tokA}), -1);

	// A at cache entries [0, a), then B at [a, a+b) with positions 0..b-1.
	fresh(llm);
	llm->forward(A);
	std::vector<std::vector<bool>> vis(b, std::vector<bool>(a + b));
	std::vector<int> pos(b);
	for (int i = 0; i < b; i++) {
		pos[i] = i;
		for (int j = a; j <= a + i; j++) {
			vis[i][j] = true;
		}
	}
	VARP out = maskedForward(llm, B, pos, vis);
	if (out == nullptr) {
		printf("forwardRaw failed\n");
		return;
	}
	printf("prompt B (%d tokens) beside A (%d) in one cache: max |diff| %.3g against B alone, argmax %s\n", b, a,
	       maxDiff(aloneB, row(out, -1)), argmax(aloneB) == argmax(row(out, -1)) ? "same" : "differs");
	// One step of both: A's next token at entry a+b, B's at a+b+1.
	llm->set_config("{\"all_logits\":true}");
	int k = a + b + 2;
	std::vector<std::vector<bool>> vis2(2, std::vector<bool>(k));
	for (int j = 0; j < a; j++) {
		vis2[0][j] = true;
	}
	vis2[0][a + b] = true;
	for (int j = a; j < a + b; j++) {
		vis2[1][j] = true;
	}
	vis2[1][a + b + 1] = true;
	out = maskedForward(llm, {tokA, tokB}, {a, b}, vis2);
	llm->set_config("{\"all_logits\":false}");
	if (out == nullptr) {
		printf("forwardRaw failed\n");
		return;
	}
	printf("one step of A and B together: max |diff| %.3g (A) and %.3g (B) against each alone, argmax %s\n",
	       maxDiff(aloneA2, row(out, 0)), maxDiff(aloneB2, row(out, 1)),
	       argmax(aloneA2) == argmax(row(out, 0)) && argmax(aloneB2) == argmax(row(out, 1)) ? "same" : "differs");

	std::vector<int> ctx(L);
	for (int i = 0; i < L; i++) {
		ctx[i] = p[i % p.size()];
	}
	for (int S : {1, 2, 4, 8}) {
		double best = 1e9, single = 1e9;
		for (int rep = 0; rep < 3; rep++) {
			fresh(llm);
			llm->forward(ctx);
			double t0 = now();
			llm->forward(std::vector<int>{ctx[0]});
			single = std::min(single, now() - t0);
			// S sequences of L tokens each, one after another in the cache
			// (their content does not change the cost), then one step.
			fresh(llm);
			std::vector<int> all;
			for (int s = 0; s < S; s++) {
				all.insert(all.end(), ctx.begin(), ctx.end());
			}
			llm->forward(all);
			llm->set_config("{\"all_logits\":true}");
			int kv = S * L + S;
			std::vector<std::vector<bool>> v(S, std::vector<bool>(kv));
			for (int s = 0; s < S; s++) {
				for (int j = s * L; j < (s + 1) * L; j++) {
					v[s][j] = true;
				}
				v[s][S * L + s] = true;
			}
			t0 = now();
			VARP o = maskedForward(llm, std::vector<int>(S, ctx[0]), std::vector<int>(S, L), v);
			o->readMap<float>();
			best = std::min(best, now() - t0);
			llm->set_config("{\"all_logits\":false}");
		}
		printf("L %d: one step of %d sequences in one pass %.1f ms (%.1f ms a token); one sequence alone %.1f ms\n", L,
		       S, best * 1e3, best * 1e3 / S, single * 1e3);
	}
}

} // namespace

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: mnnprobe config.json prefix|shared [L] [config-json]\n");
		return 2;
	}
	std::string mode = argv[2];
	int L = 0;
	int next = 3;
	if (mode == "shared") {
		L = argc > 3 ? atoi(argv[3]) : 100;
		next = 4;
	}
	Llm *llm = Llm::createLLM(argv[1]);
	llm->set_config("{\"thread_num\":1,\"reuse_kv\":true,\"async\":false}");
	if (argc > next) {
		llm->set_config(argv[next]);
	}
	if (!llm->load()) {
		fprintf(stderr, "load %s failed\n", argv[1]);
		return 1;
	}
	std::string text;
	for (int i = 0; i < 40; i++) {
		text += "The quick brown fox number " + std::to_string(i) + " jumps over the lazy dog. ";
	}
	std::vector<int> p = llm->tokenizer_encode(text);
	if (mode == "prefix") {
		prefix(llm, p);
	} else if (mode == "shared") {
		shared(llm, p, L);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode.c_str());
		return 2;
	}
	Llm::destroy(llm);
	return 0;
}
