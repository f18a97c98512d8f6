"""One source for each constant. Where a module needs another's constant as its own `const()`
(MicroPython folds a const only inside its module, so a hot loop reads a copy for free), the
copy says `# copy of <module>.<NAME>` and this test holds it to its source. Code copied for
speed into the engine's hot loops (the game phase, MVV-LVA) is held to its source the same way."""
import ast
import importlib
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPY = re.compile(r"^(_?[A-Z][A-Z0-9_]*) = (.+?)\s+# copy of "
                  r"((?:firmware|boards)(?:\.\w+)+)\.(_?[A-Za-z][A-Za-z0-9_]*)\b")


def _value(expr):
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "const":
        node = node.args[0]
    return eval(compile(ast.Expression(node), "<copy>", "eval"), {})  # literals and arithmetic only


def copies():
    found = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, "firmware")):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                with open(path) as f:
                    for number, line in enumerate(f, 1):
                        m = COPY.match(line)
                        if m:
                            found.append((os.path.relpath(path, ROOT), number) + m.groups())
    return found


def test_every_copy_equals_its_source():
    found = copies()
    assert len(found) >= 30  # the marker is in use (a broken pattern would find none)
    wrong = []
    for path, number, name, expr, module, source in found:
        want = getattr(importlib.import_module(module), source)
        if _value(expr) != want:
            wrong.append("%s:%d %s = %r, but %s.%s = %r" % (path, number, name, _value(expr), module, source, want))
    assert wrong == []


def test_the_copy_check_notices_a_wrong_copy():
    path, number, name, expr, module, source = next(c for c in copies() if c[3].startswith("const("))
    want = getattr(importlib.import_module(module), source)
    assert _value(expr) == want
    assert _value(expr[len("const("):-1] + " + 1") != want


def _read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def test_the_search_computes_the_phase_as_the_evaluation_does():
    def phase(text):
        m = re.search(r"phase = (int\(c\[2\]\).*?)\n\s*if phase > (\w+):", text, re.S)
        return " ".join(m.group(1).split()), m.group(2)

    assert phase(_read("firmware/engine/search.py")) == phase(_read("firmware/engine/evaluate.py"))


def test_the_three_move_orderings_score_captures_alike():
    text = _read("firmware/engine/search.py")
    code = [line for line in text.split("\n") if not line.strip().startswith("#")]
    assert sum("* _MVV -" in line for line in code) == 3
    assert sum("* _PROMO_ORDER" in line for line in code) == 3
    assert not re.search(r"\* 16 -|promo \* 100|7\) \* 100", text)  # no literal copy of the weights left
