"""Hardening (issue 18), in headless Chromium: viewing a body requests nothing of ours.

Its own module: Playwright's browser (conftest.browser) runs an event loop that the async tests of
test_hardening.py must not share.
"""

import pytest
from conftest import Store
from test_hardening import FOREIGN_IMAGE, body_store
from test_served import Server


@pytest.mark.browser
def test_viewing_a_body_requests_nothing_of_ours(tmp_path, page):
    store = Store(tmp_path / "store")
    ids = body_store(store)
    server = Server(store.db_path, tmp_path / "serve.log")
    try:
        base, requested = server.url, []
        page.on("request", lambda request: requested.append(request.url))
        page.route(FOREIGN_IMAGE, lambda route: route.fulfill(status=204))
        page.goto(f"{base}/seamless/memories/{ids['own']}")
        assert "The end." in page.locator(".memory-body").inner_text()
        page.goto(f"{base}/seamless/memories?name=own-sources")
        page.wait_for_timeout(300)
    finally:
        server.stop()
    assert not [url for url in requested if "sql=" in url], requested
    assert FOREIGN_IMAGE in requested
