"""What a page logs as an error in the browser: script errors and CSP violations (shared by the browser tests)."""

from __future__ import annotations

from playwright.sync_api import Page


def no_console_errors(page: Page) -> list[str]:
    """A list that fills with the page's console errors and uncaught exceptions from now on."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors
