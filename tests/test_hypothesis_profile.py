"""Property tests cannot fail at random in CI (issue 21, point 15): tests/conftest.py loads the
derandomized Hypothesis profile ``ci`` unless ``HYPOTHESIS_PROFILE`` names another one
(``dev`` searches with random examples locally)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

from tests.board import test_bad_input


def test_the_loaded_profile_is_derandomized_unless_hypothesis_profile_says_otherwise() -> None:
    # given the profile the environment asks for (none: ci)
    asked = os.environ.get("HYPOTHESIS_PROFILE", "ci")

    # when a property test runs, it runs under the loaded default settings
    loaded = settings()  # the current default settings (the loaded profile)

    # then ci is derandomized, without deadline or database, with a fixed number of examples
    assert loaded.derandomize is settings.get_profile(asked).derandomize
    if asked == "ci":
        assert loaded.derandomize is True
        assert loaded.deadline is None
        assert loaded.database is None
        assert loaded.max_examples == 100
        assert HealthCheck.too_slow in loaded.suppress_health_check
    if asked == "dev":
        assert loaded.derandomize is False


def test_a_test_with_its_own_settings_inherits_the_profile() -> None:
    """``@settings(max_examples=400, deadline=None)`` on the broken-positions search keeps
    its example count but is derandomized with the ci profile too."""
    own: settings = getattr(  # noqa: B009 (Hypothesis's attribute, untyped)
        test_bad_input.test_broken_positions_raise_format_errors,
        "_hypothesis_internal_use_settings",
    )
    assert own.max_examples == 400
    assert own.derandomize is settings().derandomize
    assert own.database == settings().database
