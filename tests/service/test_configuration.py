"""Issue 22, "one configuration table": every setting is listed in ``docs/configuration.md``
with its type, default and meaning, the page is generated from the settings models, and
the code reads no setting the table does not list, nor lists one it does not read."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from service import settings_doc
from service.settings import MODELS

ROOT = Path(__file__).resolve().parents[2]
SCANNED = (ROOT / "service", ROOT / "deploy")
# Environment variables as the code and the manifests name them.
VARIABLE = re.compile(
    r"\b(?:TIGRIS_[A-Z0-9_]*[A-Z0-9]|RQ_REDIS_URL|REDIS_URL|PROMETHEUS_[A-Z_]+)\b"
)
# Where the code touches os.environ for something else than reading a setting.
NOT_A_SETTING_READ = {
    ("service/config.py", "from_env"): "the settings base: remembers models per environment",
    ("service/__main__.py", "_embedded_worker"): "hands the environment to a child process",
    ("deploy/healthcheck.py", "api_url"): "the container's probe, without the service's imports",
    ("deploy/healthcheck.py", "check_worker"): "the container's probe, as above",
}


def listed() -> set[str]:
    """The variables of the table."""
    return {variable for model in MODELS for variable, _ in settings_doc.documented(model)}


def files(*suffixes: str) -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted(top.rglob("*")):
            wanted = not suffixes or path.suffix in suffixes or path.name in suffixes
            if wanted and path.is_file() and "__pycache__" not in path.parts:
                yield path


def test_the_configuration_page_is_what_the_models_give() -> None:
    # Given the settings models, the page on disk is exactly what the generator writes
    # (``python -m service.settings_doc`` rewrites it; ``--check`` is this test's CI twin).
    assert settings_doc.main(["--check"]) == 0, "run: python -m service.settings_doc"
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    # and every setting has its row with a type, a default and a meaning.
    for variable in listed():
        [row] = [line for line in page.splitlines() if line.startswith(f"| `{variable}` |")]
        cells = [cell.strip() for cell in row.strip("|").split(" | ")]
        assert len(cells) == 4 and all(cells), row


def test_the_check_fails_on_a_stale_page(tmp_path: Path) -> None:
    stale = tmp_path / "configuration.md"
    stale.write_text(settings_doc.render().replace("TIGRIS_ADMIN_TOKEN", "TIGRIS_ADMIN"))
    assert settings_doc.main(["--check", "--output", str(stale)]) == 1
    assert settings_doc.main(["--output", str(stale)]) == 0
    assert settings_doc.main(["--check", "--output", str(stale)]) == 0


def test_every_variable_the_code_or_the_manifests_name_is_listed() -> None:
    # Given every file of service/ and deploy/ (code, Dockerfile, compose, Kubernetes),
    named: dict[str, set[str]] = {}
    for path in files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for variable in VARIABLE.findall(text):
            named.setdefault(variable, set()).add(str(path.relative_to(ROOT)))
    # then each environment variable they name is a setting of the table.
    unlisted = {variable: where for variable, where in named.items() if variable not in listed()}
    assert unlisted == {}, "read or named but not in the table (add a settings field)"
    # and the variables a model reads only for another one's sake are listed there.
    for model in MODELS:
        assert set(model.env_names().values()) <= listed(), model


def test_every_listed_setting_is_read_by_the_code() -> None:
    # Given every attribute the code of service/ and deploy/ reads,
    read: set[str] = set()
    for path in files(".py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                read.add(node.attr)
    # then every field of the table is read somewhere (a setting nothing reads is a lie).
    unread = [
        f"{model.__name__}.{name}"
        for model in MODELS
        for name, field in model.model_fields.items()
        if not field.exclude and name not in read
    ]
    assert unread == [], "listed but never read"


def environment_reads(path: Path) -> Iterator[tuple[str, int]]:
    """``(function, line)`` of each use of ``os.environ``/``os.getenv`` in ``path`` that is
    not an assignment to one variable (``os.environ[NAME] = …``, for child processes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    stores = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del)
    }
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    for node in ast.walk(tree):
        direct = (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr in ("environ", "environb", "getenv")
        )
        imported = (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in ("environ", "environb", "getenv") for alias in node.names)
        )
        if (direct and id(node) not in stores) or imported:
            line = getattr(node, "lineno", 0)
            inside = [f.name for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
            yield (inside[-1] if inside else "<module>"), line


def test_no_module_reads_the_environment_but_through_the_settings_models() -> None:
    # Given every Python file of service/ and deploy/, no code reads os.environ or
    # os.getenv itself (pydantic-settings does, for the models), but for the few places
    # that pass the environment on to a child process.
    found = [
        f"{path.relative_to(ROOT)}:{line} ({function})"
        for path in files(".py")
        for function, line in environment_reads(path)
        if (str(path.relative_to(ROOT)), function) not in NOT_A_SETTING_READ
    ]
    assert found == []
