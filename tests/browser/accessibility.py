"""axe-core in the browser tests: injected into the page under test (never served by the webapp).

axe.min.js comes from the npm registry through `make setup-test` (scripts/test-assets.sh) into
.local/test-assets/. It is added to a browser context as an init script (the DevTools protocol, which
the pages' CSP against inline scripts does not apply to), so every page is checked exactly as served.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from playwright.sync_api import BrowserContext, Page

AXE = Path(__file__).resolve().parents[2] / ".local" / "test-assets" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BEST_PRACTICE_IMPACTS = {"serious", "critical"}
# Moderate best-practice rules that were found and fixed, and must stay fixed (issue 17: no <h1>).
KEPT_FIXED = {"page-has-heading-one"}


@cache
def axe_path() -> Path:
    if not AXE.exists():
        raise AssertionError(f"{AXE} is missing: run `make setup-test` (scripts/test-assets.sh fetches axe-core)")
    return AXE


def with_axe(context: BrowserContext) -> BrowserContext:
    context.add_init_script(path=axe_path())
    return context


def violations(page: Page) -> list[dict]:
    """What axe finds that fails the test: any WCAG 2.1 A/AA violation, best-practice findings of serious
    or critical impact, and the rules in KEPT_FIXED."""
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})",
                           [*WCAG_TAGS, "best-practice"])
    out = []
    for v in result["violations"]:
        wcag = bool(set(v["tags"]) & set(WCAG_TAGS))
        if wcag or v.get("impact") in BEST_PRACTICE_IMPACTS or v["id"] in KEPT_FIXED:
            out.append({"id": v["id"], "impact": v.get("impact"), "help": v["help"],
                        "nodes": [n["target"] for n in v["nodes"][:5]]})
    return out


