"""Semantic differences between two OpenAPI documents (YAML): ``python scripts/contract_diff.py
OLD NEW`` prints each JSON path whose value differs, is missing or is new (key order and
YAML layout are not differences). Exit 1 when any is found."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml


def differences(old: Any, new: Any, at: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in old.keys() | new.keys():
            here = f"{at}/{key}"
            if key not in new:
                out.append(f"- {here}")
            elif key not in old:
                out.append(f"+ {here}")
            else:
                out.extend(differences(old[key], new[key], here))
        return sorted(out)
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            d
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for d in differences(a, b, f"{at}[{i}]")
        ]
    return [] if old == new else [f"~ {at}: {old!r:.80} -> {new!r:.80}"]


def main(argv: list[str]) -> int:
    old, new = (yaml.safe_load(Path(name).read_text(encoding="utf-8")) for name in argv[:2])
    found = differences(old, new)
    print("\n".join(found) or "no semantic difference")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
