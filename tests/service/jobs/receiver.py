"""A real webhook receiver on loopback: an HTTP server in a thread that records every POST
(headers, body, arrival time), verifies its signature with the ``standardwebhooks``
package once it knows the secret, and answers with the status (and headers) it is told to,
per path if told so; told to hold, it keeps each request waiting until released."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: str
    arrived: float  # time.time() on arrival
    payload: Any = None  # the verified JSON, or None
    error: str | None = None  # why verification failed


@dataclass
class Receiver:
    port: int
    secrets: dict[str, str] = field(default_factory=dict)  # path → secret
    status: int = 204
    statuses: dict[str, int] = field(default_factory=dict)  # path → status (else ``status``)
    headers: dict[str, str] = field(default_factory=dict)  # sent with every answer
    deliveries: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # While ``hold`` is set, a request is recorded, ``arrived`` is set, and the answer waits
    # for ``release`` (so a test can kill the sender mid-request).
    hold: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def of(self, path: str) -> list[Delivery]:
        with self.lock:
            return [d for d in self.deliveries if d.path == path]

    def record(self, path: str, headers: dict[str, str], body: str) -> None:
        delivery = Delivery(path, headers, body, time.time())
        secret = self.secrets.get(path)
        if secret is None:
            delivery.error = "no secret for this path"
        else:
            try:
                delivery.payload = Webhook(secret).verify(body, headers)
            except WebhookVerificationError as exc:
                delivery.error = f"bad signature: {exc}"
        with self.lock:
            self.deliveries.append(delivery)


def start_receiver() -> tuple[Receiver, ThreadingHTTPServer]:
    receiver = Receiver(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode()
            receiver.record(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            if receiver.hold.is_set():
                receiver.arrived.set()
                receiver.release.wait(120)
            try:
                self.send_response(receiver.statuses.get(self.path, receiver.status))
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:  # the sender is gone (killed while it waited)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver, server


def events_of(deliveries: list[Delivery]) -> list[dict[str, Any]]:
    """The events the verified deliveries carried, in the order they came."""
    found: list[dict[str, Any]] = []
    for delivery in deliveries:
        assert delivery.error is None, delivery.error
        found.extend(delivery.payload["data"]["events"])
    return found


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
