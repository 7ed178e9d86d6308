"""The freshness line in headless Chromium: a page left open follows the watcher's state by itself."""

import pytest
from test_served import Server, screenshot
from watching import Watching


@pytest.mark.browser
def test_an_open_page_says_not_watching_once_the_watcher_stops(store, tmp_path, page):
    store.memory("a-memory")
    with Watching(store.root, store.db_path) as watcher:
        server = Server(store.db_path, tmp_path / "serve.log")
        try:
            page.clock.install()  # static/freshness.js's 5 s poll is run when wanted below, not waited for
            page.goto(server.url + "/seamless/memories")
            line = page.locator("p.freshness")
            assert line.locator("strong").inner_text() == "Watching:"
            assert "freshness-watching" in line.get_attribute("class")
            screenshot(page, "freshness-watching")

            assert watcher.stop() == 0  # the page is not reloaded: static/freshness.js fetches the line again
            page.clock.run_for(5_000)
            page.locator("p.freshness-not-watching").wait_for(timeout=15_000)
            assert page.locator("p.freshness strong").inner_text() == "Not watching:"
            assert "the last watcher stopped at" in page.locator("p.freshness").inner_text()
            screenshot(page, "freshness-not-watching")
        finally:
            server.stop()
