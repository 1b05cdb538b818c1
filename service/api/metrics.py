"""``GET /metrics``: the service's metrics in the Prometheus text format (``prometheus-client``).

Under gunicorn every worker is a process of its own, so the metrics run in the client's
multiprocess mode: each process writes its values to memory-mapped files in the directory
``PROMETHEUS_MULTIPROC_DIR`` and a scrape, whichever worker answers it, adds them up
(``MultiProcessCollector``). ``python -m service`` sets that directory up before gunicorn
forks (``service.api.server.prepare_metrics_dir``: the given one emptied at start, else a
fresh temporary one removed at exit) and marks each worker that exits as dead (its live
gauges drop out). Without the variable (the Flask test client, a single process) each app
counts in a registry of its own.

Metrics (labels in brackets):

- ``tigris_commands_total`` [kind, type, outcome]: commands handled (outcomes: see
  ``service.application.observer``)
- ``tigris_command_duration_seconds`` histogram [kind, outcome]: time to handle a command
  in the application layer
- ``tigris_command_paths_total`` [path]: how commands found their game: ``cached``,
  ``catch_up`` (a stale copy read only the events it lacked), ``checked`` (the cold path)
- ``tigris_append_conflicts_total`` [kind]: appends refused because the game had moved on
- ``tigris_idempotent_replays_total`` [kind]: requests answered from an idempotency record
- ``tigris_game_loads_total`` [source]: states built from a snapshot (``snapshot``, a hit),
  from the first event (``events``, a miss), or a cached copy caught up (``catch_up``)
- ``tigris_event_streams_open`` gauge: open event streams of the live worker processes
- ``tigris_event_streams_dropped_total``: streams closed for falling too far behind their
  game (``TIGRIS_STREAM_BUFFER``, ``service.api.fanout``)
- ``tigris_queue_jobs`` gauge [queue, state]: RQ jobs per queue and state (``queued``,
  ``started``, ``deferred``, ``scheduled``, ``failed``, ``finished``)

The queue gauges are read from RQ's registries at scrape time, on ``RQ_REDIS_URL`` (else a
single-server ``REDIS_URL``), for every queue RQ knows there; none when there are no queues
or that Redis does not answer (a scrape never fails for them).

``prometheus_client`` is imported only when an app is created (in a worker, after the fork):
the client picks its in-process or multiprocess storage when it is first imported, so it
must not be imported before ``PROMETHEUS_MULTIPROC_DIR`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Flask, Response, current_app

from service.api.declare import ok, operation
from service.config import EnvSettings, setting
from service.jobs.settings import JobSettings

if TYPE_CHECKING:
    from prometheus_client.core import Metric

EXTENSION = "tigris.metrics"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# Seconds: from a cached fast-path command (~1 ms) to a slow cold load.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
QUEUE_STATES = ("queued", "started", "deferred", "scheduled", "failed", "finished")

blueprint = Blueprint("metrics", __name__)


class MetricsSettings(EnvSettings):
    """Where the metrics of several server processes meet (read by prometheus_client too)."""

    prometheus_multiproc_dir: Path | None = setting(
        None,
        "prometheus_client's directory for the metrics of several processes; ``python -m "
        "service`` empties it at start (unset: it makes a temporary one).",
        validation_alias=MULTIPROC_ENV,
    )


def multiprocess() -> bool:
    return MetricsSettings.from_env().prometheus_multiproc_dir is not None


class PrometheusMetrics:
    """The service's metrics; also the application layer's ``Observer``."""

    def __init__(self, queue_redis_url: str | None) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, values

        if multiprocess() and not getattr(values.ValueClass, "_multiprocess", False):
            # prometheus_client was imported before the directory was set: switch now,
            # before the first metric is built (values are per process files from here on).
            values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.commands = Counter(
            "tigris_commands",
            "Commands handled, by game kind, command type and outcome.",
            ["kind", "type", "outcome"],
            registry=registry,
        )
        self.duration = Histogram(
            "tigris_command_duration_seconds",
            "Time to handle a command in the application layer (decide, append, remember).",
            ["kind", "outcome"],
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.paths = Counter(
            "tigris_command_paths",
            "How commands found their game: cached (current copy), catch_up (a copy behind "
            "read the events it lacked), checked (the cold path: info read, game loaded).",
            ["path"],
            registry=registry,
        )
        self.conflicts = Counter(
            "tigris_append_conflicts",
            "Appends refused because the game's stream had moved past the expected version.",
            ["kind"],
            registry=registry,
        )
        self.replays = Counter(
            "tigris_idempotent_replays",
            "Requests answered from their idempotency record (nothing appended).",
            ["kind"],
            registry=registry,
        )
        self.loads = Counter(
            "tigris_game_loads",
            "Game states built: from a snapshot (hit), from the first event (miss), or a "
            "cached copy brought up to date (catch_up).",
            ["source"],
            registry=registry,
        )
        self.streams = Gauge(
            "tigris_event_streams_open",
            "Open event streams (server-sent events) of the live server processes.",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.streams_dropped = Counter(
            "tigris_event_streams_dropped",
            "Event streams closed because their client read too slowly to keep up with "
            "the game (TIGRIS_STREAM_BUFFER events behind).",
            registry=registry,
        )
        self.archive_reads = Histogram(
            "tigris_archive_read_seconds",
            "Archived games read back by this process (a miss of its decoded-game cache): "
            "object fetched, its hash checked, decoded and refolded.",
            ["kind"],
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.queues = QueueCollector(queue_redis_url)
        if not multiprocess():
            registry.register(self.queues)
        # Labelled children by label values: ``labels()`` takes a lock and checks its
        # arguments on every call, several times per command otherwise.
        self._children: dict[tuple[Any, ...], Any] = {}
        self.tiers: TierCollector | None = None

    def _child(self, metric: Any, *values: str) -> Any:
        key = (id(metric), *values)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*values)
        return found

    # ------------------------------------------------------------ the Observer
    def command(self, kind: str, command_type: str, outcome: str, seconds: float) -> None:
        self._child(self.commands, kind, command_type, outcome).inc()
        self._child(self.duration, kind, outcome).observe(seconds)

    def command_path(self, path: str) -> None:
        self._child(self.paths, path).inc()

    def append_conflict(self, kind: str) -> None:
        self._child(self.conflicts, kind).inc()

    def idempotent_replay(self, kind: str) -> None:
        self._child(self.replays, kind).inc()

    def game_load(self, source: str) -> None:
        self._child(self.loads, source).inc()

    # ------------------------------------------------- the archive tier's observer
    def archived(self, kind: str, events: int, size: int, seconds: float) -> None:
        pass  # counted in Redis by every process (TierCollector reads them)

    def archive_read(self, kind: str, seconds: float) -> None:
        self._child(self.archive_reads, kind).observe(seconds)

    def archive_failed(self, reason: str) -> None:
        pass

    def watch_tiers(self, stats: Any, client: Any) -> None:
        """Report both tiers at scrape time: the archive's shared counters (``stats``, a
        ``RedisArchiveStats``) and the memory of the event store's Redis (``client``)."""
        self.tiers = TierCollector(stats, client)
        if not multiprocess():
            self.registry.register(self.tiers)

    # --------------------------------------------------------------- the rest
    def streams_open(self, count: int) -> None:
        self.streams.set(count)

    def stream_dropped(self) -> None:
        self.streams_dropped.inc()

    def exposition(self) -> bytes:
        """The text of a scrape: every process's values in multiprocess mode, else this
        app's; the queue gauges read now."""
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = self.registry
        if multiprocess():
            registry = CollectorRegistry(auto_describe=False)
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            registry.register(self.queues)
            if self.tiers is not None:
                registry.register(self.tiers)
        text: bytes = generate_latest(registry)
        return text


class TierCollector:
    """Both storage tiers, read at scrape time: the Redis memory in use (the hot tier) and
    the archive tier's counters since the start (games, events and bytes archived, failed
    attempts, archived games read back). Nothing if Redis does not answer."""

    def __init__(self, stats: Any, client: Any) -> None:
        self._stats = stats
        self._client = client

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        try:
            memory = int(self._client.info("memory")["used_memory"])
            counts = self._stats.read()
        except Exception:  # an unreachable Redis: no tier figures
            return
        yield GaugeMetricFamily(
            "tigris_redis_used_memory_bytes",
            "Memory used by the event store's Redis (the hot tier).",
            value=memory,
        )
        games = GaugeMetricFamily(
            "tigris_archive_games",
            "Games moved into the archive tier since the start, by kind.",
            labels=["kind"],
        )
        for name, value in sorted(counts.items()):
            if name.startswith("games:"):
                games.add_metric([name[6:]], value)
        yield games
        for name, text in (
            ("events", "Events of the games moved into the archive tier."),
            ("bytes", "Bytes of the archive objects written."),
            ("failures", "Archive objects that did not read back as stored (none left Redis)."),
            ("reads", "Archived games read back from the archive storage (all processes)."),
        ):
            yield GaugeMetricFamily(f"tigris_archive_{name}", text, value=counts.get(name, 0))


class QueueCollector:
    """RQ's queue depth and registries, read at scrape time; nothing if RQ has no queues
    there or that Redis does not answer."""

    def __init__(self, url: str | None) -> None:
        self._url = url
        self._client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            import redis

            assert self._url is not None
            self._client = redis.Redis.from_url(
                self._url, socket_timeout=1.0, socket_connect_timeout=1.0
            )
        return self._client

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(
            "tigris_queue_jobs",
            "Background jobs per RQ queue and state (queued: waiting in the queue).",
            labels=["queue", "state"],
        )
        if self._url is not None:
            try:
                for name, counts in self._read():
                    for state, count in zip(QUEUE_STATES, counts, strict=True):
                        family.add_metric([name, state], count)
            except Exception:  # an unreachable or odd queue Redis: no queue figures
                family = GaugeMetricFamily(family.name, family.documentation, labels=[])
        yield family

    def _read(self) -> list[tuple[str, tuple[int, ...]]]:
        from rq import Queue

        found = []
        for queue in Queue.all(connection=self._redis()):
            counts = (
                queue.count,
                queue.started_job_registry.count,
                queue.deferred_job_registry.count,
                queue.scheduled_job_registry.count,
                queue.failed_job_registry.count,
                queue.finished_job_registry.count,
            )
            found.append((queue.name, counts))
        return sorted(found)


def queue_redis_url(config: Mapping[str, Any] | None = None) -> str | None:
    """Where RQ's queues are: ``RQ_REDIS_URL``, else ``REDIS_URL`` unless that is a
    cluster (RQ has no cluster mode); None: no queues to report. ``config``: entries
    taking precedence over the environment (``create_app``'s)."""
    return JobSettings.from_config(config or {}).rq_redis_url


def install(app: Flask, metrics: PrometheusMetrics) -> None:
    """``metrics`` as ``app``'s (its blueprint is in ``service.api.routes.BLUEPRINTS``)."""
    app.extensions[EXTENSION] = metrics


def metrics_of(app: Flask) -> PrometheusMetrics | None:
    found = app.extensions.get(EXTENSION)
    return found if isinstance(found, PrometheusMetrics) else None


@blueprint.get("/metrics")
@operation(
    "metrics",
    tags=["operations"],
    summary=("Metrics in the Prometheus text format (all server processes added up)."),
    description=(
        "Commands by game kind, type and outcome "
        "(`tigris_commands_total`) with their latency "
        "(`tigris_command_duration_seconds`), append conflicts, "
        "idempotent replays, game loads from a snapshot or from the "
        "start, open event streams, and RQ queue depth and failed jobs "
        "per queue (`tigris_queue_jobs`). For a scraper on the private "
        "network: put it behind the proxy's access rules when exposed."
    ),
    security=[],
    responses={
        200: ok(
            "The current values.",
            {"type": "string", "description": "Prometheus exposition format 0.0.4."},
            media="text/plain",
        )
    },
)
def scrape() -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST

    metrics = metrics_of(current_app)
    assert metrics is not None
    return Response(metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST})
