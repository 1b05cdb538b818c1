"""The deployment files as the tests read them: Kubernetes manifests (through their
kustomization), the compose file, the HAProxy config and the Dockerfile's stages."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from dockerfile_parse import DockerfileParser

from service.__main__ import build_parser

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
HAPROXY = DEPLOY / "haproxy.cfg"
HEALTHCHECK = DEPLOY / "healthcheck.py"
SECRET_EXAMPLE = K8S / "secret.example.yaml"

Resource = dict[str, Any]


def load_yaml_documents(path: Path) -> list[Resource]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def kustomization() -> Resource:
    (doc,) = load_yaml_documents(K8S / "kustomization.yaml")
    return doc


def k8s_resources() -> list[tuple[str, Resource]]:
    """Every resource the kustomization lists, with the file it comes from."""
    return [
        (name, doc)
        for name in kustomization()["resources"]
        for doc in load_yaml_documents(K8S / name)
    ]


def k8s_resource(kind: str, name: str) -> Resource:
    found = [
        doc for _, doc in k8s_resources() if doc["kind"] == kind and doc["metadata"]["name"] == name
    ]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def containers(workload: Resource) -> list[Resource]:
    spec: list[Resource] = workload["spec"]["template"]["spec"]["containers"]
    return spec


def only_container(workload: Resource) -> Resource:
    (container,) = containers(workload)
    return container


def pod_labels(workload: Resource) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: Resource, labels: dict[str, str]) -> bool:
    """A label selector with ``matchLabels`` only (what these manifests use)."""
    assert set(selector) == {"matchLabels"}, selector
    return all(labels.get(key) == value for key, value in selector["matchLabels"].items())


def compose() -> Resource:
    doc: Resource = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return doc


@dataclass(frozen=True)
class Instruction:
    name: str
    value: str


@dataclass(frozen=True)
class Stage:
    base: str
    alias: str | None
    instructions: tuple[Instruction, ...]

    def all(self, name: str) -> list[str]:
        return [i.value for i in self.instructions if i.name == name]

    def last(self, name: str) -> str | None:
        values = self.all(name)
        return values[-1] if values else None


def image_env() -> dict[str, str]:
    """The environment the image's last stage sets (``ENV``)."""
    return dict(DockerfileParser(str(DOCKERFILE)).envs)


def dockerfile_stages() -> list[Stage]:
    parser = DockerfileParser(str(DOCKERFILE))
    stages: list[Stage] = []
    current: list[Instruction] | None = None
    base, alias = "", None
    for item in parser.structure:
        name, value = item["instruction"], item["value"]
        if name == "FROM":
            if current is not None:
                stages.append(Stage(base, alias, tuple(current)))
            words = [w for w in value.split() if not w.startswith("--")]  # --platform=…
            base = words[0]
            alias = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            current = []
        elif current is not None and name != "COMMENT":
            current.append(Instruction(name, value))
    assert current is not None, "the Dockerfile has no FROM"
    stages.append(Stage(base, alias, tuple(current)))
    return stages


def exec_form(value: str) -> list[str]:
    """An instruction's argument in exec form (a JSON array); shell form is split."""
    if value.lstrip().startswith("["):
        words: list[str] = json.loads(value)
        return words
    return shlex.split(value)


def service_command_valid(args: list[str]) -> bool:
    """Whether ``python -m service <args>`` would be accepted by the service's parser."""
    try:
        build_parser().parse_args(args)
    except SystemExit:
        return False
    return True
