"""bench/function_sizes.py: each function's share of a module's .mpy."""
import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import function_sizes  # noqa: E402

SOURCE = '''
import micropython


def small():
    return 1


@micropython.viper
def big(n: int) -> int:
    total = 0
    i = 0
    while i < n:
        total += i * 3 + (i >> 1) - (i & 7)
        i += 1
    return total


class Thing:
    def only(self):
        return "a string long enough to weigh something in the module's constants"
'''


def test_every_function_and_method_is_found_with_its_decorators():
    found = function_sizes.functions(ast.parse(SOURCE))
    assert [name for name, _, _ in found] == ["small", "big", "Thing.only"]
    big = found[1]
    assert SOURCE.splitlines()[big[1] - 1] == "@micropython.viper"


def test_taking_a_function_out_leaves_valid_source():
    lines = SOURCE.splitlines(keepends=True)
    for _, first, last in function_sizes.functions(ast.parse(SOURCE)):
        ast.parse(function_sizes.without(lines, first, last))  # a class left empty gets `pass`


def test_sizes_rank_the_machine_code_loop_first(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    whole, rows = function_sizes.sizes(str(path))
    names = [name for _, name in rows]
    assert names[0] == "big" and set(names) == {"small", "big", "Thing.only"}
    assert all(0 < size < whole for size, _ in rows)
    by_name = {name: size for size, name in rows}
    assert by_name["Thing.only"] > by_name["small"]
