package runner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// ConversationsDir is the result directory's folder of conversation
// journals: conversations/<task>.jsonl holds, for a conversational task
// (evals.Conversational), every model response of its conversations as it
// arrives, one line per step, so that a run killed in the middle of a
// conversation resumes it where it stopped: the recorded steps are served
// again (each only to the same request, matched by its sha256) and the
// task rebuilds its state from them (BFCL's backends replay the recorded
// calls). A sample's record, once written, is what counts; the journal
// only saves model calls.
const ConversationsDir = "conversations"

// journalLine is one step of a conversation.
type journalLine struct {
	ID       string           `json:"id"`
	Repeat   int              `json:"repeat,omitempty"`
	Step     int              `json:"step"`
	Request  string           `json:"request"` // sha256 of the request's JSON
	Response runtime.Response `json:"response"`
}

type journalKey struct {
	id           string
	repeat, step int
}

// journal is one task's conversation journal, open for appending.
type journal struct {
	mu    sync.Mutex
	f     *os.File
	steps map[journalKey]journalLine
}

// openJournal reads a task's journal (a torn last line, left by a kill, is
// ignored) and opens it for appending.
func openJournal(dir, task string) (*journal, error) {
	path := filepath.Join(dir, ConversationsDir, task+".jsonl")
	j := &journal{steps: map[journalKey]journalLine{}}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	good := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var l journalLine
		if json.Unmarshal(line, &l) != nil || l.ID == "" {
			break // a torn line: nothing after it was written
		}
		good += len(line) + 1
		j.steps[journalKey{l.ID, l.Repeat, l.Step}] = l
	}
	if good > len(data) {
		good = len(data) // a last line without its newline
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(int64(good)); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(int64(good), 0); err != nil {
		f.Close()
		return nil, err
	}
	j.f = f
	return j, nil
}

func (j *journal) close() error {
	if j == nil || j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// gen is the GenerateFunc of one conversation: step by step, a recorded
// response to the same request is served again; anything else is
// generated and recorded before it is returned.
func (j *journal) gen(rt runtime.Runtime, id string, repeat int) evals.GenerateFunc {
	step := 0
	return func(ctx context.Context, req runtime.Request) (runtime.Response, error) {
		b, err := json.Marshal(req)
		if err != nil {
			return runtime.Response{}, err
		}
		sum := sha256.Sum256(b)
		hash := hex.EncodeToString(sum[:])
		key := journalKey{id, repeat, step}
		step++
		j.mu.Lock()
		l, ok := j.steps[key]
		j.mu.Unlock()
		if ok && l.Request == hash {
			return l.Response, nil
		}
		resp, err := rt.Generate(ctx, req)
		if err != nil {
			return resp, err
		}
		line, err := json.Marshal(journalLine{ID: id, Repeat: repeat, Step: key.step, Request: hash, Response: resp})
		if err != nil {
			return resp, err
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.steps[key] = journalLine{ID: id, Repeat: repeat, Step: key.step, Request: hash, Response: resp}
		if _, err := j.f.Write(append(line, '\n')); err != nil {
			return resp, fmt.Errorf("conversation journal: %w", err)
		}
		return resp, nil
	}
}
