"""Operations endpoints: liveness, readiness, the OpenAPI document and its docs page."""

from __future__ import annotations

import html
import importlib
from pathlib import Path
from typing import Any

import yaml
from flask import Blueprint, Flask, Response, current_app

from service.api.context import services
from service.api.declare import ok, operation
from service.api.http import json_response
from service.api.problems import ApiProblem

blueprint = Blueprint("ops", __name__)
DOCS_PATH = "/docs"
SPEC_KEY = "TIGRIS_OPENAPI_PATH"


def default_spec_path() -> Path:
    """``openapi.yaml`` at the top of the repository (the package is installed editable)."""
    return Path(__file__).resolve().parents[2] / "openapi.yaml"


@blueprint.get("/healthz")
@operation(
    "healthz",
    tags=["operations"],
    summary="Liveness (the process answers).",
    security=[],
    responses={200: ok("Alive.", "Health")},
)
def healthz() -> Response:
    return json_response({"status": "ok"})


@blueprint.get("/readyz")
@operation(
    "readyz",
    tags=["operations"],
    summary="Readiness (Redis reachable).",
    security=[],
    responses={200: ok("Ready.", "Health")},
    problems=["Unavailable"],
)
def readyz() -> Response:
    try:
        ready = services().ready()
    except Exception:  # any failure to reach Redis means "not ready", never a 500
        ready = False
    if not ready:
        raise ApiProblem(503, "unavailable", "Service unavailable", "Redis is not reachable")
    return json_response({"status": "ready"})


@blueprint.get("/openapi.yaml")
@operation(
    "getSpec",
    tags=["operations"],
    summary="This document.",
    security=[],
    responses={
        200: ok(
            "The OpenAPI document.",
            {"description": "The OpenAPI document (YAML text; an object once parsed)."},
            media="application/yaml",
        )
    },
    problems=["RateLimited"],
)
def spec() -> Response:
    text: str = current_app.config[SPEC_KEY + "_TEXT"]
    return Response(text, mimetype="application/yaml")


def _render_docs(spec_doc: dict[str, Any]) -> str:
    """A self-contained page listing every operation (used when Swagger UI is missing)."""
    info = spec_doc.get("info", {})
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(str(info.get('title', 'API')))}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "code{background:#eee}h3{margin-bottom:0}</style></head><body>",
        f"<h1>{html.escape(str(info.get('title', 'API')))}</h1>",
        "<p><a href='/openapi.yaml'>openapi.yaml</a></p>",
        f"<pre>{html.escape(str(info.get('description', '')))}</pre>",
    ]
    for path, item in spec_doc.get("paths", {}).items():
        for method, declared_op in item.items():
            if method == "parameters":
                continue
            codes = ", ".join(str(code) for code in declared_op.get("responses", {}))
            parts.append(
                f"<h3><code>{method.upper()} {html.escape(path)}</code></h3>"
                f"<p>{html.escape(str(declared_op.get('summary', '')))}</p>"
                f"<p>{html.escape(str(declared_op.get('description', '')))}</p>"
                f"<p>Responses: {codes}</p>"
            )
    parts.append("</body></html>")
    return "".join(parts)


def install_docs(app: Flask, spec_doc: dict[str, Any]) -> None:
    """Swagger UI from the flask-swagger-ui package (assets served locally, no CDN);
    without that package, a plain HTML rendering of the spec."""
    try:
        swagger_ui = importlib.import_module("flask_swagger_ui")
    except ImportError:
        page = _render_docs(spec_doc)

        def docs() -> Response:
            return Response(page, mimetype="text/html")

        app.add_url_rule(DOCS_PATH + "/", "docs", docs)
        return
    app.register_blueprint(
        swagger_ui.get_swaggerui_blueprint(
            DOCS_PATH, "/openapi.yaml", config={"app_name": spec_doc["info"]["title"]}
        )
    )


def load_spec(path: Path) -> tuple[str, dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        raise ValueError(f"{path} is not an OpenAPI document")
    return text, doc
