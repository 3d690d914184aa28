// Package sdktest drives `pocketeval serve` with the official OpenAI Node
// SDK (pinned in third_party/openai-node, installed into a cache directory
// by scripts/setup-openai-node.sh): sdk_test.go starts servers over the
// story GGUF with Qwen2.5's tool template, with the ChatML fallback, and
// over a runtime that cannot constrain decoding, and sdk.test.mjs checks
// as an app would that tools are honoured or refused, never dropped, with
// OpenAI's shapes for calls, streams, errors and the rest of the API.
package sdktest
