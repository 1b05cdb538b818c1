"""Fixtures of the generated-client tests: a Python client generated from ``openapi.yaml``
by ``openapi-python-client`` into a temporary directory (never committed), and the real
service (gunicorn) to play against."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.service.api.conftest import LiveServer, start_live_server

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi.yaml"
PACKAGE = "tigris_api_client"
# The generator's settings (its content-type overrides), as docs/clients.md uses them.
CONFIG = ROOT / "clients" / "python" / "openapi-python-client.yaml"
DOCS = ROOT / "docs" / "clients.md"


def generator_warnings(output: str) -> list[str]:
    """Every line of the generator's output (stdout and stderr) that warns or errs: it
    prints its summary and the details of each warning on stderr."""
    return [line for line in output.splitlines() if "warning" in line.lower() or "error" in line]


def generate_python_client(
    target: Path, spec: Path = SPEC, config: Path = CONFIG
) -> tuple[Path, list[str]]:
    """Generate the client package into ``target``; its directory and the generator's
    warnings (read from both streams). No post-hooks: the generated code is used as
    generated, not reformatted."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(spec),
            "--meta",
            "none",
            "--config",
            str(config),
            "--output-path",
            str(target / PACKAGE),
        ],
        cwd=target,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target / PACKAGE, generator_warnings(done.stdout + "\n" + done.stderr)


@pytest.fixture(scope="session")
def python_client_generation(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[str]]:
    return generate_python_client(tmp_path_factory.mktemp("generated"))


@pytest.fixture(scope="session")
def generated(python_client_generation: tuple[Path, list[str]]) -> Iterator[ModuleType]:
    """The generated package, importable for the session (its models and ``api``)."""
    package, _ = python_client_generation
    sys.path.insert(0, str(package.parent))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(package.parent))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def live_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The real service (gunicorn, gevent workers) on a loopback port."""
    with start_live_server(redis_url, tmp_path_factory.mktemp("server")) as server:
        yield server
