"""The import layering of ``domain`` and ``service``, checked by import-linter with the
contracts in pyproject.toml (``[tool.importlinter]``): domain <- service.store <-
service.application <- service.jobs <- service.api, the modules of ``service.jobs`` in
one direction (job bodies on top), and no import cycle among the modules of
``service.jobs``, ``service.application`` and ``service.store``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_contracts_are_kept() -> None:
    # (in a process of its own: import-linter configures logging, which would disable the
    # loggers of the modules the other tests already imported)
    done = subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
