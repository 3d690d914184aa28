//go:build cgo && mnn

package mnn

// exactPrecision is the precision of the tests that require bit-identical
// results whatever the KV cache held: "" (MNN's "low") computes in fp32 on
// x86, but on an ARMv8.2 CPU "low" computes in fp16, whose rounding
// depends on how a prompt is split between the cache and the new tokens
// (log-probabilities then differ by about 5e-4); precision_arm64_test.go
// asks for "normal" (fp32) there.
var exactPrecision = ""
