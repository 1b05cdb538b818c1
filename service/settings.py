"""Every setting of the service, in one place: the ``pydantic-settings`` models that read
them (``MODELS``), and ``problems``, which checks all of them at once (``python -m service``
does before it starts anything). The table of all settings is ``docs/configuration.md``,
written from these models by ``python -m service.settings_doc``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.api.limits import RateLimitSettings
from service.api.metrics import MetricsSettings
from service.api.server import ServerSettings
from service.api.settings import ApiSettings
from service.config import ArchiveSettings, EnvSettings, LogSettings, SettingsError, StoreSettings
from service.jobs.settings import JobSettings

# In the order of the configuration table.
MODELS: tuple[type[EnvSettings], ...] = (
    StoreSettings,
    ArchiveSettings,
    ApiSettings,
    RateLimitSettings,
    ServerSettings,
    LogSettings,
    MetricsSettings,
    JobSettings,
)


def problems(
    env: Mapping[str, Any] | None = None,
    values: Mapping[type[EnvSettings], Mapping[str, Any]] | None = None,
) -> list[str]:
    """One line per bad setting of ``env`` (default: the environment), each starting with
    the variable's name; empty when every model accepts its values. ``values``: a model's
    values given otherwise (by field name, e.g. from the command line), taking precedence."""
    found: list[str] = []
    for model in MODELS:
        try:
            model.from_env(env, **(values or {}).get(model, {}))
        except SettingsError as exc:
            found.extend(line for line in exc.problems if line not in found)
    return found
