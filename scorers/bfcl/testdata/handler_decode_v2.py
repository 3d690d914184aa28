# Runs BFCL's own v2 eval code (gorilla 4a64db34) on published result files.
import sys, os, json, types, importlib.abc, importlib.machinery
ROOT = "/tmp/bfcl/v2/berkeley-function-call-leaderboard"
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

import json
from model_handler.oss_handler import OSSHandler
M = {"default": "gpt-3.5-turbo-0125", "gorilla": "gorilla-openfunctions-v2", "hermes": "NousResearch/Hermes-2-Pro-Llama-3-8B", "glm": "THUDM/glm-4-9b-chat", "gemma": "google/gemma-7b-it", "llama": "meta-llama/Meta-Llama-3-8B-Instruct", "mistral": "mistral-tiny-2312", "xlam": "Salesforce/xLAM-1b-fc-r", "granite": "ibm-granite/granite-20b-functioncalling", "deepseek": "deepseek-ai/deepseek-coder-6.7b-instruct", "nexus": "Nexusflow-Raven-v2", "arctic": "snowflake/arctic", "nvidia": "nvidia/nemotron-4-340b-instruct", "glaive": "glaiveai/glaive-function-calling-v1", "databricks": "databricks-dbrx-instruct"}
T = json.load(open(sys.argv[1]))
out = []
for h in list(M) + ["oss"]:
    hd = OSSHandler("x") if h == "oss" else er.get_handler(M[h])
    for t in T:
        try:
            r = hd.decode_ast(t, "Python")
            out.append(dict(handler=h, text=t, ok=True, decoded=repr(r), is_list=type(r) == list))
        except BaseException as e:
            out.append(dict(handler=h, text=t, ok=False, error=type(e).__name__))
json.dump(out, open(sys.argv[2], "w"), indent=1, ensure_ascii=False)
