"""The GitHub workflows (.github/workflows/), which cannot run here: each parses as YAML, every
`make` target they call exists in the Makefile, the CI job installs exactly .ci/run's system
packages and runs `make test`, the release job checks the tag against pyproject's version
before it builds and attaches every file of dist/release/, and Pages publishes the web demo."""
import os
import re
import shlex

import pytest

yaml = pytest.importorskip("yaml")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOWS = os.path.join(ROOT, ".github", "workflows")


def load(name):
    with open(os.path.join(WORKFLOWS, name)) as f:
        doc = yaml.safe_load(f)
    assert isinstance(doc, dict) and doc.get("jobs"), name
    return doc


def triggers(doc):
    return doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true


def run_lines(doc):
    """Every shell line of every `run:` step, in order."""
    lines = []
    for job in doc["jobs"].values():
        for step in job.get("steps", []):
            lines += [line.strip() for line in step.get("run", "").splitlines() if line.strip()]
    return lines


def words_of(line):
    try:
        return shlex.split(line)
    except ValueError:  # a line of a longer shell construct
        return line.split()


def make_targets():
    with open(os.path.join(ROOT, "Makefile")) as f:
        return set(re.findall(r"^([A-Za-z][\w-]*):", f.read(), re.M))


def ci_run_packages():
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        return set(re.search(r'^PACKAGES="([^"]*)"', f.read(), re.M).group(1).split())


def apt_packages(doc):
    pkgs = set()
    for line in run_lines(doc):
        words = words_of(line)
        if "apt-get" in words and "install" in words:
            pkgs |= {w for w in words[words.index("install") + 1:] if not w.startswith("-")}
    return pkgs


def test_every_workflow_parses_and_every_make_target_exists():
    names = sorted(n for n in os.listdir(WORKFLOWS) if n.endswith((".yml", ".yaml")))
    assert names == ["ci.yml", "pages.yml", "release.yml"]
    targets = make_targets()
    for name in names:
        doc = load(name)
        assert triggers(doc), name
        for line in run_lines(doc):
            words = words_of(line)
            if words[:1] == ["make"]:
                wanted = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                assert wanted and set(wanted) <= targets, (name, line)


def test_ci_installs_ci_runs_packages_and_runs_make_test():
    doc = load("ci.yml")
    assert {"push", "pull_request"} <= set(triggers(doc))
    assert apt_packages(doc) == ci_run_packages()
    assert "make test" in run_lines(doc)


def test_release_checks_the_tag_before_it_builds_and_attaches_every_file():
    doc = load("release.yml")
    assert triggers(doc)["push"]["tags"] == ["v*"]
    assert doc["permissions"]["contents"] == "write"
    lines = run_lines(doc)
    check = next(i for i, line in enumerate(lines) if "GITHUB_REF_NAME" in line and "v$version" in line)
    assert any("tools.release --version-only" in line for line in lines[:check])
    assert lines[check + 1:check + 3] and any("exit 1" in line for line in lines[check:check + 4])
    assert check < lines.index("make release")
    assert apt_packages(doc) <= ci_run_packages()
    publish = " ".join(lines[lines.index("make release"):])
    assert "sha256sum -c SHA256SUMS" in publish
    assert "gh release create" in publish and "dist/release/*" in publish
    assert "--notes-file dist/release/RELEASE-NOTES.md" in publish


def test_the_version_check_reads_pyproject(capsys):
    from tools import image, release

    assert release.main(["--version-only"]) == 0
    assert capsys.readouterr().out.strip() == image.project_version()


def test_pages_publishes_the_web_demo():
    doc = load("pages.yml")
    assert "make web-demo" in run_lines(doc)
    uploads = [s for job in doc["jobs"].values() for s in job.get("steps", [])
               if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert [s["with"]["path"] for s in uploads] == ["dist/web"]
    assert doc["permissions"]["pages"] == "write"
