# Runs BFCL's own v2 eval code (gorilla 4a64db34) on published result files.
import sys, os, json, types, importlib.abc, importlib.machinery
# ROOT: berkeley-function-call-leaderboard of gorilla 4a64db34, extracted with
#   git -C MIRROR archive 4a64db34 berkeley-function-call-leaderboard/eval_checker berkeley-function-call-leaderboard/model_handler | tar x
ROOT = os.environ.get("BFCL_V2_ROOT", "/tmp/bfcl/v2/berkeley-function-call-leaderboard")
sys.path[:0] = [os.path.join(ROOT, "eval_checker"), ROOT]
STUB = {"openai", "anthropic", "cohere", "tree_sitter", "tree_sitter_java", "tree_sitter_javascript", "tqdm", "numpy", "requests", "mistralai", "google", "vertexai", "shortuuid", "transformers", "vllm", "ray", "torch", "dotenv", "boto3"}
class Dummy:
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return Dummy()
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        return Dummy()
class Any(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        if name == "tqdm": return lambda x, **k: x
        return Dummy
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUB:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec): return Any(spec.name)
    def exec_module(self, m): m.__path__ = []
sys.meta_path.insert(0, Finder())
os.chdir(os.path.join(ROOT, "eval_checker"))
import eval_runner as er
captured = {}
er.write_list_of_dicts_to_file = lambda fn, data, subdir=None: captured.__setitem__("r", data)
DATA = "/work/shared/datasets/bfcl/v2"
RES = sys.argv[1]
OUT = sys.argv[2]
def load(p):
    with open(p) as f: return [json.loads(l) for l in f if l.strip()]
cats = ["simple", "multiple_function", "parallel_function", "parallel_multiple_function", "relevance"]
for d in sys.argv[3:]:
    model = d.replace("_", "/", 1) if d.replace("_", "/", 1) in er.handler_map else d
    handler = er.get_handler(model)
    for cat in cats:
        rp = os.path.join(RES, d, f"gorilla_openfunctions_v1_test_{cat}_result.json")
        if not os.path.exists(rp): continue
        results = load(rp)
        prompts = load(os.path.join(DATA, f"gorilla_openfunctions_v1_test_{cat}.json"))
        if cat == "relevance":
            er.single_relevance_file_runner(handler, results, model, cat)
        else:
            answers = load(os.path.join(DATA, "possible_answer", f"gorilla_openfunctions_v1_test_{cat}.json"))
            er.single_ast_file_runner(handler, results, prompts, answers, "Python", cat, model)
        failed = {x["id"]: x for x in captured["r"][1:]}
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
        with open(os.path.join(OUT, d, cat + ".jsonl"), "w") as f:
            for i, r in enumerate(results):
                x = failed.get(i + 1)
                f.write(json.dumps({"id": r["id"], "valid": x is None, "error_type": "" if x is None else x["error_type"]}) + "\n")
        print(d, cat, captured["r"][0], flush=True)
