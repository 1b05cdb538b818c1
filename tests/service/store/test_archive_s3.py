"""The archive tier on S3-compatible object storage: moto's S3 server on loopback (real
HTTP, the S3 protocol), started and stopped by the tests."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from service.application.game_service import ArchivePolicy, GameService
from service.application.mapper import CommandMeta
from service.store.archive_objects import ArchiveObjectMissing, ArchiveUnavailable, S3ArchiveObjects
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from tests.service.archive_games import play

KEYS = {"access_key_id": "testing", "secret_access_key": "testing", "region": "us-east-1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class S3Server:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    def start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        self.server.stop()


@pytest.fixture
def s3() -> Iterator[S3Server]:
    server = S3Server()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def bucket(server: S3Server) -> S3ArchiveObjects:
    name = f"archive-{uuid.uuid4().hex[:12]}"
    boto3.client(
        "s3",
        endpoint_url=server.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    ).create_bucket(Bucket=name)
    return S3ArchiveObjects(name, prefix="tigris/", endpoint_url=server.url, timeout_s=2.0, **KEYS)


def test_objects_go_to_the_bucket_and_come_back(s3: S3Server) -> None:
    objects = bucket(s3)
    objects.put("games/g1/abc.json.zst", b"\x28\xb5\x2f\xfd blob")
    assert objects.get("games/g1/abc.json.zst") == b"\x28\xb5\x2f\xfd blob"
    assert objects.keys() == ["games/g1/abc.json.zst"]
    with pytest.raises(ArchiveObjectMissing):
        objects.get("games/g1/none.json.zst")


def test_games_archived_in_s3_read_the_same_and_wait_while_it_is_down(
    s3: S3Server, tmp_path: Path
) -> None:
    objects = bucket(s3)
    store = InMemoryEventStore()

    def service() -> GameService:  # a new process: nothing decoded in memory yet
        return GameService(
            store,
            InMemorySnapshotStore(),
            archive=objects,
            archive_policy=ArchivePolicy(retention_s=0),
        )

    games = service()
    archived = play(games, "cards", 2, 5, commands=20)
    waiting = play(games, "board", 2, 6, commands=10)
    state = games.repository.get(archived.game_id).state
    assert games.archiver is not None
    assert games.archiver.archive(archived.game_id, force=True).outcome == "archived"
    assert service().repository.get(archived.game_id).state == state
    s3.stop()
    down = service()
    with pytest.raises(ArchiveUnavailable):  # a read of an archived game: 503
        down.repository.get(archived.game_id)
    assert down.archiver is not None
    with pytest.raises(ArchiveUnavailable):  # archiving waits
        down.archiver.archive(waiting.game_id, force=True)
    # The hot path serves on: the game that was to be archived reads and plays.
    game = down.repository.get(waiting.game_id)
    seat = sorted(game.rules.awaited(game.state))[0]
    command = next(iter(game.rules.legal_commands(game.state, seat)))
    meta = CommandMeta(command_id=uuid.uuid4().hex, actor=f"seat:{seat}", seat=seat)
    assert down.commands.handle(waiting.game_id, command, meta=meta).game.version > game.version
    s3.server = ThreadedMotoServer(ip_address="127.0.0.1", port=s3.port, verbose=False)
    s3.start()  # back (empty: moto keeps nothing), the next sweep's job gets through
    boto3.client(
        "s3",
        endpoint_url=s3.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    ).create_bucket(Bucket=objects.bucket)
    assert down.archiver.archive(waiting.game_id, force=True).outcome == "archived"
