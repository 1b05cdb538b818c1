"""The documentation site (MkDocs, Material theme; ``mkdocs.yml`` and ``docs/``) builds in
strict mode, where a broken link or anchor is an error, and the README's links lead to files
that exist."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``project`` into ``site`` (run from ``project``, where the
    rules pages' snippets are looked up)."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_documentation_site_builds_strictly(tmp_path: Path) -> None:
    """Given docs/ and mkdocs.yml, when the site is built with --strict, then it builds (no
    broken link or anchor, every page in the nav) and the rules pages hold the rules text the
    service serves (included from domain/<kind>/RULES.md, not copied)."""
    built = mkdocs_build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-4000:]
    for kind, first_rule in (("board", "B-SETUP-1"), ("cards", "C-SETUP-2")):
        page = (tmp_path / "site" / "rules" / kind / "index.html").read_text(encoding="utf-8")
        assert first_rule in page
        assert first_rule in (ROOT / "domain" / kind / "RULES.md").read_text("utf-8")


def test_a_broken_anchor_or_link_fails_the_strict_build(tmp_path: Path) -> None:
    """Given a copy of the site with one link to a missing anchor and one to a missing page,
    when it is built with --strict, then the build fails and names both."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs", project / "docs")
    for kind in ("board", "cards"):
        (project / "domain" / kind).mkdir(parents=True)
        shutil.copy(ROOT / "domain" / kind / "RULES.md", project / "domain" / kind / "RULES.md")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    with (project / "docs" / "index.md").open("a", encoding="utf-8") as index:
        index.write("\n[a rule](bots.md#no-such-anchor) and [a page](no-such-page.md)\n")

    built = mkdocs_build(project, tmp_path / "site")

    assert built.returncode != 0
    assert "no-such-anchor" in built.stderr
    assert "no-such-page.md" in built.stderr


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    """Given the README, then every link that is not a URL names a file of the repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t.partition("#")[0]).exists()]
    assert missing == []
