"""A browser tab that keeps what goes wrong in it: the console's errors, the page's uncaught
exceptions and every request to somewhere other than the page's own origin (a page that must
stand alone loads nothing from elsewhere)."""

from __future__ import annotations

FILES = ("file:", "data:")  # a self-contained page's own origins


def watched_page(browser, width: int, height: int, own: tuple[str, ...] = FILES):
    """A new tab of ``width`` x ``height``; its problems gather in ``page.problems``."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(own) else page.problems.append(r.url))
    return page
