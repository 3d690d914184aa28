package replay_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

func ExampleRead() {
	preds := `{"task":"gsm8k","id":"0","response":"The answer is 18."}
{"prompt":"Write a haiku about rain.","response":"Soft rain on the roof..."}
{"task_id":"HumanEval/0","completion":"    return True\n"}
`
	rt, err := replay.Read(strings.NewReader(preds), "preds.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	reqs := []runtime.Request{
		{Task: "gsm8k", ID: "0", Prompt: "Janet's ducks..."},
		{Task: "ifeval", ID: "1001", Messages: []runtime.Message{{Role: "user", Content: "Write a haiku about rain."}}},
		{Task: "humaneval", ID: "HumanEval/0", Prompt: "def f():\n"},
		{Task: "gsm8k", ID: "1", Prompt: "A robe takes..."},
	}
	for _, req := range reqs {
		resp, err := rt.Generate(context.Background(), req)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%s/%s: %q (%s)\n", req.Task, req.ID, resp.Text, resp.FinishReason)
	}
	fmt.Println("unused:", len(rt.Unused()))
	// Output:
	// gsm8k/0: "The answer is 18." (stop)
	// ifeval/1001: "Soft rain on the roof..." (stop)
	// humaneval/HumanEval/0: "    return True\n" (stop)
	// error: replay: no prediction for task "gsm8k" id "1" in preds.jsonl (matched by task+id, id, then prompt "A robe takes...")
	// unused: 0
}
