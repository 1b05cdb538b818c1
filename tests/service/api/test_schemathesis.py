"""Schemathesis 4 against the running service with every check, all four phases
(examples, coverage, fuzzing, and the stateful phase that follows the OpenAPI links
create -> command -> read). Zero failures are allowed: no server error, no response
that breaks the schema, no accepted invalid input, no ignored authentication."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.service.api.conftest import ADMIN_TOKEN, LiveServer

HERE = Path(__file__).parent
EXAMPLES_PER_OPERATION = 40


def test_the_service_keeps_its_openapi_contract(live_server: LiveServer, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.service.api.schemathesis_hooks",
        "TIGRIS_TEST_BASE_URL": live_server.url,
        "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
    }
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file",
        str(HERE / "schemathesis.toml"),
        "run",
        f"{live_server.url}/openapi.yaml",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(EXAMPLES_PER_OPERATION),
        "--seed",
        "20261121",
        # The live streams are tested in test_server.py and test_player_feed.py: fuzzing
        # them would only wait.
        "--exclude-operation-id",
        "streamEvents",
        "--exclude-operation-id",
        "streamMyFeed",
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path),
    ]
    run = subprocess.run(
        command,
        env=env,
        capture_output=True,
        text=True,
        timeout=480,
        check=False,
        cwd=HERE.parents[2],
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert "passed" in output and "failures" not in output.split("SUMMARY")[-1]
    assert "✅ Stateful" in output, output[-3000:]
