//go:build !unix

package ifeval

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
