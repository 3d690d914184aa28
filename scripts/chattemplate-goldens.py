#!/usr/bin/python3
"""Render the chat-template conformance set with Python's jinja2, the way
Hugging Face transformers' apply_chat_template does, and write (or check)
the golden files that chattemplate's Go tests compare against byte for byte.

Reference conventions (transformers, utils/chat_template_utils.py):
  - ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
    extensions=[loopcontrols, the {% generation %} tracker]);
  - globals raise_exception(message) -> TemplateError(message) and
    strftime_now(format) -> datetime.now().strftime(format);
  - the tojson filter replaced by json.dumps(x, ensure_ascii=False,
    indent=None, separators=None, sort_keys=False);
  - render(messages=..., tools=None, documents=None,
    add_generation_prompt=..., **special_tokens, **template_kwargs).
strftime_now is pinned to FIXED_NOW so the goldens do not change with the
date; the Go tests pin the same instant.

Inputs (runtime/chattemplate/testdata): templates.json (each template's file,
provenance and special tokens), templates/*.jinja, conversations.json and
tool-conversations.json (tools, tool calls and results, reasoning_content,
content parts, documents; JSON read with key order kept, as transformers
receives it).
Output: golden/<template>.json for conversations.json, {"<conversation>
[@thinking-on|off]": {"text": rendered} or {"error": message}}, and
golden-tools/<template>.json for tool-conversations.json, where an error
also records its exception type ({"error", "type"}): a template may refuse a
conversation shape (raise_exception, or an UndefinedError/TypeError of its
own making), and the Go render must refuse it too.

Usage: chattemplate-goldens.py [--check]   (--check: fail on any drift)
       chattemplate-goldens.py --realset DIR OUT
         renders every DIR/*.jinja (templates not committed here, e.g.
         llama.cpp's models/templates; see scripts/chat-templates.sh) over
         tool-conversations.json and conversations.json into one JSON file
         OUT, {"<file>": {"<case>": {...}}}, for the Go test to compare.
Needs only Debian's python3-jinja2 (apt-get install python3-jinja2).
"""
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime.datetime(2026, 2, 3, 4, 5, 6)
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "runtime", "chattemplate", "testdata")


class GenerationTag(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %} renders its body, as
    transformers' AssistantTracker does when no mask is requested."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return FIXED_NOW.strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def variants(meta):
    yield "", {}
    if meta["thinking"]:
        yield "@thinking-on", {"enable_thinking": True}
        yield "@thinking-off", {"enable_thinking": False}


TOOL_TOKENS = {"bos_token": "<|bos|>", "eos_token": "<|eos|>"}


def render_case(tmpl, conv, kwargs, catch_all):
    try:
        text = tmpl.render(
            messages=conv["messages"], tools=conv.get("tools"), documents=conv.get("documents"),
            add_generation_prompt=conv.get("add_generation_prompt", True), **kwargs)
        return {"text": text}
    except jinja2.exceptions.TemplateError as e:
        if catch_all:
            return {"error": str(e), "type": type(e).__name__}
        return {"error": str(e)}
    except Exception as e:  # a template's own TypeError, KeyError ...
        if not catch_all:
            raise
        return {"error": str(e), "type": type(e).__name__}


def render_tools(env, src, tokens, thinking):
    with open(os.path.join(DATA, "tool-conversations.json"), encoding="utf-8") as f:
        conversations = json.load(f)
    tmpl = env.from_string(src)
    golden = {}
    for conv_name, conv in sorted(conversations.items()):
        for suffix, extra in variants({"thinking": thinking}):
            kwargs = dict(tokens)
            kwargs.update(extra)
            golden[conv_name + suffix] = render_case(tmpl, conv, kwargs, True)
    return golden


def realset(src_dir, out_path):
    env = environment()
    with open(os.path.join(DATA, "conversations.json"), encoding="utf-8") as f:
        plain = json.load(f)
    out = {}
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".jinja"):
            continue
        with open(os.path.join(src_dir, name), encoding="utf-8", newline="") as f:
            src = f.read()
        thinking = "enable_thinking" in src
        try:
            tmpl = env.from_string(src)
        except jinja2.exceptions.TemplateSyntaxError as e:
            out[name] = {"parse-error": str(e)}
            continue
        golden = render_tools(env, src, TOOL_TOKENS, thinking)
        for conv_name, conv in sorted(plain.items()):
            for suffix, extra in variants({"thinking": thinking}):
                kwargs = dict(TOOL_TOKENS)
                kwargs.update(extra)
                golden[conv_name + suffix] = render_case(tmpl, conv, kwargs, True)
        out[name] = golden
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
    print("chat template real set: %d templates from %s rendered with jinja2 %s" % (len(out), src_dir, jinja2.__version__))


def render_all():
    with open(os.path.join(DATA, "templates.json"), encoding="utf-8") as f:
        templates = json.load(f)
    with open(os.path.join(DATA, "conversations.json"), encoding="utf-8") as f:
        conversations = json.load(f)
    env = environment()
    out = {}
    for name, meta in sorted(templates.items()):
        with open(os.path.join(DATA, meta["file"]), encoding="utf-8", newline="") as f:
            tmpl = env.from_string(f.read())
        golden = {}
        for conv_name, conv in sorted(conversations.items()):
            for suffix, extra in variants(meta):
                kwargs = dict(meta["special_tokens"])
                kwargs.update(extra)
                try:
                    text = tmpl.render(
                        messages=conv["messages"], tools=None, documents=None,
                        add_generation_prompt=conv.get("add_generation_prompt", True), **kwargs)
                    golden[conv_name + suffix] = {"text": text}
                except jinja2.exceptions.TemplateError as e:
                    golden[conv_name + suffix] = {"error": str(e)}
        out[name] = json.dumps(golden, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        with open(os.path.join(DATA, meta["file"]), encoding="utf-8", newline="") as f:
            tools = render_tools(env, f.read(), meta["special_tokens"], meta["thinking"])
        out["../golden-tools/" + name] = json.dumps(tools, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return out


def main():
    if sys.argv[1:2] == ["--realset"]:
        if len(sys.argv) != 4:
            sys.exit("usage: chattemplate-goldens.py --realset DIR OUT")
        realset(sys.argv[2], sys.argv[3])
        return
    check = "--check" in sys.argv[1:]
    gdir = os.path.join(DATA, "golden")
    os.makedirs(gdir, exist_ok=True)
    os.makedirs(os.path.join(DATA, "golden-tools"), exist_ok=True)
    drift = []
    for name, text in render_all().items():
        path = os.path.join(gdir, name + ".json")
        if check:
            try:
                with open(path, encoding="utf-8", newline="") as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != text:
                drift.append(path)
        else:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
    if drift:
        print("chat template goldens drifted from jinja2 %s (rerun scripts/chattemplate-goldens.py and review the diff):" % jinja2.__version__)
        for p in drift:
            print("  " + os.path.relpath(p))
        sys.exit(1)
    print("chat template goldens: %s with jinja2 %s" % ("match" if check else "written", jinja2.__version__))


if __name__ == "__main__":
    main()
