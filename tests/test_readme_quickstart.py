"""The README's quick start cannot rot: its shell session runs verbatim, with bash and
``set -euo pipefail``, against the real service started as the run command starts it
(``python -m service`` on its embedded Redis, here on a free port and a temporary data
directory), and the run command's first lines say where to go."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.service.api.conftest import start_live_server

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARKER = "<!-- quick-start -->"


def quick_start_block(text: str) -> str:
    """The fenced ``sh`` block right after the quick-start marker."""
    _, marker, after = text.partition(MARKER)
    assert marker, f"README.md has no {MARKER} marker"
    match = re.match(r"\s*```sh\n(.*?)\n```", after, re.DOTALL)
    assert match, f"no ```sh block right after {MARKER}"
    return match.group(1)


def test_the_readme_is_short_and_names_no_machine_path() -> None:
    """Given the README, then it is at most 250 lines and quotes no path of a machine."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert not re.search(r"(?<![\w.])/(work|root|home|tmp)/", text)


def test_the_quick_start_runs_verbatim_against_the_service_the_run_command_starts(
    tmp_path: Path,
) -> None:
    """Given ``python -m service`` on its embedded Redis, when the README's quick-start block
    runs as it stands (bash, ``set -euo pipefail``, ``curl --fail``: any non-2xx fails it),
    then it creates a game, sends the awaited seat one of its legal commands and reads the
    state and the event log; and the service printed where to go and how to stop."""
    if shutil.which("curl") is None:
        pytest.fail("the quick start needs curl")
    block = quick_start_block(README.read_text(encoding="utf-8"))
    data_dir = tmp_path / "redis"
    with start_live_server(None, tmp_path, {"TIGRIS_REDIS_DIR": str(data_dir)}) as server:
        completed = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            env={**os.environ, "TIGRIS_URL": server.url},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        printed = server.log.read_text(encoding="utf-8", errors="replace")

    assert completed.returncode == 0, completed.stderr + completed.stdout
    out = completed.stdout
    assert re.search(r"^game: [0-9a-f]{32}$", out, re.MULTILINE), out
    seat = re.search(r"^awaited seat: ([01])$", out, re.MULTILINE)
    assert seat, out
    assert re.search(r"^sending at version 3: \{\"type\": ", out, re.MULTILINE), out
    assert re.search(r"^accepted, now at version [4-9]\d*$", out, re.MULTILINE), out
    assert re.search(r"^version [4-9]\d* - my hand: \{", out, re.MULTILINE), out
    assert re.search(r"^\s+1 board\.GameStarted$", out, re.MULTILINE), out
    assert re.search(r"^\s+4 board\.\w+$", out, re.MULTILINE), out

    for line in (
        f"play in the browser:  {server.url}/play/",
        f"API documentation:    {server.url}/docs/",
        f"API:                  {server.url}/games",
        f"data:                 {data_dir.resolve()} (embedded Redis)",
        "stop:                 Ctrl+C",
    ):
        assert line in printed, printed[-2000:]
