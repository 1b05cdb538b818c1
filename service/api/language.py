"""The language of a response's words, negotiated from ``Accept-Language``.

A view whose body carries words (event descriptions, a refused move's rule, an
explanation's rule sentences) calls :func:`language` before it answers, also before a
conditional read's 304: from then on the answer depends on the header, so it carries
``Content-Language`` and ``Vary: Accept-Language``, and its ETag names the language when
it is not English (``"3-seat0-de"``: one language's validator never matches another's
body, as one viewer's never matches another's; ``service.api.http.viewer_etag``).
Negotiation: ``service.i18n.negotiate`` (Babel over werkzeug's parsed header).
"""

from __future__ import annotations

from flask import Flask, Response, g, request

from service.i18n import DEFAULT_LANGUAGE, negotiate

_KEY = "tigris_language"
_PROBLEM_WORDS = "tigris_problem_words"
_PROBLEM_MEDIA_TYPE = "application/problem+json"  # service.api.problems


def language() -> str:
    """This request's language (``en``, ``de``, ``hu`` or ``it``); the response says so."""
    found: str | None = g.get(_KEY)
    if found is None:
        found = negotiate(request.accept_languages)
        setattr(g, _KEY, found)
    return found


def spoken() -> str | None:
    """The language of this response's words, if a view asked for one."""
    found: str | None = g.get(_KEY)
    return found


def etag_suffix() -> str:
    """What the ETag of this response appends for its language: nothing for English or a
    body without words (the ETags clients already hold stay valid), else ``-<language>``."""
    found = spoken()
    return "" if found is None or found == DEFAULT_LANGUAGE else f"-{found}"


def problem_words() -> str:
    """The language of a problem's ``description``: the problem carries words."""
    setattr(g, _PROBLEM_WORDS, True)
    return language()


def install(app: Flask) -> None:
    @app.after_request
    def _content_language(response: Response) -> Response:
        found = spoken()
        if found is None:
            return response
        # A problem answered after a view chose a language has words only if it says so.
        if response.mimetype == _PROBLEM_MEDIA_TYPE and not g.get(_PROBLEM_WORDS):
            return response
        response.headers["Content-Language"] = found
        response.vary.add("Accept-Language")
        return response
