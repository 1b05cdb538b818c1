"""Response compression (flask-compress): gzip, Brotli, zstd or deflate, as the request's
``Accept-Encoding`` allows, for JSON, problem documents, the OpenAPI document and the docs
page, from 500 bytes up. A streamed response (the SSE event stream) is never compressed:
an event must reach its client when it is written, not when a compressor's block fills.

flask-compress appends the coding to a strong ETag (``"3-seat0:gzip"``): the compressed bytes
are another representation, so they get another validator (RFC 9110 8.8.3). ``If-Match``
takes any of these forms and the service answers ``If-None-Match`` itself, for the plain and
every coded ETag of the viewer's representation (``service.api.http``).
"""

from __future__ import annotations

from flask import Flask, Response, request
from flask_compress import Compress

MIMETYPES = [
    "application/json",
    "application/problem+json",
    "application/yaml",
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
]


def install(app: Flask) -> None:
    app.config.update(
        COMPRESS_REGISTER=False,  # our hook below calls it
        COMPRESS_MIMETYPES=MIMETYPES,
        COMPRESS_STREAMS=False,
        COMPRESS_EVALUATE_CONDITIONAL_REQUEST=False,
        COMPRESS_MIN_SIZE=500,
    )
    compress = Compress(app)

    @app.after_request
    def _compress(response: Response) -> Response:
        if "HTTP_ACCEPT_ENCODING" not in request.environ:
            # Nothing to choose from: flask-compress would only add its Vary header.
            response.vary.add("Accept-Encoding")
            return response
        return compress.after_request(response)
