"""Screenshots of the mirror page for the docs: desktop (1280×720) and phone-sized (390×844).

A vphone served over the real adb server, the mirror on it (H.264 where Chromium decodes it),
a run's progress (its last actions with thumbnails of the screens they acted on, made by
``run --mirror``'s progress hook) and an open approval on the page, photographed in headless
Chromium (/usr/bin/chromium through playwright). Writes docs/images/mirror-desktop.png and
docs/images/mirror-phone.png.

    PYTHONPATH=$PWD .venv/bin/python scripts/mirror_screenshots.py [OUT_DIR]
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from omg_agent.brain.run_state import Progress
from omg_agent.core.observation import Observation
from omg_agent.core.todo import TodoItem
from omg_agent.drivers.adb import AdbDriver
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.hitl.attach import progress_hook
from omg_agent.hitl.server import Mirror
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

SIZES = {"desktop": (1280, 720), "phone": (390, 844)}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
TASK = "Buy one Anker 充电宝 in Shop and pay for it"
PLAN = ("Open Shop", "Search for Anker 充电宝", "Add it to the cart", "Pay for it")
ACTIONS = ("", "tap 'Shop'", "type 'Anker 充电宝'", "tap 'Add to cart'")


def progress(step: int, acted_on: Observation) -> Progress:
    return Progress(phase="acting", step=PLAN[step],
                    plan=tuple(TodoItem(i + 1, text, i < step) for i, text in enumerate(PLAN)),
                    last_action=ACTIONS[step], steps_used=step * 2, steps_limit=30,
                    tokens_in=0, tokens_out=0, acted_on=acted_on)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    phone = VirtualPhone("default")
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        phone.go_home()
        with AdbDriver(serial) as driver, Mirror(driver) as mirror, \
                sync_playwright() as pw:
            show = progress_hook(mirror, None, lambda value: value, TASK)
            home = driver.observe()  # the screens the listed actions acted on
            phone.start_activity("com.omg.shop")
            for step, screen in ((1, home), (2, driver.observe()), (3, driver.observe())):
                show(progress(step, screen))
            request = ConfirmationRequest(cls="payment", describe="Pay now (¥129.00)",
                                          reason="the task pays for one Anker 充电宝",
                                          task=TASK)
            threading.Thread(target=mirror.channel.confirm, args=(request,),
                             daemon=True).start()
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=CHROMIUM_ARGS)
            link = mirror.url
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(link)
            for name, (width, height) in SIZES.items():
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_selector("#screen[data-frames]")
                expect(page.locator(".req[data-kind=confirm]")).to_be_visible()
                expect(page.locator("#path")).not_to_contain_text("…")
                expect(page.locator("#recent li img")).to_have_count(3)
                page.screenshot(path=str(out / f"mirror-{name}.png"), full_page=name == "phone")
                print(out / f"mirror-{name}.png")
            browser.close()
            mirror.channel.close()
    finally:
        adbhost.disconnect(serial)
        phone.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images"))
