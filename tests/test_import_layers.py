"""The import layering of ``domain`` and ``service``, checked by import-linter with the
contracts in pyproject.toml (``[tool.importlinter]``): domain <- service.store <-
service.application <- service.jobs <- service.api, the modules of ``service.jobs`` in
one direction (job bodies on top), and no import cycle among the modules of
``service.jobs``, ``service.application`` and ``service.store``."""

from __future__ import annotations

from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 broken" in out
