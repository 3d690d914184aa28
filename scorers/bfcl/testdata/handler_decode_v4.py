import sys, os, json, types, importlib, importlib.abc, importlib.machinery
ROOT = "/tmp/bfcl/v4/berkeley-function-call-leaderboard"
sys.path.insert(0, ROOT)
STUB = set(os.environ.get("STUB", "").split(",")) | {"openai","anthropic","cohere","tree_sitter","tree_sitter_java","tree_sitter_javascript","tqdm","numpy","requests","mistralai","google","vertexai","shortuuid","transformers","vllm","ray","torch","dotenv","boto3","tenacity","overrides","qwen_agent","writerai","huggingface_hub","filelock","datasets","pydantic","typing_extensions_x","sentencepiece","tiktoken","httpx","jsonschema","mpmath","sympy"}
class Dummy:
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return Dummy()
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        return Dummy()
    def __mro_entries__(self, bases): return (object,)
class Any(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        if name in ("override", "final", "retry"): return lambda f=None, *a, **k: f if callable(f) else (lambda g: g)
        if name == "EnforceOverrides": return object
        return Dummy
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top in STUB: return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec): return Any(spec.name)
    def exec_module(self, m): m.__path__ = []
sys.meta_path.append(Finder())
from bfcl_eval.constants.enums import ReturnFormat
import bfcl_eval.model_handler.utils as U

import importlib as _il
from bfcl_eval.constants.enums import ReturnFormat as RF
CLASSES = {
 "default": ("bfcl_eval.model_handler.local_inference.base_oss_handler", "OSSHandler"),
 "hermes": ("bfcl_eval.model_handler.local_inference.qwen_fc", "QwenFCHandler"),
 "qwen_fc": ("bfcl_eval.model_handler.local_inference.qwen_fc", "QwenFCHandler"),
 "qwen": ("bfcl_eval.model_handler.local_inference.qwen", "QwenHandler"),
 "glm": ("bfcl_eval.model_handler.local_inference.glm", "GLMHandler"),
 "gemma": ("bfcl_eval.model_handler.local_inference.gemma", "GemmaHandler"),
 "llama": ("bfcl_eval.model_handler.local_inference.llama", "LlamaHandler"),
 "llama_3_1": ("bfcl_eval.model_handler.local_inference.llama_3_1", "LlamaHandler_3_1"),
 "phi": ("bfcl_eval.model_handler.local_inference.phi", "PhiHandler"),
 "xlam": ("bfcl_eval.model_handler.local_inference.salesforce_qwen", "SalesforceQwenHandler"),
 "bitagent": ("bfcl_eval.model_handler.local_inference.bitagent", "BitAgentHandler"),
 "hammer": ("bfcl_eval.model_handler.local_inference.hammer", "HammerHandler"),
 "granite": ("bfcl_eval.model_handler.local_inference.granite", "GraniteFunctionCallingHandler"),
 "falcon_fc": ("bfcl_eval.model_handler.local_inference.falcon_fc", "Falcon3FCHandler"),
}
def decode(h, text):
    mod, cls = CLASSES[h]
    C = getattr(_il.import_module(mod), cls)
    obj = C.__new__(C)
    return C.decode_ast(obj, text, RF.PYTHON, False)
if __name__ == "__main__" and len(sys.argv) > 1:
    cases = json.load(open(sys.argv[1]))
    out = []
    for c in cases:
        try:
            r = decode(c["handler"], c["text"])
            out.append(dict(c, ok=True, decoded=repr(r), is_list=type(r) == list))
        except BaseException as e:
            out.append(dict(c, ok=False, error=type(e).__name__))
    json.dump(out, open(sys.argv[2], "w"), indent=1, ensure_ascii=False)
