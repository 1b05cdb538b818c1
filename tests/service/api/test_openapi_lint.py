"""openapi.yaml lints clean with Redocly's CLI (from the npm registry, installed by
``scripts/install-test-deps.sh``), with its strict recommended rules (``redocly.yaml``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
REDOCLY = ROOT / "node_modules" / ".bin" / "redocly"


def _lint(path: Path) -> tuple[int, list[dict[str, object]]]:
    if shutil.which("node") is None or not REDOCLY.exists():
        pytest.fail("Redocly's CLI is missing: run scripts/install-test-deps.sh")
    done = subprocess.run(
        [str(REDOCLY), "lint", str(path), "--format=json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stdout[done.stdout.index("{") :])
    problems: list[dict[str, object]] = report["problems"]
    return done.returncode, problems


def test_the_spec_lints_without_a_problem() -> None:
    # given the repository's openapi.yaml; when Redocly lints it
    code, problems = _lint(ROOT / "openapi.yaml")
    # then it reports nothing (beyond the ignore file's three operations endpoints)
    assert problems == [] and code == 0


def test_the_linter_catches_a_comma_that_cuts_a_description(tmp_path: Path) -> None:
    # given the spec with an unquoted comma in a flow map (the bug this lint guards against)
    text = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    broken = text.replace(
        "description: 'The rule id of the rules digest, for refused commands.'",
        "description: The rule id of the rules digest, for refused commands.",
    )
    assert broken != text
    (tmp_path / "openapi.yaml").write_text(broken, encoding="utf-8")
    # when it is linted; then the bogus key is an error
    code, problems = _lint(tmp_path / "openapi.yaml")
    assert code != 0
    assert any("for refused commands" in json.dumps(p) for p in problems)


def test_no_flow_map_in_the_spec_holds_a_key_without_a_value() -> None:
    # a YAML-level check too: a key parsed with no value (`null`) is a cut description
    def nulls(node: object, path: str) -> list[str]:
        found: list[str] = []
        if isinstance(node, dict):
            for key, value in node.items():
                inner = f"{path}/{key}"
                if value is None and "examples" not in path:
                    found.append(inner)
                found += nulls(value, inner)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found += nulls(value, f"{path}[{index}]")
        return found

    assert nulls(yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8")), "") == []


def test_the_spec_names_no_fixed_host() -> None:
    # the docs page's "Try it out" must reach whichever server serves the document
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    urls = [server["url"] for server in spec["servers"]]
    assert urls and all(url.startswith("/") and not url.startswith("//") for url in urls)
