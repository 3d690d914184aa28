package bfclmt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
)

// envDir is where the data directory holds BFCL's backends and checker
// (bfcl_eval/eval_checker/multi_turn_eval/ at gorilla 6ea57973, see
// bfcl/SOURCES): third-party Python, loaded from there at run time and
// executed inside the sandbox, never part of pocketeval.
const envDir = "bfcl/v4/multi_turn_env"

// envFiles pins every Python file the tasks execute by its sha256: a file
// that differs is refused before anything runs. The keys are the modules'
// names under BFCL's func_source_code package (the backends) or
// multi_turn_eval package (the utilities and the checker).
var envFiles = map[string]string{
	"long_context":        "5c9a5710115609c779e5b2ccb43f6ad58271ed96f2ea7a797edb0d65c385aa38",
	"gorilla_file_system": "84173750930b09aaa31b90547c9bd79ce75714682608b35e78a9c1ea259faf2b",
	"math_api":            "abde32cc25e71b2ff3acf4d028a3c005b98409c174aba4abddbfe1c018afb9a8",
	"message_api":         "cf72af1635654147af17df1891a7fb354549e78a61930139f741a31f4be21121",
	"posting_api":         "32b887aaa37c7167ad9c84ddfa7bbb855c75d3c1edab19ba868aba29acc4cfa1",
	"ticket_api":          "6a9375aa6425410c07a151aef27f3e44e9ed1023bb5cc5c25f14f4a9b3c99116",
	"trading_bot":         "cc2e3949035b561e9d07418b081561aa07b211672200e2e511aec074bf79fcb2",
	"travel_booking":      "e698e22adccf0d6d41b297f2d5e44faebd828cef4752df6a4ffb1570c0c35296",
	"vehicle_control":     "f5f7a2f28968728927a98ae12ec68a32d70781cfb74c2d7b14801772362b12d1",
	"multi_turn_utils":    "9fdbd779ec715959c310445b54b431e91abaa8b45a302abb6fd8db8d61b62ba2",
	"multi_turn_checker":  "b3b787515eda3bf0e365e39634a8fc7f831763f010f716d35d86f96fd5aab1b5",
}

// classModules is BFCL's CLASS_FILE_PATH_MAPPING
// (bfcl_eval/constants/executable_backend_config.py) for the classes of
// the multi-turn categories: class name → backend module; and
// classDocs its MULTI_TURN_FUNC_DOC_FILE_MAPPING.
var (
	classModules = map[string]string{
		"GorillaFileSystem": "gorilla_file_system",
		"MathAPI":           "math_api",
		"MessageAPI":        "message_api",
		"TwitterAPI":        "posting_api",
		"TicketAPI":         "ticket_api",
		"TradingBot":        "trading_bot",
		"TravelAPI":         "travel_booking",
		"VehicleControlAPI": "vehicle_control",
	}
	classDocs = map[string]string{
		"GorillaFileSystem": "gorilla_file_system.json",
		"MathAPI":           "math_api.json",
		"MessageAPI":        "message_api.json",
		"TwitterAPI":        "posting_api.json",
		"TicketAPI":         "ticket_api.json",
		"TradingBot":        "trading_bot.json",
		"TravelAPI":         "travel_booking.json",
		"VehicleControlAPI": "vehicle_control.json",
	}
)

// env is BFCL's Python, read from the data directory and checked against
// envFiles.
type env struct {
	modules map[string]string // module name → source
	files   map[string]string // path → sha256, for the manifest
}

func loadEnv(task, dataDir string) (*env, error) {
	e := &env{modules: map[string]string{}, files: map[string]string{}}
	names := make([]string, 0, len(envFiles))
	for n := range envFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dataDir, envDir, n+".py")
		data, sum, err := evals.ReadDataFile(task, path, source)
		if err != nil {
			return nil, err
		}
		if sum != envFiles[n] {
			return nil, fmt.Errorf("%s: %w", task, &evals.DataError{Path: path, Field: "sha256", Err: fmt.Errorf("is %s, want %s (BFCL's code at gorilla 6ea57973; nothing else is run)", sum, envFiles[n])})
		}
		e.modules[n] = string(data)
		e.files[path] = sum
	}
	return e, nil
}

// driver is the program the sandbox runs: it makes BFCL's modules
// importable under their own package names from the sources it is given
// (no file of BFCL's is written anywhere), then either executes calls
// on the backends (op "execute": the earlier steps' calls again, which
// rebuilds the state, then the new step's) or runs BFCL's
// multi_turn_checker (op "check"). The request is JSON on fd 5; the
// answer is JSON on fd 6.
const driver = `import sys, json, types, importlib, importlib.abc, importlib.util

with open(5, "r", encoding="utf-8", closefd=True) as f:
    req = json.load(f)

PKG = "bfcl_eval.eval_checker.multi_turn_eval"
SRC = PKG + ".func_source_code"
for name in ("bfcl_eval", "bfcl_eval.constants", "bfcl_eval.eval_checker", PKG, SRC):
    m = types.ModuleType(name)
    m.__path__ = []
    sys.modules[name] = m
cfg = types.ModuleType("bfcl_eval.constants.executable_backend_config")
cfg.CLASS_FILE_PATH_MAPPING = {k: SRC + "." + v for k, v in req["class_modules"].items()}
cfg.STATELESS_CLASSES = ["MathAPI"]
sys.modules[cfg.__name__] = cfg

sources = {}
for name, text in req["modules"].items():
    full = (PKG if name in ("multi_turn_utils", "multi_turn_checker") else SRC) + "." + name
    sources[full] = (name, text)


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name in sources:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        short, text = sources[module.__name__]
        exec(compile(text, "multi_turn_env/" + short + ".py", "exec"), module.__dict__)


sys.meta_path.insert(0, Finder())
utils = importlib.import_module(PKG + ".multi_turn_utils")
entry = req["entry"]
long_context = "long_context" in entry["id"] or "composite" in entry["id"]
out = {}
if req["op"] == "execute":
    def run(calls):
        return utils.execute_multi_turn_func_call(
            calls, entry["initial_config"], entry["involved_classes"], "pocketeval",
            entry["id"], long_context=long_context, is_evaL_run=False)[0]
    run([])
    for calls in req["history"]:
        run(calls)
    results = run(req["calls"])
    out["results"] = results
    out["prompt_message"] = repr([{"role": "tool", "name": c, "content": r} for c, r in zip(req["calls"], results)])
else:
    checker = importlib.import_module(PKG + ".multi_turn_checker")
    try:
        r = checker.multi_turn_checker(req["decoded"], req["ground_truth"], entry, entry["id"].rsplit("_", 1)[0], "pocketeval")
        out = {"valid": bool(r["valid"]), "error_type": r.get("error_type", ""), "error_message": str(r.get("error_message", ""))}
    except Exception as e:
        out = {"valid": False, "error_type": "multi_turn:checker_exception", "error_message": type(e).__name__ + ": " + str(e)}
with open(6, "w", encoding="utf-8", closefd=True) as f:
    json.dump(out, f)
`

// entryInfo is what the Python side needs of a BFCL entry.
type entryInfo struct {
	ID              string          `json:"id"`
	InitialConfig   json.RawMessage `json:"initial_config"`
	InvolvedClasses []string        `json:"involved_classes"`
}

// execLimits bound one program: a long-context entry's backends hold
// large texts, and every program replays the conversation's calls so far.
var execLimits = sandbox.Limits{CPUTime: 60 * time.Second, MemoryBytes: 2 << 30}

// runDriver runs the driver with req and decodes its answer into out.
func (e *env) runDriver(ctx context.Context, ex sandbox.Executor, req map[string]any, out any) error {
	req["modules"] = e.modules
	req["class_modules"] = classModules
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	defer outR.Close()
	defer inW.Close()
	writeErr := make(chan error, 1)
	go func() {
		_, err := inW.Write(in)
		if cerr := inW.Close(); err == nil {
			err = cerr
		}
		writeErr <- err
	}()
	readDone := make(chan struct{})
	var answer []byte
	var readErr error
	go func() {
		answer, readErr = io.ReadAll(outR)
		close(readDone)
	}()
	res, err := ex.Run(ctx, sandbox.Program{Source: driver, Limits: execLimits,
		ExtraFiles: []*os.File{inR, outW}, ReleaseExtraFiles: true})
	inR.Close()
	outW.Close()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	<-readDone
	if werr := <-writeErr; werr != nil && res.Verdict == sandbox.Pass {
		return fmt.Errorf("sandbox: send the request: %w", werr)
	}
	if res.Verdict != sandbox.Pass {
		return fmt.Errorf("BFCL's backends in the sandbox: %s (%s): %s", res.Verdict, res.Reason, lastLines(res.Stderr, 5))
	}
	if readErr != nil {
		return fmt.Errorf("sandbox: read the answer: %w", readErr)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("sandbox: the answer is not JSON: %w (%.200q)", err, answer)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// execute runs calls on the entry's backends after the history (the
// earlier steps' calls, in order), as BFCL's inference loop does with
// execute_multi_turn_func_call: it returns the calls' results and the
// prompt-mode user message that feeds them back
// (format_execution_results_prompting).
func (e *env) execute(ctx context.Context, ex sandbox.Executor, ent entryInfo, history [][]string, calls []string) ([]string, string, error) {
	if history == nil {
		history = [][]string{}
	}
	var out struct {
		Results       []string `json:"results"`
		PromptMessage string   `json:"prompt_message"`
	}
	err := e.runDriver(ctx, ex, map[string]any{"op": "execute", "entry": ent, "history": history, "calls": calls}, &out)
	if err == nil && len(out.Results) != len(calls) {
		err = fmt.Errorf("BFCL's backends returned %d results for %d calls", len(out.Results), len(calls))
	}
	return out.Results, out.PromptMessage, err
}

// checkVerdict is multi_turn_checker's answer.
type checkVerdict struct {
	Valid        bool   `json:"valid"`
	ErrorType    string `json:"error_type"`
	ErrorMessage string `json:"error_message"`
}

// check runs BFCL's multi_turn_checker on the decoded calls (per turn,
// per step) against the ground truth (per turn).
func (e *env) check(ctx context.Context, ex sandbox.Executor, ent entryInfo, decoded [][][]string, groundTruth [][]string) (checkVerdict, error) {
	var v checkVerdict
	err := e.runDriver(ctx, ex, map[string]any{"op": "check", "entry": ent, "decoded": decoded, "ground_truth": groundTruth}, &v)
	return v, err
}
