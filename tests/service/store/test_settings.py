"""Settings from the environment and the embedded Redis binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import SettingsError, StoreSettings
from service.embedded_redis import EmbeddedRedis, bundled_server_binary, server_version
from service.store.connect import connect


def test_defaults() -> None:
    settings = StoreSettings.from_env({})
    assert settings.redis_url is None
    assert settings.redis_dir == Path("var/redis")
    assert (settings.appendfsync, settings.snapshot_every) == ("always", 50)
    assert settings.idempotency_ttl_s >= 24 * 3600


def test_values_from_the_environment() -> None:
    settings = StoreSettings.from_env(
        {
            "REDIS_URL": "redis://example:6380/2",
            "TIGRIS_REDIS_DIR": "/data/redis",
            "TIGRIS_REDIS_APPENDFSYNC": "everysec",
            "TIGRIS_SNAPSHOT_EVERY": "10",
            "TIGRIS_IDEMPOTENCY_TTL_S": "90000",
            "TIGRIS_KEY_PREFIX": "t2",
        }
    )
    assert settings == StoreSettings.from_env(
        {},
        redis_url="redis://example:6380/2",
        redis_dir=Path("/data/redis"),
        appendfsync="everysec",
        snapshot_every=10,
        idempotency_ttl_s=90000,
        key_prefix="t2",
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TIGRIS_REDIS_APPENDFSYNC", "sometimes"),
        ("TIGRIS_SNAPSHOT_EVERY", "0"),
        ("TIGRIS_SNAPSHOT_EVERY", "ten"),
        ("TIGRIS_IDEMPOTENCY_TTL_S", "3600"),  # less than the promised 24 h
        ("TIGRIS_KEY_PREFIX", "a:{b}"),
        ("TIGRIS_REDIS_WAIT_REPLICAS", "-1"),
        ("TIGRIS_REDIS_WAIT_TIMEOUT_MS", "0"),
    ],
)
def test_bad_values_are_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        StoreSettings.from_env({name: value})


def test_the_bundled_binary_is_redis_6_2_or_later() -> None:
    version = server_version(bundled_server_binary())
    assert version is not None
    assert version >= (6, 2, 0)


def test_connect_starts_an_embedded_redis_with_aof(tmp_path: Path) -> None:
    settings = StoreSettings(redis_dir=tmp_path / "redis", appendfsync="always")
    connection = connect(settings)
    try:
        assert connection.server is not None
        config = connection.client.config_get("append*")
        assert (config["appendonly"], config["appendfsync"]) == ("yes", "always")
        assert (
            Path(str(connection.client.config_get("dir")["dir"])) == (tmp_path / "redis").resolve()
        )
        assert connection.url.startswith("unix://")
    finally:
        connection.close()
    assert not (tmp_path / "redis" / "redis.url").exists()


def test_a_long_data_dir_falls_back_to_a_loopback_port(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with EmbeddedRedis(deep) as server:
        assert server.url.startswith("redis://127.0.0.1:")
        with server.client() as client:
            assert client.ping()
