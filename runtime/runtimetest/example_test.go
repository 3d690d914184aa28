package runtimetest_test

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// A runtime's own test calls Check (or Test) on a freshly opened runtime;
// every broken rule comes back in one error.
func ExampleCheck() {
	rt := &runtimetest.Fake{EOSEvery: 9}
	if err := runtimetest.Check(context.Background(), rt, runtimetest.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("conforms")
	// Output: conforms
}
