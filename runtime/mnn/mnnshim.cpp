//go:build cgo && mnn

// mnnshim.cpp implements mnnshim.h over MNN::Transformer::Llm. It never
// subclasses MNN types and uses no exceptions of its own.

#include "mnnshim.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <malloc.h>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include <MNN/Interpreter.hpp>
#include <llm/llm.hpp>

using MNN::Transformer::ChatMessages;
using MNN::Transformer::Llm;
using MNN::Transformer::LlmStatus;

namespace {

// pieceBuf collects what the engine writes to its output stream during one
// step and notes when the first non-empty write of a request happened.
class pieceBuf : public std::streambuf {
public:
	std::string piece;
	std::chrono::steady_clock::time_point start;
	int64_t first_us = -1;

protected:
	std::streamsize xsputn(const char *s, std::streamsize n) override {
		if (n > 0) {
			note();
			piece.append(s, (size_t)n);
		}
		return n;
	}
	int_type overflow(int_type c) override {
		if (c != traits_type::eof()) {
			note();
			piece.push_back((char)c);
		}
		return c;
	}

private:
	void note() {
		if (first_us < 0) {
			first_us = std::chrono::duration_cast<std::chrono::microseconds>(
			               std::chrono::steady_clock::now() - start)
			               .count();
		}
	}
};

std::once_flag stdioOnce;

// fixStdio runs once per process, before the first engine. It sends C
// stdio's stdout (where MNN_PRINT and MNN_ERROR go on Linux) to stderr,
// unbuffered: a Go program exits without flushing C buffers, so otherwise
// MNN's messages vanish when stdout is a pipe, and they would mix with the
// machine-readable output on file descriptor 1. It also fixes glibc's mmap
// threshold (below).
void fixStdio() {
	std::call_once(stdioOnce, [] {
		fflush(stdout);
		stdout = stderr;
		setvbuf(stderr, nullptr, _IONBF, 0);
#ifdef M_MMAP_THRESHOLD
		// glibc raises its mmap threshold (up to 32 MiB) each time a
		// large mapped block is freed, so after one engine has loaded
		// and gone, the next one's big buffers come from the heap instead
		// of mmap and its peak memory is up to 47 MiB higher than in a
		// fresh process. Fixing the threshold at its default (128 KiB)
		// turns that adjustment off: every engine measures alike.
		mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	});
}

char *dupString(const std::string &s) {
	char *p = (char *)malloc(s.size() + 1);
	if (p != nullptr) {
		memcpy(p, s.data(), s.size());
		p[s.size()] = 0;
	}
	return p;
}

bool failed(const MNN::Transformer::LlmContext *c) {
	return c->status == LlmStatus::INTERNAL_ERROR || c->status == LlmStatus::TIMEOUT ||
	       c->status == LlmStatus::USER_CANCEL || c->status == LlmStatus::NOT_LOADED;
}

} // namespace

struct mnnshim_llm {
	Llm *llm = nullptr;
	std::mutex mu;
	pieceBuf buf;
	std::ostream os{&buf};
	std::string err;
	std::string piece; // the last step's bytes, handed to the caller
	std::vector<int> stepIds, stepEnds; // the last step's tokens and their ends in piece
	MNN::Express::VARP logits; // the last mnnshim_forward's output
};

static void fillStats(mnnshim_llm *h, mnnshim_stats *st) {
	if (st == nullptr) {
		return;
	}
	const MNN::Transformer::LlmContext *c = h->llm->getContext();
	st->prompt_tokens = c->prompt_len;
	st->gen_tokens = c->gen_seq_len;
	st->stopped = h->llm->stoped() ? 1 : 0;
	st->status = (int)c->status;
	st->load_us = c->load_us;
	st->prefill_us = c->prefill_us;
	st->decode_us = c->decode_us;
	st->sample_us = c->sample_us;
	st->first_piece_us = h->buf.first_us;
	st->last_token = c->current_token;
	st->ctx_len = c->all_seq_len;
	st->kv_len = (int64_t)h->llm->getCurrentHistory();
}

static int fail(mnnshim_llm *h, const std::string &msg) {
	h->err = msg;
	return -1;
}

// keepPrefix prepares a request of n tokens that starts from the first keep
// entries of the KV cache: keep 0 clears the request state and the cache
// (Llm::reset, as every request did before prefix reuse); otherwise the
// entries after keep are dropped (Llm::eraseHistory), which sets the
// context length to keep, so the next forward pass places its tokens from
// position keep on. That needs reuse_kv: without it generate_init clears
// the whole cache at the start of every request.
static int keepPrefix(mnnshim_llm *h, int keep, int n) {
	if (keep == 0) {
		h->llm->reset();
		return 0;
	}
	const MNN::Transformer::LlmContext *c = h->llm->getContext();
	size_t have = h->llm->getCurrentHistory();
	if (!h->llm->reuse_kv()) {
		return fail(h, "reusing " + std::to_string(keep) + " cached tokens needs reuse_kv set at load");
	}
	if (keep < 0 || keep >= n || (size_t)keep > have || keep > c->all_seq_len) {
		return fail(h, "cannot start a " + std::to_string(n) + "-token request from " + std::to_string(keep) +
		                   " cached tokens: the cache holds " + std::to_string(have) + " entries, the context " +
		                   std::to_string(c->all_seq_len) + " tokens");
	}
	if ((size_t)keep < have) {
		h->llm->eraseHistory((size_t)keep, 0);
	}
	return 0;
}

extern "C" {

mnnshim_llm *mnnshim_create(const char *config_path, const char *config_json, char **err) {
	fixStdio();
	Llm *llm = Llm::createLLM(config_path);
	if (llm == nullptr) {
		if (err != nullptr) {
			*err = dupString(std::string("create LLM from ") + config_path + " failed");
		}
		return nullptr;
	}
	if (config_json != nullptr && config_json[0] != 0 && !llm->set_config(config_json)) {
		Llm::destroy(llm);
		if (err != nullptr) {
			*err = dupString(std::string("set_config rejected ") + config_json);
		}
		return nullptr;
	}
	if (!llm->load()) {
		Llm::destroy(llm);
		if (err != nullptr) {
			*err = dupString(std::string("load ") + config_path + " failed (MNN's message is on stderr)");
		}
		return nullptr;
	}
	mnnshim_llm *h = new mnnshim_llm();
	h->llm = llm;
	return h;
}

void mnnshim_destroy(mnnshim_llm *h) {
	if (h == nullptr) {
		return;
	}
	{
		std::lock_guard<std::mutex> l(h->mu);
		h->logits = nullptr;
		Llm::destroy(h->llm);
		h->llm = nullptr;
	}
	delete h;
	malloc_trim(0);
}

const char *mnnshim_version(void) { return MNN::getVersion(); }

const char *mnnshim_last_error(mnnshim_llm *h) { return h->err.c_str(); }

char *mnnshim_dump_config(mnnshim_llm *h) {
	std::lock_guard<std::mutex> l(h->mu);
	return dupString(h->llm->dump_config());
}

int mnnshim_set_config(mnnshim_llm *h, const char *json) {
	std::lock_guard<std::mutex> l(h->mu);
	if (!h->llm->set_config(json)) {
		return fail(h, std::string("set_config rejected ") + json);
	}
	return 0;
}

char *mnnshim_chat_template(mnnshim_llm *h, const char **roles, const char **contents, int n) {
	std::lock_guard<std::mutex> l(h->mu);
	ChatMessages msgs;
	msgs.reserve(n);
	for (int i = 0; i < n; i++) {
		msgs.emplace_back(roles[i], contents[i]);
	}
	return dupString(h->llm->apply_chat_template(msgs));
}

int mnnshim_tokenize(mnnshim_llm *h, const char *text, int n, int **ids) {
	std::lock_guard<std::mutex> l(h->mu);
	std::vector<int> v = h->llm->tokenizer_encode(std::string(text, (size_t)n));
	*ids = (int *)malloc(sizeof(int) * (v.size() + 1));
	if (*ids == nullptr) {
		return fail(h, "out of memory");
	}
	if (!v.empty()) {
		memcpy(*ids, v.data(), sizeof(int) * v.size());
	}
	return (int)v.size();
}

int mnnshim_is_stop(mnnshim_llm *h, int id) {
	std::lock_guard<std::mutex> l(h->mu);
	return h->llm->is_stop(id) ? 1 : 0;
}

int mnnshim_prefill(mnnshim_llm *h, const int *ids, int n, int keep, mnnshim_stats *st) {
	std::lock_guard<std::mutex> l(h->mu);
	h->err.clear();
	if (n <= 0) {
		return fail(h, "empty prompt");
	}
	h->buf.piece.clear();
	h->buf.first_us = -1;
	h->buf.start = std::chrono::steady_clock::now();
	if (keepPrefix(h, keep, n) != 0) {
		return -1;
	}
	// response() runs generate_init, which keeps the context with
	// reuse_kv; prompt_len is then the tokens run, n - keep.
	std::vector<int> v(ids + keep, ids + n);
	// max_new_tokens 0: prefill only; the decode loop is mnnshim_step.
	h->llm->response(v, &h->os, "", 0);
	fillStats(h, st);
	if (failed(h->llm->getContext())) {
		return fail(h, "prefill failed with status " + std::to_string((int)h->llm->getContext()->status) +
		                   " (MNN's message is on stderr)");
	}
	return 0;
}

int mnnshim_step(mnnshim_llm *h, const char **piece, const int **ids, const int **ends, int *n, mnnshim_stats *st) {
	std::lock_guard<std::mutex> l(h->mu);
	h->buf.piece.clear();
	const MNN::Transformer::LlmContext *c = h->llm->getContext();
	size_t before = c->output_tokens.size();
	h->llm->generate(1);
	h->buf.piece.clear();
	h->piece.clear();
	h->stepIds.clear();
	h->stepEnds.clear();
	for (size_t i = before; i < c->output_tokens.size(); i++) {
		int id = c->output_tokens[i];
		if (h->llm->is_stop(id)) {
			break; // only the last token of a step can be a stop token
		}
		h->piece += h->llm->tokenizer_decode(id);
		h->stepIds.push_back(id);
		h->stepEnds.push_back((int)h->piece.size());
	}
	*piece = h->piece.data();
	*ids = h->stepIds.data();
	*ends = h->stepEnds.data();
	*n = (int)h->stepIds.size();
	fillStats(h, st);
	if (failed(c)) {
		return fail(h, "decode failed with status " + std::to_string((int)c->status) +
		                   " (MNN's message is on stderr)");
	}
	return 0;
}

void mnnshim_reset(mnnshim_llm *h) {
	std::lock_guard<std::mutex> l(h->mu);
	h->llm->reset();
}

int mnnshim_bench(mnnshim_llm *h, const int *ids, int n, int max_new, mnnshim_stats *st) {
	std::lock_guard<std::mutex> l(h->mu);
	h->err.clear();
	if (n <= 0) {
		return fail(h, "empty prompt");
	}
	h->buf.piece.clear();
	h->buf.first_us = -1;
	h->buf.start = std::chrono::steady_clock::now();
	h->llm->reset();
	std::vector<int> v(ids, ids + n);
	// The stream only records the time of the first piece; writing to it
	// is part of decode_us, as in llm_demo.
	h->llm->response(v, &h->os, "", max_new);
	h->buf.piece.clear();
	fillStats(h, st);
	if (failed(h->llm->getContext())) {
		return fail(h, "bench run failed with status " + std::to_string((int)h->llm->getContext()->status) +
		                   " (MNN's message is on stderr)");
	}
	return 0;
}

int mnnshim_loglik(mnnshim_llm *h, const int *ids, int n, int start, int keep, double *logprob, int *greedy) {
	std::lock_guard<std::mutex> l(h->mu);
	h->err.clear();
	if (n < 2 || start < 1 || start >= n) {
		return fail(h, "log-likelihood needs at least one context and one continuation token");
	}
	if (keep < 0 || keep >= start) {
		return fail(h, "log-likelihood must run the last context token: keep " + std::to_string(keep) +
		                   " cached tokens, context " + std::to_string(start));
	}
	h->llm->generate_init(nullptr, "");
	if (keepPrefix(h, keep, n) != 0) {
		return -1;
	}
	if (!h->llm->set_config("{\"all_logits\":true}")) {
		return fail(h, "set_config all_logits rejected");
	}
	// Row r of the logits is position keep + r, which predicts token
	// keep + r + 1.
	std::vector<int> v(ids + keep, ids + n);
	MNN::Express::VARP logits = h->llm->forward(v, true);
	int rc = 0;
	if (logits == nullptr || logits->getInfo() == nullptr) {
		rc = fail(h, "forward returned no logits (MNN's message is on stderr)");
	} else {
		const std::vector<int> &dim = logits->getInfo()->dim;
		int vocab = dim.empty() ? 0 : dim.back();
		int seq = vocab > 0 ? (int)(logits->getInfo()->size / vocab) : 0;
		const float *p = logits->readMap<float>();
		if (p == nullptr || seq != n - keep) {
			rc = fail(h, "forward returned logits for " + std::to_string(seq) + " positions, want " +
			                 std::to_string(n - keep));
		} else {
			double sum = 0;
			bool all = true;
			for (int i = start; i < n; i++) {
				const float *row = p + (size_t)(i - 1 - keep) * vocab;
				int target = ids[i];
				if (target < 0 || target >= vocab) {
					rc = fail(h, "token id " + std::to_string(target) + " outside the vocabulary of " +
					                 std::to_string(vocab));
					break;
				}
				float mx = -std::numeric_limits<float>::infinity();
				int arg = 0;
				for (int k = 0; k < vocab; k++) {
					if (row[k] > mx) {
						mx = row[k];
						arg = k;
					}
				}
				double z = 0;
				for (int k = 0; k < vocab; k++) {
					z += std::exp((double)row[k] - (double)mx);
				}
				sum += (double)row[target] - (double)mx - std::log(z);
				if (arg != target && row[target] < mx) {
					all = false;
				}
			}
			*logprob = sum;
			*greedy = all ? 1 : 0;
		}
	}
	h->llm->set_config("{\"all_logits\":false}");
	return rc;
}

int mnnshim_forward(mnnshim_llm *h, const int *ids, int n, int keep, const float **logits, int *vocab) {
	std::lock_guard<std::mutex> l(h->mu);
	h->err.clear();
	if (n <= 0) {
		return fail(h, "empty input");
	}
	int from = 0;
	if (keep >= 0) {
		h->llm->generate_init(nullptr, "");
		if (keepPrefix(h, keep, n) != 0) {
			return -1;
		}
		from = keep;
	}
	std::vector<int> v(ids + from, ids + n);
	h->logits = h->llm->forward(v, keep >= 0);
	if (h->logits == nullptr || h->logits->getInfo() == nullptr) {
		return fail(h, "forward returned no logits (MNN's message is on stderr)");
	}
	const std::vector<int> &dim = h->logits->getInfo()->dim;
	int vs = dim.empty() ? 0 : dim.back();
	const float *p = h->logits->readMap<float>();
	if (p == nullptr || vs <= 0) {
		return fail(h, "forward returned unreadable logits");
	}
	size_t rows = h->logits->getInfo()->size / vs;
	*logits = p + (rows - 1) * (size_t)vs;
	*vocab = vs;
	return 0;
}

int mnnshim_logits(mnnshim_llm *h, const int *ids, int n, const float **logits, int *rows, int *vocab) {
	std::lock_guard<std::mutex> l(h->mu);
	h->err.clear();
	if (n <= 0) {
		return fail(h, "empty input");
	}
	h->llm->generate_init(nullptr, "");
	keepPrefix(h, 0, n);
	if (!h->llm->set_config("{\"all_logits\":true}")) {
		return fail(h, "set_config all_logits rejected");
	}
	std::vector<int> v(ids, ids + n);
	h->logits = h->llm->forward(v, true);
	int rc = 0;
	const float *p = nullptr;
	int vs = 0;
	if (h->logits == nullptr || h->logits->getInfo() == nullptr) {
		rc = fail(h, "forward returned no logits (MNN's message is on stderr)");
	} else {
		const std::vector<int> &dim = h->logits->getInfo()->dim;
		vs = dim.empty() ? 0 : dim.back();
		p = h->logits->readMap<float>();
		int seq = vs > 0 ? (int)(h->logits->getInfo()->size / vs) : 0;
		if (p == nullptr || seq != n) {
			rc = fail(h, "forward returned logits for " + std::to_string(seq) + " positions, want " +
			                 std::to_string(n));
		}
	}
	h->llm->set_config("{\"all_logits\":false}");
	if (rc != 0) {
		h->logits = nullptr;
		return rc;
	}
	*logits = p;
	*rows = n;
	*vocab = vs;
	return 0;
}

void mnnshim_piece(mnnshim_llm *h, int id, const char **piece, int *len) {
	std::lock_guard<std::mutex> l(h->mu);
	h->piece = h->llm->tokenizer_decode(id);
	*piece = h->piece.data();
	*len = (int)h->piece.size();
}

void mnnshim_free(void *p) { free(p); }

} // extern "C"
