"""The session's fake provider is shared by every test on a worker: a test that slows it
down through the ``provider`` fixture leaves it with the session's timing again, so a later
test that uses ``provider_session`` directly (a module's live service, say) is not slowed
down. (A 30 s latency left behind made every call of such a test hit its 10 s timeout.)"""

from __future__ import annotations

from tests.conftest import SESSION_TIMING, pristine
from tests.fakes.provider import FakeProvider


def timing(fp: FakeProvider) -> dict[str, float]:
    return {name: getattr(fp, name) for name in SESSION_TIMING}


def test_a_test_slows_the_session_provider_down(provider: FakeProvider) -> None:
    assert timing(provider) == SESSION_TIMING
    provider.latency, provider.jitter, provider.hang_s = 30.0, 1.0, 60.0  # left as it is


def test_the_next_test_finds_it_at_the_session_timing(provider_session: FakeProvider) -> None:
    # runs after the test above on the same worker (file order); the fixture's teardown undid it
    assert timing(provider_session) == SESSION_TIMING


def test_pristine_also_forgets_faults_and_calls(provider_session: FakeProvider) -> None:
    provider_session.latency = 5.0
    provider_session.fail_next(["500"])
    pristine(provider_session)
    assert timing(provider_session) == SESSION_TIMING and provider_session.calls == 0
    assert provider_session.fault_counts == {}
