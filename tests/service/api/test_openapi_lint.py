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
    # given the spec with an unquoted comma in a flow map (the bug this lint guards against;
    # the generator writes block style, so it is put in by hand here)
    text = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    broken = text.replace(
        "          type: string\n"
        "          description: The rule id of the rules digest, for refused commands.\n",
        "          {type: string, description: The rule id of the rules digest, for refused"
        " commands.}\n",
    )
    assert broken != text
    (tmp_path / "openapi.yaml").write_text(broken, encoding="utf-8")
    # when it is linted; then the bogus key is an error
    code, problems = _lint(tmp_path / "openapi.yaml")
    assert code != 0
    assert any("for refused commands" in json.dumps(p) for p in problems)


# Keywords whose value may be a real, written-out null (``default: null``: the field's
# default is null), as opposed to a key that got no value at all.
NULL_KEYWORDS = frozenset({"default", "const", "example"})
_NULL_TAG = "tag:yaml.org,2002:null"


def keys_without_a_value(text: str) -> list[str]:
    """The paths of the keys in a YAML document that were given no value: the mark of a
    flow map cut by a comma (``{description: one, two}`` makes a key ``two`` with no value).
    A null written out (``null`` or ``~``) is accepted for ``NULL_KEYWORDS`` (and anywhere
    under ``examples``), where null is a value the spec means."""

    def walk(node: yaml.Node, path: str) -> list[str]:
        found: list[str] = []
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else str(key)
                inner = f"{path}/{name}"
                if isinstance(value, yaml.ScalarNode) and value.tag == _NULL_TAG:
                    written = value.value not in ("", None)  # `null`/`~`, not nothing
                    meant = written and (name in NULL_KEYWORDS or "examples" in path)
                    if not meant:
                        found.append(inner)
                found += walk(value, inner)
        elif isinstance(node, yaml.SequenceNode):
            for index, value in enumerate(node.value):
                found += walk(value, f"{path}[{index}]")
        return found

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    return [] if root is None else walk(root, "")


def test_the_check_for_keys_without_a_value_tells_a_cut_flow_map_from_a_null_default() -> None:
    assert keys_without_a_value("a: {description: one, two}\n") == ["/a/two"]
    assert keys_without_a_value("a: {type: string, description: }\n") == ["/a/description"]
    assert keys_without_a_value("a:\n  description:\n") == ["/a/description"]
    assert keys_without_a_value("a: {description: null}\n") == ["/a/description"]
    assert keys_without_a_value("a: {default: null, b: {default: ~}}\nexamples: {x: null}\n") == []
    assert keys_without_a_value("a: {default: }\n") == ["/a/default"]


def test_no_flow_map_in_the_spec_holds_a_key_without_a_value() -> None:
    # a YAML-level check too: a key parsed with no value is a cut description; the
    # generator's `default: null` (a field whose default is null) is a value
    text = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    assert keys_without_a_value(text) == []


def test_the_spec_names_no_fixed_host() -> None:
    # the docs page's "Try it out" must reach whichever server serves the document
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    urls = [server["url"] for server in spec["servers"]]
    assert urls and all(url.startswith("/") and not url.startswith("//") for url in urls)
