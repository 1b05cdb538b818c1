"""Issue 21, point 14: a bad setting stops ``python -m service`` before anything starts,
with one line per bad setting naming it, and exit status 2 (not tracebacks after Redis,
the worker and gunicorn had started). The real command runs as a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from service.settings import MODELS, problems

SHORT_TOKEN = "too-short-12"  # 12 characters; at least 16 are needed


def run_service(tmp_path: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """``python -m service ARGS`` with only ``settings`` set (the embedded Redis, were it
    started, would keep its data under ``tmp_path/redis``)."""
    names = {name for model in MODELS for name in model.env_names().values()}
    env = {key: value for key, value in os.environ.items() if key not in names}
    env.update({"TIGRIS_REDIS_DIR": str(tmp_path / "redis"), "TIGRIS_PORT": "0", **settings})
    process = subprocess.Popen(
        [sys.executable, "-m", "service", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # it started serving: stop it and everything it began
        os.killpg(process.pid, signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def assert_nothing_started(tmp_path: Path, result: subprocess.CompletedProcess[str]) -> None:
    assert not (tmp_path / "redis").exists(), "the embedded Redis was started"
    assert "embedded Redis" not in result.stderr
    assert "RQ worker" not in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_short_admin_token_stops_the_start_with_one_line_and_status_2(tmp_path: Path) -> None:
    # Given an admin token of 12 characters, when the service is started,
    result = run_service(tmp_path, TIGRIS_ADMIN_TOKEN=SHORT_TOKEN)
    # then it stops at once with status 2 and one line naming the setting,
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "TIGRIS_ADMIN_TOKEN: String should have at least 16 characters"
    ]
    # which never repeats the (secret) value, and nothing was started.
    assert SHORT_TOKEN not in result.stderr
    assert_nothing_started(tmp_path, result)


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("TIGRIS_PORT", "eighty", "Input should be a valid integer"),
        ("TIGRIS_MAX_BODY", "100", "Input should be greater than or equal to 1024"),
        ("TIGRIS_SSE_HEARTBEAT", "301", "Input should be less than or equal to 300"),
        ("TIGRIS_LOG_LEVEL", "loud", "Input should be 'debug', 'info'"),
        ("TIGRIS_RATE_LIMIT_TOKEN", "lots", "must be a rate such as '3000 per minute'"),
        ("TIGRIS_CORS_ORIGINS", "example.org", "is not a scheme://host[:port]"),
        ("TIGRIS_REDIS_APPENDFSYNC", "sometimes", "Input should be 'always', 'everysec'"),
        ("TIGRIS_KEY_PREFIX", "a:{b}", "String should match pattern"),
        ("TIGRIS_RQ_WORKERS", "0", "Input should be greater than or equal to 1"),
        ("TIGRIS_JOB_RETRIES", "1,x", "must be comma-separated seconds"),
        ("TIGRIS_EMBEDDED_WORKER", "maybe", "Input should be a valid boolean"),
        ("RQ_REDIS_URL", "redis+cluster://127.0.0.1:1", "RQ needs a single server"),
    ],
)
def test_each_bad_value_is_one_line_naming_its_setting(
    tmp_path: Path, name: str, value: str, says: str
) -> None:
    # Given one bad setting, when the service is started,
    result = run_service(tmp_path, **{name: value})
    # then it stops with status 2 and the one line says which setting and why.
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{name}: ")
    assert says in line
    assert_nothing_started(tmp_path, result)


def test_every_bad_setting_is_reported_at_once_by_every_command(tmp_path: Path) -> None:
    # Given three bad settings,
    bad = {"TIGRIS_ADMIN_TOKEN": SHORT_TOKEN, "TIGRIS_STREAMS_MAX": "0", "TIGRIS_AUDIT_S": "x"}
    for command in ([], ["api"], ["worker"], ["rebuild-index"]):
        # when the API, the workers or the index rebuild is started,
        result = run_service(tmp_path, *command, **bad)
        # then each bad setting gets its line (not only the first one met), status 2.
        assert result.returncode == 2, (command, result.stderr)
        assert sorted(line.partition(":")[0] for line in result.stderr.splitlines()) == sorted(
            bad
        ), command
        assert_nothing_started(tmp_path, result)


def test_a_bad_command_line_option_is_reported_like_a_setting(tmp_path: Path) -> None:
    # Given --workers 0 on the command line, the start stops at the same check.
    result = run_service(tmp_path, "--workers", "0")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "TIGRIS_WORKERS: Input should be greater than or equal to 1"
    ]
    assert_nothing_started(tmp_path, result)


def test_the_defaults_have_no_problem() -> None:
    assert problems({}) == []
