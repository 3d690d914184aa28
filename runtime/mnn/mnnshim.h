/* mnnshim.h: a small C interface over MNN's C++ LLM engine
 * (MNN::Transformer::Llm), written for pocketeval's runtime/mnn package.
 * Pure C so cgo can call it; the implementation is mnnshim.cpp.
 *
 * Every function that takes a handle serialises on a per-handle mutex: one
 * Llm is not safe for concurrent use. Strings returned as char* are
 * malloc'd and released with mnnshim_free. */
#ifndef POCKETEVAL_MNNSHIM_H
#define POCKETEVAL_MNNSHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mnnshim_llm mnnshim_llm;

/* Per-request figures read from the engine's LlmContext. */
typedef struct {
	int prompt_tokens;   /* tokens in the last prefill */
	int gen_tokens;      /* sampled tokens, including a final stop token */
	int stopped;         /* 1 when the last sampled token is a stop token */
	int status;          /* LlmStatus: -1 not loaded, 0 running, 1 finished, 2 max tokens, 3 cancel, 4 error, 5 timeout */
	int64_t load_us;     /* cumulative load() time */
	int64_t prefill_us;  /* forward pass over the prompt */
	int64_t decode_us;   /* per non-stop token: detokenize + forward */
	int64_t sample_us;
	int64_t first_piece_us; /* from the start of the call to the first non-empty piece; -1 if none */
	int last_token;         /* the last sampled token id; -1 if none */
	int ctx_len;            /* LlmContext::all_seq_len: tokens kept in the context */
	int64_t kv_len;         /* Llm::getCurrentHistory(): KV entries after the last forward pass,
	                           including draft tokens a speculative step will drop */
} mnnshim_stats;

/* mnnshim_create constructs an Llm from config_path, merges config_json
 * (runtime settings that only take effect in load()), then loads it. On
 * failure it returns NULL and, when err is not NULL, sets *err to a
 * malloc'd message. */
mnnshim_llm *mnnshim_create(const char *config_path, const char *config_json, char **err);
/* mnnshim_destroy releases the engine and returns the freed heap memory
 * to the operating system (malloc_trim). */
void mnnshim_destroy(mnnshim_llm *h);

/* mnnshim_version returns MNN's library version (static storage). */
const char *mnnshim_version(void);

/* mnnshim_last_error returns the handle's last error (static until the
 * next call on the handle); "" when none. */
const char *mnnshim_last_error(mnnshim_llm *h);

char *mnnshim_dump_config(mnnshim_llm *h);
int mnnshim_set_config(mnnshim_llm *h, const char *json);

/* mnnshim_chat_template renders messages with the package's chat template
 * (adding the generation prompt). */
char *mnnshim_chat_template(mnnshim_llm *h, const char **roles, const char **contents, int n);

/* mnnshim_tokenize encodes the n bytes at text (no template) into *ids
 * (malloc'd) and returns the count, or -1 on error. */
int mnnshim_tokenize(mnnshim_llm *h, const char *text, int n, int **ids);
/* mnnshim_is_stop reports whether id is a stop token. */
int mnnshim_is_stop(mnnshim_llm *h, int id);

/* Prefix reuse. A request may start from the first keep entries of the
 * KV cache the engine holds from earlier requests, when they are the KV of
 * ids[0:keep]: the rest of the cache is dropped (Llm::eraseHistory) and
 * only ids[keep:] run through the model. keep 0 clears the cache (and the
 * per-request state) as every request did before. keep > 0 needs the
 * engine loaded with reuse_kv true (otherwise MNN clears the cache at the
 * start of every request), 0 < keep < n, and keep at most the entries the
 * cache holds; which entries those are is the caller's to know. */

/* mnnshim_prefill starts a request from the first keep cached entries
 * (see above) and runs the rest of the prompt through the model. Returns
 * 0 on success. */
int mnnshim_prefill(mnnshim_llm *h, const int *ids, int n, int keep, mnnshim_stats *st);
/* mnnshim_step runs one decoding step, generate(1): it samples one token
 * and, unless it is a stop token, runs its forward pass; with speculative
 * decoding one step verifies a draft and can decode several tokens.
 * *ids/*n receive the non-stop tokens the step decoded, *piece the bytes
 * of their pieces concatenated (possibly partial UTF-8) and *ends each
 * token's end offset in *piece; all valid until the next call on h.
 * Whether the step ended on a stop token is st->stopped. Returns 0 on
 * success. */
int mnnshim_step(mnnshim_llm *h, const char **piece, const int **ids, const int **ends, int *n, mnnshim_stats *st);
/* mnnshim_reset clears history and marks the KV cache for removal. */
void mnnshim_reset(mnnshim_llm *h);

/* mnnshim_bench runs llm_bench's measurement, response(ids, max_new), with
 * an output stream that only notes when the first piece arrives. Returns 0
 * on success. */
int mnnshim_bench(mnnshim_llm *h, const int *ids, int n, int max_new, mnnshim_stats *st);

/* mnnshim_loglik runs one forward pass with all-position logits over
 * ids[keep:], from the first keep cached entries (see above; keep <
 * start), and sums log P(ids[i] | ids[:i]) for i in [start, n). *greedy
 * is 1 when every such token is the argmax. The KV of all n tokens stays
 * in the cache. Returns 0 on success. */
int mnnshim_loglik(mnnshim_llm *h, const int *ids, int n, int start, int keep, double *logprob, int *greedy);

/* mnnshim_forward runs ids through the model and points *logits at the
 * last position's logits (*vocab floats, valid until the next call on h).
 * With keep >= 0 ids is a new prompt, started from the first keep cached
 * entries (see above) so that only ids[keep:] run; with keep < 0 ids
 * continue the cached context. Returns 0 on success. Used for sampling in
 * the caller. */
int mnnshim_forward(mnnshim_llm *h, const int *ids, int n, int keep, const float **logits, int *vocab);
/* mnnshim_logits runs ids through the model from an empty cache with
 * all-position logits and points *logits at *rows rows of *vocab floats:
 * row r is the scores for the token following ids[r]. Valid until the
 * next call on h. Returns 0 on success. */
int mnnshim_logits(mnnshim_llm *h, const int *ids, int n, const float **logits, int *rows, int *vocab);
/* mnnshim_piece points *piece/*len at token id's bytes (valid until the
 * next call on h). */
void mnnshim_piece(mnnshim_llm *h, int id, const char **piece, int *len);

void mnnshim_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
