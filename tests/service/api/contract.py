"""The contract: every response the app sends in the tests is checked against openapi.yaml
(the operation exists, the status code is documented, headers, content type and body
match the documented schema). Used by the test client of every API test."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import schemathesis
from flask.testing import FlaskClient
from schemathesis.core.transport import Response as SchemathesisResponse
from werkzeug.test import TestResponse

SPEC_PATH = Path(__file__).resolve().parents[3] / "openapi.yaml"
UNDOCUMENTED_PREFIXES = ("/docs",)  # the Swagger UI page and its assets


@cache
def spec() -> Any:
    return schemathesis.openapi.from_path(str(SPEC_PATH))


def check_response(
    method: str, path: str, response: TestResponse, schema: Any | None = None
) -> None:
    """Check ``response`` against ``schema`` (a loaded spec; default: ``openapi.yaml``)."""
    if path.startswith(UNDOCUMENTED_PREFIXES) or method in {"HEAD", "OPTIONS"}:
        return
    if schema is None:
        schema = spec()
    operation = schema.find_operation_by_path(method, path)
    if operation is None:
        # An undocumented route must not exist: only 404 (no such path) or 405 (no such method).
        assert response.status_code in {404, 405}, f"{method} {path} is not in openapi.yaml"
        return
    documented = operation.responses.find_by_status_code(response.status_code)
    assert documented is not None, (
        f"{method} {path} answered {response.status_code}, undocumented in openapi.yaml"
    )
    schema.validate_response(operation, SchemathesisResponse.from_any(response))


class ContractClient(FlaskClient):
    """A Flask test client that checks every response against the contract (``contract``:
    a loaded spec; default: ``openapi.yaml``)."""

    contract: Any = None

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        request = response.request
        if not response.is_streamed or response.mimetype != "text/event-stream":
            check_response(request.method, request.path, response, self.contract)
        return response
