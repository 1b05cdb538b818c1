"""The API's side of background jobs: after a request changed a game, enqueue what it now
needs (``service.jobs.triggers``); without a queue Redis (a cluster ``REDIS_URL`` and no
``RQ_REDIS_URL``) nothing is enqueued."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

from service.application.repository import LoadedGame
from service.jobs.settings import JobSettings
from service.jobs.triggers import JobTriggers

EXTENSION = "tigris.jobs"


def install(app: Flask, config: Mapping[str, Any]) -> None:
    env = dict(os.environ)
    for key in ("REDIS_URL", "RQ_REDIS_URL", "TIGRIS_RQ_QUEUE"):
        if config.get(key):
            env[key] = str(config[key])
    settings = JobSettings.from_env(env)
    app.extensions[EXTENSION] = JobTriggers(settings) if settings.configured else None


def after_change(game: LoadedGame) -> None:
    triggers: JobTriggers | None = current_app.extensions.get(EXTENSION)
    if triggers is not None:
        triggers.after_change(game)
