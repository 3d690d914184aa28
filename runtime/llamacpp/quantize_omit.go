//go:build nollamacpp

package llamacpp

import "fmt"

// QuantTypes lists nothing: the runtime is not in this build.
func QuantTypes() []string { return nil }

// Quantize reports that the runtime is not in this build.
func Quantize(libDir, in, out, typ string, threads int) error {
	return fmt.Errorf("quantize: %w", ErrUnavailable)
}
