// mnnconvert writes the graph of an MNN LLM package (llm.mnn and
// llm.mnn.weight) from dequantized decoder weights, with MNN's Express API.
// `pocketeval models convert` reads a GGUF file, dequantizes its tensors to
// float32 and runs this tool on them; it also writes the tokenizer, the
// embeddings and the configuration files. Build it against an MNN prefix
// (the headers of include/schema and include/flatbuffers come with the
// prebuilt prefixes of ../shared/engines, or from MNN's source tree):
//
//   g++ -std=c++17 -O2 -I$MNN_ROOT/include -I$MNN_ROOT/include/schema \
//       -I$MNN_ROOT/include/flatbuffers tools/mnnconvert/mnnconvert.cpp -o mnnconvert \
//       -L$MNN_ROOT/lib -Wl,--no-as-needed -lMNN_Express -lMNN -Wl,-rpath,$MNN_ROOT/lib
//
// Usage: mnnconvert SPEC WEIGHTS OUTDIR
//
// SPEC is a text file of "key value" lines (vocab, hidden, layers, heads,
// kv_heads, head_dim, ffn, eps, theta, bits, block, qk_norm, embed_parts, asym) followed by
// "tensor NAME ROWS COLS OFFSET" lines; WEIGHTS holds the tensors as
// little-endian float32, row-major [ROWS][COLS] (a linear layer's [out][in]),
// each at OFFSET floats. The graph is the decoder MNN's LLM engine loads:
// inputs input_ids (the embeddings, [S,1,H]), attention_mask, position_ids
// and logits_index; output logits. Rotary embedding is the "rotate half"
// (NeoX) form: the caller reorders the rows of Q and K for models whose
// file stores them for interleaved pairs. bits 0 keeps float32 weights in
// llm.mnn; bits 8 or 4 quantizes every linear layer per block of `block`
// inputs into llm.mnn.weight as MNN's llmexport does: with asym 1 a minimum
// and a scale a block (its default), else a scale alone (--sym).
#include <MNN/expr/Expr.hpp>
#include <MNN/expr/ExprCreator.hpp>
#include "MNN_generated.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace MNN;
using namespace MNN::Express;

namespace {

struct Tensor {
    int rows = 0, cols = 0;
    int64_t offset = 0;
};

struct Spec {
    std::map<std::string, double> num;
    std::map<std::string, Tensor> tensors;
};

[[noreturn]] void fail(const std::string& msg) {
    fprintf(stderr, "mnnconvert: %s\n", msg.c_str());
    exit(2);
}

Spec readSpec(const std::string& path) {
    std::ifstream in(path);
    if (!in) fail("cannot open " + path);
    Spec s;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string key;
        ls >> key;
        if (key == "tensor") {
            std::string name;
            Tensor t;
            if (!(ls >> name >> t.rows >> t.cols >> t.offset)) fail(path + ":" + std::to_string(n) + ": bad tensor line");
            s.tensors[name] = t;
        } else {
            double v;
            if (!(ls >> v)) fail(path + ":" + std::to_string(n) + ": bad value for " + key);
            s.num[key] = v;
        }
    }
    return s;
}

class Builder {
public:
    Builder(const Spec& spec, const std::string& weights, const std::string& outdir)
        : spec_(spec) {
        wf_ = fopen(weights.c_str(), "rb");
        if (!wf_) fail("cannot open " + weights);
        bits_ = (int)get("bits");
        block_ = (int)get("block");
        asym_ = spec_.num.count("asym") && get("asym") != 0;
        if (bits_ != 0 && bits_ != 4 && bits_ != 8) fail("bits must be 0, 4 or 8");
        std::string wpath = outdir + "/llm.mnn.weight";
        out_ = fopen(wpath.c_str(), "wb");
        if (!out_) fail("cannot create " + wpath);
    }
    ~Builder() {
        if (wf_) fclose(wf_);
        if (out_) fclose(out_);
    }
    double get(const std::string& k) const {
        auto it = spec_.num.find(k);
        if (it == spec_.num.end()) fail("spec lacks " + k);
        return it->second;
    }
    bool has(const std::string& name) const { return spec_.tensors.count(name) > 0; }
    std::vector<float> load(const std::string& name, int rows, int cols) {
        auto it = spec_.tensors.find(name);
        if (it == spec_.tensors.end()) fail("spec lacks tensor " + name);
        const Tensor& t = it->second;
        if (t.rows != rows || t.cols != cols) {
            fail("tensor " + name + " is " + std::to_string(t.rows) + "x" + std::to_string(t.cols) + ", want " +
                 std::to_string(rows) + "x" + std::to_string(cols));
        }
        std::vector<float> v((size_t)rows * cols);
        if (fseeko(wf_, (off_t)t.offset * 4, SEEK_SET) != 0 || fread(v.data(), 4, v.size(), wf_) != v.size()) {
            fail("short read of tensor " + name);
        }
        return v;
    }
    // x: [1, S, in] -> [1, S, out], a 1x1 convolution on NC4HW4 (what
    // MNNConvert emits for a Linear layer).
    VARP linear(VARP x, int in, int out, const std::string& w, const std::string& b, const std::string& name) {
        auto weight = load(w, out, in);
        std::vector<float> bias(out, 0.f);
        if (!b.empty() && has(b)) bias = load(b, 1, out);
        auto x4 = _Convert(_Reshape(x, {-1, in, 1, 1}), NC4HW4);
        VARP y = bits_ > 0 ? qconv(x4, in, out, weight, bias, name)
                           : _Conv(std::move(weight), std::move(bias), x4, {in, out}, {1, 1});
        y->setName(name);
        y = _Convert(y, NCHW);
        return _Reshape(y, {1, -1, out});
    }
    VARP rmsnorm(VARP x, int dim, const std::string& w) {
        float eps = (float)get("eps");
        auto var = _ReduceMean(_Square(x), {-1}, true);
        auto y = x * _Rsqrt(var + _Scalar<float>(eps));
        auto g = load(w, 1, dim);
        return y * _Const(g.data(), {dim}, NCHW);
    }

private:
    void wr(const void* p, size_t n) {
        if (fwrite(p, 1, n, out_) != n) fail("write llm.mnn.weight failed");
    }
    // A weight-quantized convolution with its data in llm.mnn.weight, in the
    // layout of llmexport's write_quant_parameters (symmetric: aMin 0, one
    // scale per block, codes stored as value + 2^(bits-1), 4-bit codes
    // packed high nibble first).
    VARP qconv(VARP x4, int in, int out, const std::vector<float>& w, const std::vector<float>& bias, const std::string& name) {
        std::unique_ptr<OpT> op(new OpT);
        op->type = OpType_Convolution;
        op->name = name;
        op->main.type = OpParameter_Convolution2D;
        auto c = new Convolution2DT;
        op->main.value = c;
        c->common.reset(new Convolution2DCommonT);
        c->common->kernelX = 1; c->common->kernelY = 1; c->common->strideX = 1; c->common->strideY = 1;
        c->common->dilateX = 1; c->common->dilateY = 1; c->common->group = 1;
        c->common->inputCount = in; c->common->outputCount = out; c->common->padMode = PadMode_VALID;
        c->quanParameter.reset(new IDSTQuanT);
        auto q = c->quanParameter.get();
        q->type = 1; q->aMaxOrBits = bits_; q->aMin = asym_ ? 1 : 0; q->readType = asym_ ? 1 : 0; q->quantScale = 1.0f;
        q->useInt32 = false; q->has_scaleInt = false; q->weightSize = 0;
        bool i32 = (in > 32767 || out > 32767);
        q->shapeInt32 = i32;
        int64_t start = off_;
        uint8_t nd = 2; wr(&nd, 1); size_t hl = 1;
        if (i32) { int32_t d[2] = {out, in}; wr(d, 8); hl += 8; } else { int16_t d[2] = {(int16_t)out, (int16_t)in}; wr(d, 4); hl += 4; }
        int offset = 1 << (bits_ - 1);
        std::vector<int8_t> map;
        for (int i = -offset; i < offset; ++i) map.push_back((int8_t)i);
        if (map.size() == 256) map.insert(map.begin(), 0); else map.insert(map.begin(), (int8_t)map.size());
        wr(map.data(), map.size()); hl += map.size();

        int blk = block_ > 0 ? block_ : in;
        while (in % blk) blk /= 2;
        int nblk = in / blk;
        int clip = offset - 1;
        std::vector<uint8_t> codes((size_t)out * in);
        std::vector<float> alpha((size_t)out * nblk * (asym_ ? 2 : 1));
        for (int o = 0; o < out; ++o) {
            for (int b = 0; b < nblk; ++b) {
                const float* src = &w[(size_t)o * in + (size_t)b * blk];
                uint8_t* dst = &codes[(size_t)o * in + (size_t)b * blk];
                if (asym_) {
                    // llmexport's default: codes u in [0, 2^bits) for
                    // min + scale*u; MNN reads the code as u - 2^(bits-1)
                    // (the value map) and computes bias + scale*code, so the
                    // bias is min + 2^(bits-1)*scale (readType 1, aMin 1:
                    // no further shift).
                    float lo = src[0], hi = src[0];
                    for (int i = 1; i < blk; ++i) { lo = std::min(lo, src[i]); hi = std::max(hi, src[i]); }
                    float scale = (hi - lo) / (float)((1 << bits_) - 1);
                    for (int i = 0; i < blk; ++i) {
                        int u = scale > 0.f ? (int)std::nearbyint((src[i] - lo) / scale) : 0;
                        dst[i] = (uint8_t)std::min((1 << bits_) - 1, std::max(0, u));
                    }
                    float zeros = lo + offset * scale;
                    alpha[2 * ((size_t)o * nblk + b)] = zeros;
                    alpha[2 * ((size_t)o * nblk + b) + 1] = scale;
                    continue;
                }
                float amax = 0.f;
                for (int i = 0; i < blk; ++i) amax = std::max(amax, std::fabs(src[i]));
                float scale = amax / clip;
                alpha[(size_t)o * nblk + b] = scale;
                for (int i = 0; i < blk; ++i) {
                    int v = scale > 0.f ? (int)std::nearbyint(src[i] / scale) : 0;
                    v = std::min(clip, std::max(-clip, v));
                    dst[i] = (uint8_t)(v + offset);
                }
            }
        }
        std::vector<uint8_t> packed;
        if (bits_ == 4) {
            packed.resize(codes.size() / 2);
            for (size_t i = 0; i < packed.size(); ++i) packed[i] = (uint8_t)((codes[2 * i] << 4) | codes[2 * i + 1]);
        } else {
            packed = codes;
        }
        wr(packed.data(), packed.size());
        int64_t wlen = hl + packed.size();
        wr(alpha.data(), alpha.size() * 4);
        int64_t alen = alpha.size() * 4;
        wr(bias.data(), bias.size() * 4);
        c->external = {start, wlen, alen, (int64_t)out * 4, 0};
        off_ += wlen + alen + (int64_t)out * 4;
        return Variable::create(Expr::create(op.get(), {x4}, 1));
    }

    const Spec& spec_;
    FILE* wf_ = nullptr;
    FILE* out_ = nullptr;
    int bits_ = 0, block_ = 0;
    bool asym_ = false;
    int64_t off_ = 0;
};

VARP rotateHalf(VARP x, int d) {
    auto parts = _Split(x, {d / 2, d / 2}, 3);
    return _Concat({_Negative(parts[1]), parts[0]}, 3);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: mnnconvert SPEC WEIGHTS OUTDIR\n");
        return 2;
    }
    Spec spec = readSpec(argv[1]);
    std::string outdir = argv[3];
    Builder b(spec, argv[2], outdir);
    const int V = (int)b.get("vocab"), H = (int)b.get("hidden"), L = (int)b.get("layers");
    const int NH = (int)b.get("heads"), NKV = (int)b.get("kv_heads"), D = (int)b.get("head_dim"), F = (int)b.get("ffn");
    const double theta = b.get("theta");
    const bool qkNorm = b.get("qk_norm") != 0;

    // embed_parts k > 1: each embedding row holds k bfloat16 parts of H
    // values whose float32 sum is the float32 embedding (the engine reads
    // only bfloat16 embeddings; hidden_size in llm_config.json is k*H).
    const int parts = spec.num.count("embed_parts") ? (int)b.get("embed_parts") : 1;
    if (parts < 1 || parts > 3) fail("embed_parts must be 1, 2 or 3");
    auto x = _Input({-1, 1, parts * H}, NCHW, halide_type_of<float>());
    x->setName("input_ids");
    auto mask = _Input({1, 1, -1, -1}, NCHW, halide_type_of<float>());
    mask->setName("attention_mask");
    auto pos = _Input({1, -1}, NCHW, halide_type_of<int>());
    pos->setName("position_ids");
    auto lidx = _Input({1}, NCHW, halide_type_of<int>());
    lidx->setName("logits_index");

    // Rotary tables [1, S, 1, D]: frequency i = theta^(-2i/D), computed in
    // double and rounded once, as ggml's rope_yarn does theta_scale powers.
    std::vector<float> invf(D / 2);
    for (int i = 0; i < D / 2; ++i) invf[i] = (float)std::pow(theta, -2.0 * i / D);
    auto posf = _Reshape(_Cast<float>(pos), {1, -1, 1});
    auto freqs = posf * _Const(invf.data(), {1, 1, D / 2}, NCHW);
    auto emb = _Concat({freqs, freqs}, -1);
    auto cosv = _Reshape(_Cos(emb), {1, -1, 1, D});
    auto sinv = _Reshape(_Sin(emb), {1, -1, 1, D});

    VARP h = _Reshape(x, {1, -1, parts * H});
    if (parts > 1) {
        auto ps = _Split(h, std::vector<int>(parts, H), 2);
        h = ps[0];
        for (int i = 1; i < parts; ++i) h = h + ps[i];
    }
    for (int l = 0; l < L; ++l) {
        std::string g = "blk." + std::to_string(l) + ".";
        std::string p = "/layers." + std::to_string(l);
        auto n = b.rmsnorm(h, H, g + "attn_norm");
        auto q = _Reshape(b.linear(n, H, NH * D, g + "attn_q", g + "attn_q.bias", p + "/q_proj"), {1, -1, NH, D});
        auto k = _Reshape(b.linear(n, H, NKV * D, g + "attn_k", g + "attn_k.bias", p + "/k_proj"), {1, -1, NKV, D});
        auto v = _Reshape(b.linear(n, H, NKV * D, g + "attn_v", g + "attn_v.bias", p + "/v_proj"), {1, -1, NKV, D});
        if (qkNorm) {
            q = b.rmsnorm(q, D, g + "attn_q_norm");
            k = b.rmsnorm(k, D, g + "attn_k_norm");
        }
        q = q * cosv + rotateHalf(q, D) * sinv;
        k = k * cosv + rotateHalf(k, D) * sinv;
        std::unique_ptr<OpT> op(new OpT);
        op->type = OpType_Attention;
        op->name = p + "/self_attn/Attention";
        op->main.type = OpParameter_AttentionParam;
        auto param = new AttentionParamT;
        param->kv_cache = true;
        op->main.value = param;
        auto attn = Variable::create(Expr::create(op.get(), {q, k, v, mask}, 1));  // [1, S, NH*D]
        h = h + b.linear(attn, NH * D, H, g + "attn_output", "", p + "/o_proj");
        auto n2 = b.rmsnorm(h, H, g + "ffn_norm");
        auto gate = b.linear(n2, H, F, g + "ffn_gate", "", p + "/gate_proj");
        auto up = b.linear(n2, H, F, g + "ffn_up", "", p + "/up_proj");
        h = h + b.linear(_Silu(gate) * up, F, H, g + "ffn_down", "", p + "/down_proj");
    }
    // Keep positions [start:], start = (logits_index + S) mod S (-1: the
    // last, 0: all).
    auto shape = _Shape(h, true);
    int one = 1, zero = 0;
    auto seqlen = _Slice(shape, _Const(&one, {1}, NCHW, halide_type_of<int>()), _Const(&one, {1}, NCHW, halide_type_of<int>()));
    auto start = _Mod(lidx + seqlen, seqlen);
    auto z = _Const(&zero, {1}, NCHW, halide_type_of<int>());
    auto begin = _Concat({z, start, z}, 0);
    std::vector<int> sz{-1, -1, -1};
    auto size = _Const(sz.data(), {3}, NCHW, halide_type_of<int>());
    auto hs = _Slice(h, begin, size);
    hs = b.rmsnorm(hs, H, "output_norm");
    auto logits = b.linear(hs, H, V, "output", "", "/lm_head");
    logits->setName("logits");
    Variable::save({logits}, (outdir + "/llm.mnn").c_str());
    printf("mnnconvert: wrote %s/llm.mnn V=%d H=%d L=%d heads=%d/%d D=%d F=%d\n", outdir.c_str(), V, H, L, NH, NKV, D, F);
    return 0;
}
