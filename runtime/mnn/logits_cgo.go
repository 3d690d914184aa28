//go:build cgo && mnn

package mnn

/*
#include <stdlib.h>
#include "mnnshim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// AllLogits runs ids from an empty cache and returns the logits of every
// position, row-major with vocab columns, valid until the next call.
func (e *cEngine) AllLogits(ids []int) ([]float32, int, error) {
	p := cInts(ids)
	defer C.free(unsafe.Pointer(p))
	var (
		logits      *C.float
		rows, vocab C.int
		rc          C.int
	)
	e.th.do(func() { rc = C.mnnshim_logits(e.h, p, C.int(len(ids)), &logits, &rows, &vocab) })
	if rc != 0 {
		return nil, 0, e.lastError("logits")
	}
	if int(rows) != len(ids) || vocab <= 0 {
		return nil, 0, fmt.Errorf("logits: the engine returned %d rows of %d, want %d rows", rows, vocab, len(ids))
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(logits)), int(rows)*int(vocab)), int(vocab), nil
}
