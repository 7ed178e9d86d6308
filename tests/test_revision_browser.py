"""A memory's revisions in headless Chromium, against a real `seamless serve` over a store in git: what an in-place
update replaced is on the page, struck through, and a hostile old text runs nothing. Screenshot:
test-artifacts/memory-revisions.png."""

import pytest
from gitstores import init, isolate, write
from test_served import Server, screenshot


@pytest.mark.browser
def test_the_memory_page_shows_each_revision_against_the_one_before(store, tmp_path, monkeypatch, page):
    isolate(monkeypatch, tmp_path)
    init(store.root)
    first = write(store, "chroma-port", "Chroma listens on 8000", "--body", "Port 8000. <img src=x onerror=alert(1)>")
    write(store, "chroma-port", "Chroma listens on 8001", "--body", "Port 8001.")
    server = Server(store.db_path, tmp_path / "serve.log")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto(f"{server.url}/seamless/memories/{first['id']}")
        revisions = page.locator("section.revisions li.revision")
        assert revisions.count() == 2
        assert revisions.nth(0).locator(".revision-change").inner_text() == "added"
        update = revisions.nth(1)
        assert update.locator(".revision-message").inner_text() == f"update chroma-port ({first['id']})"
        removed = update.locator("del").all_inner_texts()
        assert "8000" in removed and "8000. <img src=x onerror=alert(1)>" in removed
        assert "8001." in update.locator("ins").all_inner_texts()
        assert update.locator("img").count() == 0 and dialogs == []
        screenshot(page, "memory-revisions", "section.revisions")
    finally:
        server.stop()
