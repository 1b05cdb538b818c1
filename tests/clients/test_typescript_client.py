"""TypeScript types generated from ``openapi.yaml`` by ``openapi-typescript`` (npm registry,
installed by ``scripts/install-test-deps.sh``) type-check the small client in
``clients/typescript/client.ts`` with ``tsc``, refuse a command of the wrong shape, and the
compiled client plays against the real service."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from tests.service.api.conftest import LiveServer

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
CLIENT = ROOT / "clients" / "typescript"

RIGHT = """import { TigrisClient } from "./client";
export async function right(client: TigrisClient, etag: string): Promise<void> {
  await client.sendCommand("g", { type: "PlaceTile", colour: "red", at: [5, 5] }, etag);
}
"""
WRONG = RIGHT.replace("at: [5, 5]", 'at: "5,5"').replace("right", "wrong")
# Issue 21, point 8: a clock is one of two named shapes a client can narrow (it was
# `unknown | unknown`), a square a `[row, col]` pair.
TYPED = """import type { components } from "./api";
type Schemas = components["schemas"];
export function seconds(clock: Schemas["Clock"]): number {
  return "per_decision_s" in clock
    ? clock.per_decision_s
    : clock.initial_s + (clock.increment_s ?? 0);
}
export const turn: Schemas["DecisionClock"] = { per_decision_s: 30, on_expiry: "greedy" };
export const game: Schemas["Clock"] = { initial_s: 600, increment_s: 5 };
export const corner: Schemas["BoardCommandPlaceTile"]["at"] = [10, 15];
export const red: Schemas["Colour"] = "red";
export const tile: Schemas["BoardCommand"] = { type: "PlaceTile", colour: red, at: corner };
"""
DOCS = ROOT / "docs" / "clients.md"


def documented_commands(section: str) -> list[str]:
    """The shell lines of the first ``sh`` block under ``## <section>`` of docs/clients.md."""
    text = DOCS.read_text(encoding="utf-8")
    part = text.split(f"## {section}", 1)[1]
    block = part.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (BIN / "tsc").exists():
        pytest.fail("the TypeScript tools are missing: run scripts/install-test-deps.sh")
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def types(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``api.d.ts`` generated from the spec (run outside the repository, whose
    ``redocly.yaml`` holds the strict lint rules, not the generator's)."""
    where = tmp_path_factory.mktemp("types")
    done = _run(
        [str(BIN / "openapi-typescript"), str(ROOT / "openapi.yaml"), "-o", "api.d.ts"], where
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return where / "api.d.ts"


def _project(where: Path, types: Path, extra: dict[str, str]) -> Path:
    """The client, the generated types and ``extra`` files in a directory of their own, with
    the repository's compiler settings (and its ``@types``)."""
    shutil.copy(CLIENT / "client.ts", where / "client.ts")
    shutil.copy(types, where / "api.d.ts")
    for name, text in extra.items():
        (where / name).write_text(text, encoding="utf-8")
    config = {
        "extends": str(CLIENT / "tsconfig.json"),
        "compilerOptions": {"typeRoots": [str(ROOT / "node_modules" / "@types")], "outDir": "out"},
        "include": ["*.ts"],
    }
    (where / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return where


def test_the_client_type_checks_against_the_generated_types(types: Path, tmp_path: Path) -> None:
    # given the client and a well-formed board command sent through it
    project = _project(tmp_path, types, {"right.ts": RIGHT})
    # when tsc checks them; then nothing is wrong
    done = _run([str(BIN / "tsc"), "--noEmit", "-p", "."], project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_documented_commands_type_check_the_client_and_typed_shapes(tmp_path: Path) -> None:
    # given a copy of the repository's client, spec and Node tools, and a file using the
    # clock, square and colour types
    if shutil.which("npx") is None or not (BIN / "tsc").exists():
        pytest.fail("the TypeScript tools are missing: run scripts/install-test-deps.sh")
    shutil.copytree(CLIENT, tmp_path / "clients" / "typescript")
    for name in ("openapi.yaml", "package.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")
    (tmp_path / "clients" / "typescript" / "typed.ts").write_text(TYPED, encoding="utf-8")
    # when the commands docs/clients.md shows are run; then they succeed
    commands = documented_commands("TypeScript")
    assert any("tsc --noEmit" in line for line in commands)
    script = "set -e\n" + "\n".join(commands)
    done = _run(["bash", "-c", script], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_command_of_the_wrong_shape_does_not_type_check(types: Path, tmp_path: Path) -> None:
    # given a PlaceTile whose square is text, not [row, col]
    project = _project(tmp_path, types, {"wrong.ts": WRONG})
    # when tsc checks it; then it fails on that line, and only there
    done = _run([str(BIN / "tsc"), "--noEmit", "-p", "."], project)
    errors = [line for line in done.stdout.splitlines() if ": error TS" in line]
    assert done.returncode != 0
    assert errors and all(line.startswith("wrong.ts(3,") for line in errors), done.stdout
    assert "TS2322" in done.stdout and "'string' is not assignable" in done.stdout


def test_the_compiled_client_plays_against_the_service(
    types: Path, tmp_path: Path, live_server: LiveServer
) -> None:
    # given the client compiled to JavaScript (its types are checked by the test above)
    project = _project(tmp_path, types, {})
    compiled = _run([str(BIN / "tsc"), "--noCheck", "-p", "."], project)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    # when it creates a game with open seats, claims them and places a tile
    done = _run(["node", str(project / "out" / "client.js"), live_server.url], project)
    assert done.returncode == 0, done.stdout + done.stderr
    played = json.loads(done.stdout)
    # then its typed state showed the tile, and the service's log holds exactly that command
    assert played["tile_on_board"] is True
    # and one call per move: the answers held the awaited seat's commands (a read only when
    # the seat claimed first is the awaited one), and the next action's after the tile
    assert played["still_awaited"] is True
    assert played["reads"] == (0 if played["seat"] == 1 else 1)
    assert played["command"]["type"] == "PlaceTile"
    base = f"{live_server.url}/games/{played['game_id']}"
    game = requests.get(base, timeout=10).json()
    assert game["status"] == "active" and game["version"] == played["version"]
    assert [seat["name"] for seat in game["seats"]] == ["Ada", "Bea"]
    events = requests.get(f"{base}/events?limit=500", timeout=10).json()["items"]
    placed = [e for e in events if e["type"] == "board.TilePlaced"]
    assert len(placed) == 1 and placed[0]["seat"] == played["seat"]
    assert placed[0]["data"]["colour"] == played["command"]["colour"]
    assert placed[0]["data"]["at"] == played["command"]["at"]
