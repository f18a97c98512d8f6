"""`make release` (tools/release.py): what it checks before it builds, that a failure never
leaves a folder that looks complete, and a real release folder: the image, the web demo's
archive, the notes from CHANGELOG.md and SHA256SUMS that `sha256sum -c` accepts, the same
bytes when nothing changed.

The real folder is made for the pico image alone (the four images are `make release`'s; the
other three are built by `make test-images`), with the image test's build (tests/test_image.py
`built`), so nothing is built twice. Skipped, with the reason, without the cross toolchain, the
MicroPython source or the WebAssembly port (npm)."""
import os
import shutil
import subprocess
import zipfile

import pytest

from tools import image, release

CHANGELOG = """# Changelog

## [Unreleased]

- something new

## [2.1.0] - 2027-01-02

### Added

- the thing

## [2.0.0] - 2026-12-30

- older
"""


def test_the_notes_are_the_versions_changelog_section(tmp_path):
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG)
    body, date = release.changelog_section("2.1.0", str(tmp_path))
    assert (body, date) == ("### Added\n\n- the thing", "2027-01-02")
    with pytest.raises(release.ReleaseError, match=r"no section '## \[2.2.0\]"):
        release.changelog_section("2.2.0", str(tmp_path))
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG.replace("## [2.1.0] - 2027-01-02", "## [2.1.0]"))
    with pytest.raises(release.ReleaseError, match="no date"):
        release.changelog_section("2.1.0", str(tmp_path))


def _no_build(*args, **kw):
    raise AssertionError("nothing may be built when a check fails")


def test_a_missing_section_or_toolchain_stops_before_anything_is_built(tmp_path, monkeypatch):
    out = str(tmp_path / "release")
    monkeypatch.setattr(image, "build_image", _no_build)
    monkeypatch.setattr(image, "project_version", lambda root=None: "99.0.0")
    with pytest.raises(release.ReleaseError, match=r"\[99.0.0\]"):
        release.make_release(out, log=None)
    monkeypatch.setattr(image, "project_version", lambda root=None: "1.0.0")
    monkeypatch.setattr(image, "toolchain_missing", lambda: "arm-none-eabi-gcc not found: install it")
    with pytest.raises(release.ReleaseError, match="arm-none-eabi-gcc not found"):
        release.make_release(out, log=None)
    assert os.listdir(str(tmp_path)) == []


def test_a_failed_build_leaves_no_folder_and_keeps_the_last_release(tmp_path, monkeypatch):
    out = tmp_path / "release"
    out.mkdir()
    (out / "SHA256SUMS").write_text("the last release\n")
    monkeypatch.setattr(release, "preflight", lambda version, boards, src, log: ("notes", "2026-12-06", "tree"))
    uf2 = tmp_path / "a.uf2"
    uf2.write_bytes(b"UF2\n")

    def build(board, tree, jobs, log=None):
        if board == "pico_w":
            raise image.ImageError("building the pico_w image failed (exit 2)")
        return {"paths": {"uf2": str(uf2)}}

    monkeypatch.setattr(image, "build_image", build)
    with pytest.raises(release.ReleaseError, match="pico_w image failed"):
        release.make_release(str(out), log=None)
    assert sorted(os.listdir(str(tmp_path))) == ["a.uf2", "release"]  # no half-made folder beside it
    assert (out / "SHA256SUMS").read_text() == "the last release\n"


def _release_unavailable():
    from tests.test_image import build_unavailable
    from tools import wasm_port

    why = build_unavailable()
    if why:
        return why
    pkg = os.path.join(wasm_port.WASM_DIR, "node_modules", *wasm_port.PACKAGE.split("/"))
    if not os.path.isdir(pkg) and shutil.which("npm") is None:
        return "no MicroPython WebAssembly port for the web demo and no npm to install it"
    return None


@pytest.mark.slow
def test_a_release_folder_verifies_and_is_the_same_when_nothing_changed(tmp_path):
    why = _release_unavailable()
    if why:
        pytest.skip(why)
    from tests.test_image import built

    info = built("pico")  # the image test's build: make_release finds it up to date
    out = str(tmp_path / "release")
    version = image.project_version()
    files = release.make_release(out, boards=("pico",), log=None)
    names = sorted(os.listdir(out))
    uf2 = "reedchess-%s-pico.uf2" % version
    web = "reedchess-%s-web.zip" % version
    assert names == sorted([uf2, web, "RELEASE-NOTES.md", "SHA256SUMS"])
    assert [name for name, _ in files] == sorted([uf2, web, "RELEASE-NOTES.md"])
    done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == 3
    with open(info["paths"]["uf2"], "rb") as f, open(os.path.join(out, uf2), "rb") as g:
        assert f.read() == g.read()
    body, date = release.changelog_section(version)
    notes = open(os.path.join(out, "RELEASE-NOTES.md")).read()
    assert notes.startswith("# Reedchess %s (%s)" % (version, date)) and body in notes and uf2 in notes
    with zipfile.ZipFile(os.path.join(out, web)) as z:
        inside = z.namelist()
    prefix = "reedchess-%s-web/" % version
    assert all(n.startswith(prefix) for n in inside)
    assert {prefix + "index.html", prefix + "files.json", prefix + "mpwasm/micropython.wasm"} <= set(inside)
    first = open(os.path.join(out, "SHA256SUMS")).read()
    release.make_release(out, boards=("pico",), log=None)
    assert open(os.path.join(out, "SHA256SUMS")).read() == first
