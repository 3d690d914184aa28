package bfcl

import (
	"reflect"
	"testing"
)

// TestInfoMadeOnce: the version and description Tasks and WithHandler
// make are those Info makes for a task without them.
func TestInfoMadeOnce(t *testing.T) {
	for _, x := range Tasks() {
		tk := x.(*Task)
		for _, h := range []string{"", "NousResearch/Hermes-2-Pro-Llama-3-8B"} {
			c, err := tk.WithHandler(h)
			if err != nil {
				if tk.version == 2 {
					t.Fatal(err)
				}
				continue
			}
			bare := *c
			bare.infoVersion, bare.desc = "", ""
			if got, want := c.Info(), bare.Info(); !reflect.DeepEqual(got, want) || got.Description == "" {
				t.Errorf("%s: Info %+v, want %+v", tk.name, got, want)
			}
		}
		if tk.desc == "" {
			t.Errorf("%s: no description made", tk.name)
		}
	}
}
