"""The web client: static files (plain ES modules, no build step) served at ``/play/``.

``/play/`` is the lobby and ``/play/?game=<id>`` a game's page; both are ``index.html``,
whose module (``app.js``) talks to the API of the same server. Nothing here reads a game:
the page uses the public endpoints like any other client, with the seat token it keeps in
the browser's ``localStorage`` (never in a URL).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).resolve().parent / "static"
PREFIX = "/play"

blueprint = Blueprint("web", __name__)


@blueprint.get(PREFIX + "/")
def index() -> Response:
    response = send_from_directory(STATIC, "index.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@blueprint.get(PREFIX + "/<path:name>")
def asset(name: str) -> Response:
    """A file of the client (404 for anything else); revalidated on each load."""
    response = send_from_directory(STATIC, name, max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response
