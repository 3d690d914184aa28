import json
T = [
 "[f(a=1)]", "f(a=1)", "\n\nmath.hypot(x=4, y=5)", "```\n[f(a=1)]\n```", "```python\n[f(a=1)]\n```", "```json\n[f(a=1)]\n```",
 " [f(a=1), g(b='x')]", "'[f(a=1)]'", "[f(a=1)]\n", "  f(a=1)  ", "`f(a=1)`", "[]", "", " ", "hello", "I cannot help with that.",
 "[f(a=1)]; [g(b=2)]", "f(a=1); g(b=2);", "f(a=1);", "[f(a=\\_1)]", "f(a_b\\_c=1)", "[f(a=1)]\n[g(b=2)]", "f(a=1),\ng(b=2)",
 "[f(a=[1, 2], b={'k': 'v'}, c=(1, 2), d=None, e=True, g=-1.5)]", "[f(a=1+2, b='x'*3)]", "[f(a=g(x=1))]", "[f(a=g())]", "[f(a=x.y)]",
 "[f(a=1, a=2)]", "['f(a=1)', 'g(b=2)']", "[1, 2]", "out_of_domain(a=1)", "[f(a=1)]\nout_of_domain",
 "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
 "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {\"b\": \"x\"}}\n</tool_call>",
 "<tool_call>\n{'name': 'f', 'arguments': {'a': 'it'}}\n</tool_call>",
 "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>",
 "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}\n</tool_call>",
 "<tool_call>\n{\"name\": \"f\"}\n</tool_call>", "<tool_call>\nnot json\n</tool_call>",
 "<tool_call>\n```json\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n```\n</tool_call>",
 "<tool_call>\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\", \"arguments\": {}}]\n</tool_call>",
 "{\"tool_calls\": [{\"name\": \"f\", \"arguments\": {\"a\": 1}}]}", "[{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\", \"arguments\": {\"b\": [1]}}]",
 "{\"name\": \"f\", \"arguments\": {\"a\": 1}}", "{\"name\": \"f\", \"arguments\": {\"a\": 1}}; {\"name\": \"g\", \"arguments\": {}}",
 "```[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]```", "[{\"name\": \"f\"}]", "{\"tool_calls\": []}", "{\"tool_calls\": [\"x\", {\"name\": \"f\"}]}", "[\"x\"]", "42",
 "f\n{\"a\": 1}", "f\n{\"a\": 1}\nextra", "f", "f\nnot json", "\n{\"a\": 1}",
 "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}", "{\"name\": \"f\", \"parameters\": {\"a\": 1}}; {\"name\": \"g\", \"parameters\": {\"b\": true}}",
 "[{\"name\": \"f\", \"parameters\": {\"a\": 1}}]", "{\"name\": \"f\", \"parameters\": {\"a\": true}}", "{'name': 'f', 'parameters': {'a': True}}", "[{'name': 'f', 'parameters': {'a': 1+1}}]",
 "<function_call> {\"name\": \"f\", \"arguments\": {\"a\": 1}} <function_call> {\"name\": \"no_function\", \"arguments\": {}}", "<function_call> not json", "<function_call> {\"name\": \" g \"}",
 "```json\n[f(a=1)]", "```python\n[f(a=1)]```", "  ```json\nf(a=1)\n```",
 "<tool_call>\n```json\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]\n```\n</tool_call>", "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}", "no tag",
 "<functioncall> {\"name\": \"f\", \"arguments\": {\"a\": 1}}", "[f(a='x')]\n    ", "Here: [f(a=1)] done", "```\nI think\n[f(a=1)]\n```",
]
json.dump(T, open("texts.json", "w"))
print(len(T))
