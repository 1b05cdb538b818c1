"""The deployment guide is reachable from the README, and every file it names exists."""

from __future__ import annotations

import re

from tests.deploy.files import DEPLOY, K8S, ROOT

GUIDE = ROOT / "docs" / "deploy.md"
# Files the operator creates (git-ignored), which the guide names on purpose.
OPERATOR_FILES = {"deploy/tigris.env"}


def test_the_readme_links_the_deployment_guide() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/deploy.md)" in readme


def test_every_file_the_guide_names_exists() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:deploy|tests|service|docs)/[\w./-]+)`", text)) - OPERATOR_FILES
    # Bare names in the tables of deploy/ and deploy/k8s/.
    names = set(re.findall(r"`([\w.-]+\.(?:yaml|py|cfg))`", text))
    assert len(paths) >= 5 and len(names) >= 10
    assert [p for p in sorted(paths) if not (ROOT / p).exists()] == []
    assert [n for n in sorted(names) if not (DEPLOY / n).exists() and not (K8S / n).exists()] == []
