"""Screenshots of the built docs site as a new user sees it, opened from disk (file://) in
headless Chromium (/usr/bin/chromium through playwright): the home page, the five-minute
path and a model recipe, plus the demo's HTML report for the home page's picture. Writes
docs/images/docs-home.png, docs-five-minutes.png, docs-recipe.png and demo-report.png.

    .venv/bin/mkdocs build && .venv/bin/omg-agent demo
    .venv/bin/python scripts/docs_screenshots.py site runs/demo/<run>/report.html
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGES = {"docs-home": "index.html",
         "docs-five-minutes": "tutorials/five-minutes.html",
         "docs-recipe": "guide/models.html#dashscope-qwen-vl"}


def main(site: Path, report: Path | None, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--allow-file-access-from-files"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for name, rel in PAGES.items():
            page.goto((site.resolve() / rel).as_uri().replace("%23", "#"))
            page.wait_for_load_state("load")
            page.screenshot(path=str(out / f"{name}.png"))
            print(out / f"{name}.png")
        if report is not None:
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(report.resolve().as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(out / "demo-report.png"))
            print(out / "demo-report.png")
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None,
         Path(sys.argv[3]) if len(sys.argv) > 3 else Path("docs/images"))
