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
provenance and special tokens), templates/*.jinja, conversations.json.
Output: golden/<template>.json, {"<conversation>[@thinking-on|off]":
{"text": rendered} or {"error": message}}.

Usage: chattemplate-goldens.py [--check]   (--check: fail on any drift)
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
    return out


def main():
    check = "--check" in sys.argv[1:]
    gdir = os.path.join(DATA, "golden")
    os.makedirs(gdir, exist_ok=True)
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
