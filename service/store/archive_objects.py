"""Where the archive tier keeps its objects: a port (``ArchiveObjects``) and two adapters,
a local directory (the embedded default, under the run command's data directory) and
S3-compatible object storage through ``boto3``.

Objects are immutable and content-addressed: ``games/<game id>/<sha256>.json.zst``
(``object_key``). A put of a name that exists already writes the same bytes again, so a
retried archiving job is harmless. Any failure to reach the storage is
``ArchiveUnavailable``: archiving waits and retries; a read of an archived game answers 503.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Protocol

from service.errors import StoreUnavailable


class ArchiveUnavailable(StoreUnavailable):
    """The archive storage cannot be reached or did not answer."""


class ArchiveObjectMissing(LookupError):
    """No object under this name."""


class ArchiveObserver(Protocol):
    """What the archive tier tells the metrics (``service.api.metrics``, and the shared
    counters ``service.store.redis_archive_stats``)."""

    def archived(self, kind: str, events: int, size: int, seconds: float) -> None: ...

    def archive_read(self, kind: str, seconds: float) -> None: ...

    def archive_failed(self, reason: str) -> None: ...


class NullArchiveObserver:
    def archived(self, kind: str, events: int, size: int, seconds: float) -> None:
        pass

    def archive_read(self, kind: str, seconds: float) -> None:
        pass

    def archive_failed(self, reason: str) -> None:
        pass


class ObserverPair:
    """Two observers told the same."""

    def __init__(self, first: ArchiveObserver, second: ArchiveObserver) -> None:
        self.first, self.second = first, second

    def archived(self, kind: str, events: int, size: int, seconds: float) -> None:
        self.first.archived(kind, events, size, seconds)
        self.second.archived(kind, events, size, seconds)

    def archive_read(self, kind: str, seconds: float) -> None:
        self.first.archive_read(kind, seconds)
        self.second.archive_read(kind, seconds)

    def archive_failed(self, reason: str) -> None:
        self.first.archive_failed(reason)
        self.second.archive_failed(reason)


def object_key(game_id: str, sha256: str) -> str:
    return f"games/{game_id}/{sha256}.json.zst"


class ArchiveObjects(ABC):
    """Immutable blobs by name."""

    @abstractmethod
    def put(self, key: str, blob: bytes) -> None:
        """Store ``blob`` under ``key`` durably (on return it survives a crash)."""

    @abstractmethod
    def get(self, key: str) -> bytes:
        """The blob under ``key``; ArchiveObjectMissing if there is none."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove ``key`` (nothing if it is not there)."""

    @abstractmethod
    def keys(self, prefix: str = "games/") -> list[str]:
        """The names under ``prefix``, sorted."""

    def describe(self) -> str:
        return type(self).__name__


class LocalArchiveObjects(ArchiveObjects):
    """Files under a directory: written to a temporary file, fsynced, renamed into place
    and the directory fsynced, so that a crash leaves either the whole object or none."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise ValueError(f"archive key outside the archive: {key!r}")
        return path

    def put(self, key: str, blob: bytes) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(blob)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            directory = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except OSError as exc:
            raise ArchiveUnavailable(f"archive directory {self.root}: {exc}") from exc

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise ArchiveObjectMissing(key) from None
        except OSError as exc:
            raise ArchiveUnavailable(f"archive directory {self.root}: {exc}") from exc

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def keys(self, prefix: str = "games/") -> list[str]:
        base = self.root / prefix
        if not base.exists():
            return []
        return sorted(
            str(p.relative_to(self.root))
            for p in base.rglob("*")
            if p.is_file() and not p.name.startswith(".tmp-")
        )

    def describe(self) -> str:
        return f"local directory {self.root}"


class S3ArchiveObjects(ArchiveObjects):
    """Objects in an S3 bucket (AWS, or any S3-compatible store: MinIO, Ceph, Garage...),
    through boto3. ``prefix`` is put before every key."""

    def __init__(
        self,
        bucket: str,
        *,
        prefix: str = "",
        endpoint_url: str | None = None,
        region: str | None = None,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix
        self.endpoint_url = endpoint_url
        config = Config(
            connect_timeout=timeout_s,
            read_timeout=timeout_s,
            retries={"max_attempts": 2, "mode": "standard"},
        )
        self._client: Any = boto3.client(
            "s3",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=access_key_id,
            aws_secret_access_key=secret_access_key,
            config=config,
        )

    @contextlib.contextmanager
    def _guard(self) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            yield
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in ("NoSuchKey", "404", "NotFound"):
                raise ArchiveObjectMissing(str(exc)) from None
            raise ArchiveUnavailable(f"S3 bucket {self.bucket}: {exc}") from exc
        except BotoCoreError as exc:
            raise ArchiveUnavailable(f"S3 bucket {self.bucket}: {exc}") from exc

    def put(self, key: str, blob: bytes) -> None:
        with self._guard():
            self._client.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=blob)

    def get(self, key: str) -> bytes:
        with self._guard():
            answer = self._client.get_object(Bucket=self.bucket, Key=self.prefix + key)
            body: bytes = answer["Body"].read()
            return body

    def delete(self, key: str) -> None:
        with self._guard():
            self._client.delete_object(Bucket=self.bucket, Key=self.prefix + key)

    def keys(self, prefix: str = "games/") -> list[str]:
        found: list[str] = []
        with self._guard():
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.prefix + prefix
            )
            for page in pages:
                found += [item["Key"][len(self.prefix) :] for item in page.get("Contents", [])]
        return sorted(found)

    def describe(self) -> str:
        where = self.endpoint_url or "AWS"
        return f"S3 bucket {self.bucket} at {where}"
