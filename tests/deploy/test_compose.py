"""The compose file (deploy/compose.yaml) and its balancer (deploy/haproxy.cfg) hold what
docs/deploy.md promises. Docker cannot run on the test machine (no engine), so the files are
read with PyYAML and checked setting by setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from service.api.server import gunicorn_options
from service.api.settings import MAX_HEARTBEAT_S
from tests.deploy.files import (
    COMPOSE,
    DEPLOY,
    HAPROXY,
    Resource,
    compose,
    image_env,
    service_command_valid,
)

SERVICES = ("redis", "api", "worker", "lb")
TIGRIS_ROLES = ("api", "worker")


def service(name: str) -> Resource:
    found: Resource = compose()["services"][name]
    return found


def environment(name: str) -> dict[str, str]:
    env = service(name).get("environment", {})
    assert isinstance(env, dict), "environment is written as a mapping"
    return {key: str(value) for key, value in env.items()}


def env_file_values(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def redis_options(command: list[str]) -> dict[str, str]:
    assert command[0] == "redis-server"
    args = command[1:]
    return {key[2:]: value for key, value in zip(args[::2], args[1::2], strict=True)}


def haproxy_lines() -> list[str]:
    lines = []
    for raw in HAPROXY.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def haproxy_section(header: str) -> list[str]:
    lines = haproxy_lines()
    start = lines.index(header) + 1
    section = []
    for line in lines[start:]:
        if line.split()[0] in {"global", "defaults", "resolvers", "frontend", "backend"}:
            break
        section.append(line)
    return section


def seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+)(ms|s|m|h)?", value)
    assert match, value
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 0.001}[match.group(2)]
    return int(match.group(1)) * scale


def test_the_promised_services_are_there() -> None:
    assert set(compose()["services"]) == set(SERVICES)


def test_redis_keeps_an_aof_fsynced_always_on_a_volume() -> None:
    redis = service("redis")
    options = redis_options(redis["command"])
    assert options["appendonly"] == "yes"
    assert options["appendfsync"] == "always"
    volume, _, mount = redis["volumes"][0].partition(":")
    assert mount == options["dir"]
    assert volume in compose()["volumes"]  # a named volume: it outlives the container


def test_two_api_replicas_run_the_api_role() -> None:
    api = service("api")
    assert api["deploy"]["replicas"] == 2
    assert api["command"] == ["api"]
    assert "ports" not in api  # clients reach the replicas through the balancer only


def test_workers_run_the_worker_role_on_the_queue_redis() -> None:
    worker = service("worker")
    assert worker["command"] == ["worker"]
    env = environment("worker")
    assert urlparse(env["RQ_REDIS_URL"]).hostname == "redis"
    assert int(env["TIGRIS_RQ_WORKERS"]) >= 1


@pytest.mark.parametrize("name", TIGRIS_ROLES)
def test_the_roles_use_the_image_and_redis(name: str) -> None:
    tigris = service(name)
    assert tigris["build"]["dockerfile"] == "deploy/Dockerfile"
    assert (COMPOSE.parent / tigris["build"]["context"] / "deploy" / "Dockerfile").is_file()
    assert service_command_valid(tigris["command"])
    url = urlparse(environment(name)["REDIS_URL"])
    assert (url.scheme, url.hostname) == ("redis", "redis")
    assert tigris["depends_on"]["redis"]["condition"] == "service_healthy"
    assert tigris["read_only"] is True and tigris["cap_drop"] == ["ALL"]


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_has_a_healthcheck_and_a_restart_policy(name: str) -> None:
    definition = service(name)
    assert definition["restart"] in {"always", "unless-stopped"}
    test = definition["healthcheck"]["test"]
    assert test[0] == "CMD" and len(test) > 1
    assert not definition["healthcheck"].get("disable", False)


def test_the_roles_check_their_own_health() -> None:
    for role in TIGRIS_ROLES:
        assert service(role)["healthcheck"]["test"] == [
            "CMD",
            "python",
            "/app/healthcheck.py",
            role,
        ]
    assert service("redis")["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_the_admin_token_is_read_from_an_uncommitted_env_file() -> None:
    for name in SERVICES:
        assert "TIGRIS_ADMIN_TOKEN" not in environment(name)
    assert "TIGRIS_ADMIN_TOKEN" not in yaml.safe_dump(compose())  # comments aside
    assert service("api")["env_file"] == ["tigris.env"]
    assert "env_file" not in service("worker")  # the workers need no admin rights
    # The file is git-ignored; its example declares the token without a usable value.
    assert "tigris.env" in (DEPLOY / ".gitignore").read_text(encoding="utf-8").split()
    example = env_file_values(DEPLOY / "tigris.env.example")
    assert example == {"TIGRIS_ADMIN_TOKEN": ""}


def test_the_api_is_behind_the_balancer_on_the_port_it_serves() -> None:
    lb = service("lb")
    assert lb["depends_on"]["api"]["condition"] == "service_healthy"
    config_mount = f"./{HAPROXY.name}:/usr/local/etc/haproxy/haproxy.cfg:ro"
    assert config_mount in lb["volumes"]
    (published,) = lb["ports"]
    bind = next(line for line in haproxy_section("frontend http") if line.startswith("bind"))
    assert published.split(":")[-1] == bind.rsplit(":", 1)[-1]
    # The replicas listen on the image's TIGRIS_PORT, which the balancer asks.
    port = environment("api").get("TIGRIS_PORT") or image_env()["TIGRIS_PORT"]
    (template,) = [line for line in haproxy_section("backend api") if "server-template" in line]
    _, _, count, address = template.split()[:4]
    assert address == f"api:{port}"
    assert int(count) >= service("api")["deploy"]["replicas"]


def test_the_balancer_sends_traffic_to_ready_replicas_and_never_resends_a_command() -> None:
    backend = haproxy_section("backend api")
    assert "option httpchk GET /readyz" in backend
    assert "http-check expect status 200" in backend
    defaults = next(line for line in backend if line.startswith("default-server"))
    assert " check" in f" {defaults}" and "resolvers docker" in defaults
    # A retry after the request was sent could apply a command twice.
    retry: list[Any] = [line.split()[1:] for line in backend if line.startswith("retry-on")]
    assert retry == [["conn-failure"]]


def test_the_balancer_may_open_the_connections_it_accepts() -> None:
    (maxconn,) = [int(line.split()[1]) for line in haproxy_section("global") if "maxconn" in line]
    # HAProxy refuses to start when it cannot have two descriptors per connection.
    assert service("lb")["ulimits"]["nofile"] > 2 * maxconn


def test_idle_event_streams_outlive_the_balancer_timeouts() -> None:
    defaults = {
        " ".join(line.split()[:2]): line.split()[2]
        for line in haproxy_section("defaults")
        if line.startswith("timeout")
    }
    for side in ("timeout client", "timeout server"):
        assert seconds(defaults[side]) > MAX_HEARTBEAT_S


def test_the_replicas_share_the_per_client_stream_limit_of_one_address() -> None:
    # Behind the balancer every client has the balancer's address (docs/deploy.md: raise the limit).
    assert int(environment("api")["TIGRIS_STREAMS_PER_CLIENT"]) >= 1000


def test_the_api_gets_time_for_a_graceful_stop() -> None:
    grace = service("api")["stop_grace_period"]
    graceful = gunicorn_options({})["graceful_timeout"]
    assert grace.endswith("s") and int(grace[:-1]) > graceful
