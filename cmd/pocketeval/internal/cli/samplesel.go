package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// parseSampleSelection reads --samples: items TASK:ID (the id is
// everything after the first colon), or @FILE holding one TASK:ID per
// line (blank lines and # comments skipped) or a JSON object mapping each
// task to its ids (strings, or integers written as ids, as lm-eval's
// --samples file lists documents). Ids are sorted and deduplicated so the
// selection — part of the run's fingerprint — does not depend on their
// order. Nil when the flag is not given.
func parseSampleSelection(items []string) (map[string][]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	sel := map[string][]string{}
	add := func(where, item string) error {
		task, id, ok := strings.Cut(strings.TrimSpace(item), ":")
		if !ok || task == "" || id == "" {
			return FlagErrorf("--samples %s: %q is not TASK:ID", where, item)
		}
		sel[task] = append(sel[task], id)
		return nil
	}
	for _, it := range items {
		if file, ok := strings.CutPrefix(it, "@"); ok {
			if err := readSelectionFile(file, sel, add); err != nil {
				return nil, err
			}
			continue
		}
		if err := add("item", it); err != nil {
			return nil, err
		}
	}
	for task, ids := range sel {
		slices.Sort(ids)
		sel[task] = slices.Compact(ids)
	}
	return sel, nil
}

func readSelectionFile(file string, sel map[string][]string, add func(where, item string) error) error {
	raw, err := regfile.ReadFile(file, regfile.MaxConfig)
	if err != nil {
		return FlagErrorf("--samples @%s: %v", file, err)
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var m map[string][]json.RawMessage
		if err := json.Unmarshal(t, &m); err != nil {
			return FlagErrorf("--samples @%s: want a JSON object of task → list of ids: %v", file, err)
		}
		for task, ids := range m {
			for i, r := range ids {
				var s string
				var n int64
				switch {
				case json.Unmarshal(r, &s) == nil && s != "":
				case json.Unmarshal(r, &n) == nil:
					s = strconv.FormatInt(n, 10)
				default:
					return FlagErrorf("--samples @%s: %s[%d]: want an id (string or integer), got %s", file, task, i, r)
				}
				sel[task] = append(sel[task], s)
			}
		}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := add(fmt.Sprintf("@%s:%d", file, line), t); err != nil {
			return err
		}
	}
	return nil
}
