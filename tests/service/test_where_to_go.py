"""What ``python -m service`` prints on start: where to play, read the API docs and call the
API, where the data lives, and how to stop (``service.__main__.where_to_go``)."""

from __future__ import annotations

from pathlib import Path

from service.__main__ import where_to_go
from service.config import StoreSettings


def test_on_the_embedded_redis_it_names_the_urls_the_data_directory_and_how_to_stop() -> None:
    """Given the default bind and the embedded Redis, then the lines name /play/, /docs/ and
    the API on that address, the data directory as an absolute path, and Ctrl+C."""
    text = where_to_go("127.0.0.1:8000", StoreSettings(redis_dir=Path("var/redis")))

    assert "http://127.0.0.1:8000/play/" in text
    assert "http://127.0.0.1:8000/docs/" in text
    assert "http://127.0.0.1:8000/games" in text
    assert f"{Path('var/redis').resolve()} (embedded Redis)" in text
    assert "Ctrl+C" in text


def test_listening_on_every_interface_it_names_a_reachable_address() -> None:
    """Given TIGRIS_HOST=0.0.0.0 (as in the image), then the URLs use 127.0.0.1, which works
    on that machine, rather than 0.0.0.0."""
    text = where_to_go("0.0.0.0:9000", StoreSettings())

    assert "http://127.0.0.1:9000/play/" in text
    assert "0.0.0.0" not in text


def test_on_an_external_redis_it_names_the_redis_without_its_password() -> None:
    """Given REDIS_URL with a password, then the data line names that Redis, password masked."""
    text = where_to_go("127.0.0.1:8000", StoreSettings(redis_url="redis://u:secret@db:6379/0"))

    assert "Redis at redis://u:***@db:6379/0" in text
    assert "secret" not in text
