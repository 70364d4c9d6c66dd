"""The pages the vphone's Chrome can show (it is offline): what each URL renders as.

``example.com`` is a WebView whose nodes are in the dump (as Chrome exposes a page's
accessibility tree); the OMG flash-sale page is a canvas-drawn WebView whose text is pixels
only (a leaf in the dump, OCR finds it); the new tab page is Chrome's own views; any other
address gets Chrome's "This site can't be reached" page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from urllib.parse import quote_plus, urlsplit

from omg_agent.vphone.apps.textfit import paragraph
from omg_agent.vphone.ui.kit import MUTED, PRIMARY, Kit
from omg_agent.vphone.ui.view import Bounds, View

Opener = Callable[[str], None]
Page = Callable[[Kit, Bounds, Opener], View]
EXAMPLE = "https://example.com/"
FLASH_SALE = "https://sale.omg-shop.example/flash"
SALE_RED = (215, 45, 45)
FLASH_ITEMS = (("Noise-cancelling headphones 降噪耳机", "¥599"), ("Smart watch 智能手表", "¥899"),
               ("Phone case 手机壳", "¥19"))


def normalize(text: str) -> str:
    """What Chrome loads for what was typed or sent: a URL with scheme and path, or a search."""
    text = text.strip()
    if " " in text or ("." not in text and "://" not in text and text != "localhost"):
        return "https://www.google.com/search?q=" + quote_plus(text)
    if "://" not in text:
        text = "https://" + text
    parts = urlsplit(text)
    path = parts.path or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}{query}"


def display_url(url: str) -> str:
    """The URL bar's text while not editing: no ``https://``, no lone trailing slash."""
    parts = urlsplit(url)
    if parts.path == "/" and not parts.query:
        return parts.netloc
    return url.split("://", 1)[-1]


def _host(url: str) -> str:
    return urlsplit(url).netloc.removeprefix("www.")


def page_for(url: str) -> Page:
    if url.startswith("chrome://newtab"):
        return new_tab
    if _host(url) == "example.com":
        return example_domain
    if url.split("?", 1)[0].rstrip("/") == FLASH_SALE:
        return flash_sale
    return partial(unreachable, url=url)


def _webview(kit: Kit, bounds: Bounds, *, opaque: bool, bg: tuple[int, int, int]) -> View:
    return kit.view("android.webkit.WebView", bounds, opaque_to_tree=opaque, focusable=True,
                    scrollable=False, style={"bg": bg})


def example_domain(kit: Kit, bounds: Bounds, open_url: Opener) -> View:
    left, top, right, _ = bounds
    web = _webview(kit, bounds, opaque=False, bg=(240, 240, 242))
    web.desc = "Example Domain"
    y = top + kit.dp(48)
    web.add(kit.text(kit.row(y, 40, 24), "Example Domain", size=26, bold=True))
    web.add(paragraph(kit, kit.row(y + kit.dp(56), 72, 24),
                      "This domain is kept for use in examples in documents and tests. "
                      "You may use it without asking."))
    link = kit.text(kit.row(y + kit.dp(140), 28, 24), "More information...", size=16,
                    color=PRIMARY, on_click=lambda: open_url(
                        "https://www.iana.org/help/example-domains"))
    link.cls = "android.view.View"
    web.add(link)
    return web


def flash_sale(kit: Kit, bounds: Bounds, open_url: Opener) -> View:
    """Drawn on a canvas: a user reads and taps it, the dump shows one WebView leaf."""
    left, top, right, _ = bounds
    web = _webview(kit, bounds, opaque=True, bg=(255, 244, 230))
    web.add(kit.text(kit.row(top + kit.dp(24), 44), "Flash Sale 限时秒杀", size=26, bold=True,
                     color=SALE_RED, align="center"))
    y, h, m = top + kit.dp(88), kit.dp(80), kit.dp(16)
    for name, price in FLASH_ITEMS:
        card = kit.view("android.view.View", (m, y, right - m, y + h - kit.dp(8)),
                        style={"bg": (255, 255, 255), "radius": kit.dp(12)})
        card.add(kit.text((m + kit.dp(16), y + kit.dp(8), right - 2 * m, y + kit.dp(38)),
                          name, size=18, bold=True))
        card.add(kit.text((m + kit.dp(16), y + kit.dp(40), right - 2 * m, y + kit.dp(66)),
                          price, size=16, color=SALE_RED))
        web.add(card)
        y += h
    return web


def new_tab(kit: Kit, bounds: Bounds, open_url: Opener) -> View:
    left, top, right, bottom = bounds
    page = kit.view("android.widget.FrameLayout", bounds,
                    resource_id=f"{kit.package}:id/ntp_content")
    page.add(kit.text(kit.row(top + kit.dp(72), 56), "Google", size=34, bold=True,
                      color=PRIMARY, align="center"))
    y = top + kit.dp(180)
    for title, url in (("Example Domain", EXAMPLE), ("Flash Sale", FLASH_SALE)):
        tile = kit.text(kit.row(y, 48), title, size=17, on_click=partial(open_url, url),
                        resource_id=f"{kit.package}:id/tile_view_title")
        tile.desc = title
        page.add(tile)
        y += kit.dp(56)
    return page


def unreachable(kit: Kit, bounds: Bounds, open_url: Opener, *, url: str) -> View:
    """Chrome's network error page (the vphone has no internet)."""
    web = _webview(kit, bounds, opaque=False, bg=(255, 255, 255))
    top = bounds[1]
    web.add(kit.text(kit.row(top + kit.dp(96), 36, 24), "This site can't be reached", size=22,
                     bold=True))
    web.add(paragraph(kit, kit.row(top + kit.dp(140), 52, 24),
                      f"{_host(url) or url}'s server IP address could not be found.",
                      color=MUTED))
    web.add(kit.text(kit.row(top + kit.dp(200), 24, 24), "DNS_PROBE_FINISHED_NXDOMAIN",
                     size=13, color=MUTED))
    return web
