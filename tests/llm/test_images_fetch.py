"""URL results: the hostile-URL-safe fetcher, widened only for backends that allow it."""

from __future__ import annotations

import pytest

from judge.errors import InputError
from judge.io.remote import check_url


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/a.png", "https://127.0.0.1:9/a.png",
                                 "https://10.1.2.3/a.png"])  # fmt: skip
def test_private_or_plain_http_urls_are_refused_by_default(url: str) -> None:
    with pytest.raises(InputError):
        check_url(url, "data[0]")


def test_allow_private_accepts_them_and_pins_the_checked_address() -> None:
    assert check_url("http://127.0.0.1:9/a.png", "data[0]", allow_private=True) == "127.0.0.1"
    assert check_url("https://10.1.2.3/a.png", "data[0]", allow_private=True) == "10.1.2.3"


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/a.png", "file:///etc/passwd", "http:///a"])
def test_other_schemes_stay_refused_even_when_private_is_allowed(url: str) -> None:
    with pytest.raises(InputError):
        check_url(url, "data[0]", allow_private=True)
