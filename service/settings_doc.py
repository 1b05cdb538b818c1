"""``python -m service.settings_doc [--check] [--output PATH]``: write the configuration
table (``docs/configuration.md``) from the settings models (``service.settings.MODELS``):
every setting with its type, default and meaning. ``--check`` writes nothing and exits 1
when the file is not what the models give (a CI step and a test run it)."""

from __future__ import annotations

import argparse
import enum
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic.fields import FieldInfo

from service.config import EnvSettings
from service.settings import MODELS

DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"

INTRO = """\
# Configuration

Every setting of the service is an environment variable, read by the settings models of
`service.settings` (with [pydantic-settings](https://docs.pydantic.dev/latest/concepts/pydantic_settings/)).
This page is written from those models by `python -m service.settings_doc`; a test fails
when it is out of date, or when the code reads a variable that is not listed here.

- An empty variable counts as unset. Booleans take `1`/`0`, `true`/`false`, `yes`/`no`
  or `on`/`off`. Lists are comma-separated.
- `python -m service` (and its `api`, `worker` and `rebuild-index` commands) checks every
  setting before it starts anything: a bad one stops it with one line per bad setting on
  stderr, such as `TIGRIS_ADMIN_TOKEN: String should have at least 16 characters`, and exit
  status 2.
- `create_app(config)` (`service.api`) takes any setting by its variable's name in its
  `config` mapping, before the environment.
"""


def _plain(annotation: Any) -> tuple[Any, bool]:
    """The annotation without ``| None``, and whether it had it."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(rest) == 1:
            return rest[0], True
    return annotation, False


_NAMES = {int: "integer", float: "number", bool: "boolean", str: "string", Path: "path"}


def type_of(field: FieldInfo) -> str:
    """The field's type in words, with its constraints."""
    annotation, _ = _plain(field.annotation)
    if get_origin(annotation) is Literal:
        words = "one of " + ", ".join(f"`{choice}`" for choice in get_args(annotation))
    elif get_origin(annotation) is tuple:
        item = get_args(annotation)[0]
        words = f"list of {_NAMES.get(item, getattr(item, '__name__', str(item)))}s"
    else:
        words = _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))
    bounds = []
    for rule in field.metadata:
        if isinstance(rule, Ge):
            bounds.append(f"≥ {rule.ge}")
        elif isinstance(rule, Gt):
            bounds.append(f"> {rule.gt}")
        elif isinstance(rule, Le):
            bounds.append(f"≤ {rule.le}")
        elif isinstance(rule, Lt):
            bounds.append(f"< {rule.lt}")
        elif isinstance(rule, MinLen):
            bounds.append(f"at least {rule.min_length} characters")
        elif isinstance(rule, MaxLen):
            bounds.append(f"at most {rule.max_length} items")
        elif getattr(rule, "pattern", None):
            bounds.append(f"matching `{rule.pattern}`")
    return ", ".join([words, *bounds])


def default_of(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None or value == ():
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, tuple):
        return "`" + ",".join(str(item) for item in value) + "`"
    if isinstance(value, enum.Enum):
        value = value.value
    return f"`{value}`"


def _cell(text: str) -> str:
    """One table cell: one line, Markdown code spans, no bare ``|``."""
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def documented(model: type[EnvSettings]) -> list[tuple[str, FieldInfo]]:
    """The model's settings that the table lists (by variable name): all but the fields
    excluded as read only for another model's sake (documented there)."""
    names = model.env_names()
    return [(names[name], field) for name, field in model.model_fields.items() if not field.exclude]


def render() -> str:
    parts = [INTRO]
    for model in MODELS:
        title = _cell((model.__doc__ or model.__name__).strip().splitlines()[0]).rstrip(".")
        parts.append(f"\n## {title}\n\n`{model.__module__}.{model.__name__}`\n")
        parts.append("| variable | type | default | meaning |")
        parts.append("|---|---|---|---|")
        for variable, field in documented(model):
            meaning = _cell(field.description or "")
            parts.append(
                f"| `{variable}` | {_cell(type_of(field))} | {default_of(field)} | {meaning} |"
            )
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.settings_doc", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when the file is stale")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    text = render()
    output: Path = args.output
    if args.check:
        if not output.exists() or output.read_text(encoding="utf-8") != text:
            print(
                f"{output} is out of date: run python -m service.settings_doc",
                file=sys.stderr,
            )
            return 1
        return 0
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
