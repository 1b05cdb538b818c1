"""The client developer's guide (docs/client-guide.md) cannot rot either: its Python examples
run, in order, against the real service, and its TypeScript examples type-check with
``tsc --strict``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.api.conftest import LiveServer, start_live_server

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "client-guide.md"
BIN = ROOT / "node_modules" / ".bin"
WRITTEN_FOR = 'API = "http://127.0.0.1:8000"'
# A signing secret for the webhook receiver's example (a subscription shows its own once).
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def examples(language: str) -> list[str]:
    """The guide's fenced blocks of ``language`` (in its tabs, indented by four), in order."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(rf"^    ```{language}\n(.*?)^    ```$", text, re.DOTALL | re.MULTILINE)
    return ["\n".join(line[4:] for line in block.splitlines()) for block in blocks]


@pytest.fixture(scope="module")
def service(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with start_live_server(redis_url, tmp_path_factory.mktemp("guide")) as server:
        yield server


def test_the_python_examples_run_in_order_against_the_service(
    service: LiveServer, tmp_path: Path
) -> None:
    """Given the guide's Python examples as one script (its address the live service's, the
    stream's wait shortened), when it runs, then it creates a game, plays a legal command,
    reads the events from the stream and prints the rule of a refused command."""
    blocks = examples("python")
    assert len(blocks) >= 6
    script = "\n\n".join(blocks)
    assert WRITTEN_FOR in script
    script = script.replace(WRITTEN_FOR, f"API = {service.url!r}")
    script = script.replace("?wait=30", "?wait=1")
    script = f"secret = {SECRET!r}\n\n{script}\n"
    (tmp_path / "guide.py").write_text(script, encoding="utf-8")

    done = subprocess.run(
        [sys.executable, "guide.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert re.search(r"^1 board\.GameStarted$", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^4 board\.\w+$", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^B-[A-Z]+-\d+ .+ /rules/board#B-", done.stdout, re.MULTILINE), done.stdout


def test_the_typescript_examples_type_check(tmp_path: Path) -> None:
    """Given the guide's TypeScript examples as one module (the webhook library declared, the
    signing secret given), when tsc checks it in strict mode, then nothing is wrong."""
    if shutil.which("node") is None or not (BIN / "tsc").exists():
        pytest.fail("the TypeScript tools are missing: run scripts/install-test-deps.sh")
    blocks = examples("typescript")
    assert len(blocks) >= 6
    imports = [line for block in blocks for line in block.splitlines() if line.startswith("import")]
    code = [
        "\n".join(line for line in block.splitlines() if not line.startswith("import"))
        for block in blocks
    ]
    module = "\n".join([*imports, f"const secret = {json.dumps(SECRET)};", *code, "export {};"])
    (tmp_path / "guide.ts").write_text(module, encoding="utf-8")
    (tmp_path / "standardwebhooks.d.ts").write_text(
        'declare module "standardwebhooks" {\n'
        "  export class Webhook {\n"
        "    constructor(secret: string);\n"
        "    verify(payload: string, headers: Record<string, string>): unknown;\n"
        "  }\n"
        "}\n",
        encoding="utf-8",
    )
    config = {
        "compilerOptions": {
            "strict": True,
            "target": "es2022",
            "module": "es2022",
            "moduleResolution": "bundler",
            "lib": ["es2022", "dom"],
            "noEmit": True,
            "typeRoots": [str(ROOT / "node_modules" / "@types")],
            "types": ["node"],
        },
        "files": ["guide.ts", "standardwebhooks.d.ts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")

    done = subprocess.run(
        [str(BIN / "tsc"), "-p", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
