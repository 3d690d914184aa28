# Makes renders.json: how lm-evaluation-harness's template environment
# (lm_eval/utils.py: jinja2 Environment(loader=BaseLoader,
# undefined=StrictUndefined, keep_trailing_newline=True) with the
# regex_replace filter) renders each template with each document.
# Run with Debian's python3-jinja2 3.1.2:
#   /usr/bin/python3 make_renders.py > renders.json
import json
import re
import sys

from jinja2 import BaseLoader, Environment, StrictUndefined


def regex_replace(string, pattern, repl, count: int = 0):
    return re.sub(pattern, repl, string, count=count)


env = Environment(loader=BaseLoader, undefined=StrictUndefined, keep_trailing_newline=True)
env.filters["regex_replace"] = regex_replace

docs = {
    "arc": {"id": "Mercury_1", "question": "Which is a planet?",
            "choices": {"text": ["Sun", "Mars", "Moon's rock", "a \"star\""], "label": ["A", "B", "C", "D"]},
            "answerKey": "B"},
    "obqa": {"question_stem": "The sun is", "choices": {"text": ["hot", "cold"], "label": ["A", "B"]}, "answerKey": " B"},
    "mmlu": {"question": "  What is 2+2?\n", "subject": "math", "choices": ["3", "4", "5", "22"], "answer": 1},
    "nums": {"i": 3, "f": 1.0, "g": 0.1, "big": 1e16, "neg": -2.5, "none": None, "t": True, "lst": [1, "a", None, 2.0]},
    "gsm": {"question": "Tom has 3 apples.", "answer": "He has 3.\n#### 3"},
    "zh": {"question": "小明有3个苹果。", "answer": None, "answer_number": 3},
    "sciq": {"support": "\n  Photosynthesis uses light.", "question": "What uses light?",
             "distractor1": "rocks", "distractor2": "water", "distractor3": "air", "correct_answer": "plants"},
}

templates = [
    "Question: {{question}}\nAnswer:",
    "{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:",
    "{{choices.label.index(answerKey)}}",
    "{{choices.label.index(answerKey.lstrip())}}",
    "{{choices.text}}",
    "{{choices}}",
    "{{[sol for sol in choices.text]}}",
    "{{[distractor1, distractor2, distractor3, correct_answer]}}",
    "{{support.lstrip()}}\nQuestion: {{question}}\nAnswer:",
    "{{i}} {{f}} {{g}} {{big}} {{neg}} {{none}} {{t}} {{lst}} {{f|string}} {{i|string}}",
    "{{answer.split('####')[-1].strip() if answer is defined else target}}",
    "{% if answer is not none %}{{question+\"\\nAnswer:\"}}{% else %}{{\"问题： \"+question+\"\\nAnswer:\"}}{% endif %}",
    "{{answer_number|string}}",
    "a\n{% if question %}\nb\n{% endif %}\nc\n",
    "  {% if question %}x{% endif %}  \n",
    "a  {%- if question -%}  b  {%- endif %}\n  c",
    "{# comment #}\nx {#- trimmed -#} y",
    "{% for c in choices %}{{loop.index}}. {{c}}\n{% endfor %}",
    "{% for c in choices -%}\n  {{ c }}\n{%- endfor %}",
    "{% raw %}{{ not a tag }}{% endraw %}!",
    "{% set q = question|upper %}{{ q }}|{{ question|lower }}|{{ question|length }}",
    "{{ ', '.join(choices) }}",
    "{{ question|regex_replace('[0-9]', '#') }}",
    "{{ question.replace('2', 'two') }} {{ question.split() }}",
    "{{ 'x' ~ i }} {{ i + 1 }} {{ i * 2 }} {{ 7 // 2 }} {{ 7 / 2 }}",
    "Answer: {{ missing }}",
    "{{ choices[answer] }}",
    "trailing newline kept\n",
]

out = []
for name, doc in docs.items():
    for tpl in templates:
        case = {"doc": name, "template": tpl}
        try:
            case["output"] = env.from_string(tpl).render(**doc)
        except Exception as e:  # StrictUndefined and friends
            case["error"] = type(e).__name__
        out.append(case)
json.dump({"docs": docs, "cases": out}, sys.stdout, ensure_ascii=False, indent=1)
print()
