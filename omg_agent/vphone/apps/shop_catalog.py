"""The Shop app's product catalogue, seeded prices and search matching.

Prices are whole yuan drawn once per seed from each product's range and shown in CNY as
``¥3,599.00`` (see :func:`format_price`); they are kept in fen (1/100 yuan) so totals are
exact integers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CURRENCY = "CNY"


@dataclass(frozen=True)
class Product:
    pid: str
    name: str
    tags: str  # extra search words, English and Chinese
    low: int  # price range in yuan
    high: int
    glyph: str
    color: tuple[int, int, int]


CATALOGUE: tuple[Product, ...] = (
    Product("p01", "iPhone 15", "phone 手机 苹果 apple", 5000, 7000, "📱", (60, 60, 70)),
    Product("p02", "iPhone 15 Pro", "phone 手机 苹果 apple", 7000, 9500, "📱", (90, 80, 70)),
    Product("p03", "华为 Mate 60", "huawei phone 手机", 5000, 7000, "📱", (40, 90, 60)),
    Product("p04", "小米 14", "xiaomi mi phone 手机", 3500, 4500, "📱", (240, 110, 30)),
    Product("p05", "MacBook Air 13", "laptop 笔记本 电脑 apple 苹果", 7000, 9500, "💻",
            (150, 155, 165)),
    Product("p06", "MacBook Pro 14", "laptop 笔记本 电脑 apple 苹果", 12000, 16000, "💻",
            (70, 72, 80)),
    Product("p07", "联想 ThinkPad X1", "lenovo laptop 笔记本 电脑", 9000, 13000, "💻",
            (30, 30, 34)),
    Product("p08", "AirPods Pro", "earbuds headphones 耳机 apple 苹果", 1500, 2000, "🎧",
            (200, 200, 210)),
    Product("p09", "Sony WH-1000XM5", "索尼 headphones 耳机", 2000, 3000, "🎧", (20, 20, 25)),
    Product("p10", "小米手环 8", "xiaomi band fitness 手环", 200, 300, "🕐", (240, 110, 30)),
    Product("p11", "Apple Watch S9", "watch 手表 苹果", 2800, 3500, "🕐", (220, 60, 80)),
    Product("p12", "华为 Watch GT 4", "huawei watch 手表", 1400, 1800, "🕐", (40, 90, 60)),
    Product("p13", "iPad Air", "tablet 平板 苹果 apple", 4000, 5000, "💡", (110, 140, 200)),
    Product("p14", "小米平板 6", "xiaomi tablet pad 平板", 1800, 2300, "💡", (240, 110, 30)),
    Product("p15", "Kindle Paperwhite", "ereader e-book 电子书 阅读器 amazon", 900, 1200,
            "📰", (30, 60, 90)),
    Product("p16", "Nintendo Switch", "任天堂 game console 游戏机", 2000, 2500, "🎮",
            (220, 40, 40)),
    Product("p17", "罗技 MX Master 3S", "logitech mouse 鼠标", 600, 800, "🖱", (70, 70, 80)),
    Product("p18", "Keychron K8 机械键盘", "keyboard mechanical 键盘", 400, 600, "🔤",
            (100, 100, 110)),
    Product("p19", "Anker 充电宝", "power bank charger battery 移动电源", 150, 300, "🔋",
            (30, 120, 200)),
    Product("p20", "大疆 Mini 4 Pro", "dji drone 无人机", 4500, 5500, "🚁", (90, 95, 100)),
    Product("p21", "佳能 EOS R50", "canon camera 相机", 5000, 6000, "📷", (40, 40, 45)),
    Product("p22", "戴森吹风机 HD15", "dyson hair dryer 吹风机", 2800, 3300, "💨",
            (160, 60, 160)),
    Product("p23", "USB-C 数据线", "cable charger 充电线", 29, 59, "🔌", (120, 120, 120)),
    Product("p24", "保温杯 500ml", "thermos cup bottle 杯子 水杯", 69, 159, "☕",
            (60, 150, 140)),
)

BY_ID: dict[str, Product] = {p.pid: p for p in CATALOGUE}


def draw_price(rng: random.Random, product: Product) -> int:
    """A price in fen inside the product's range, ending in 9 yuan (as shops like)."""
    yuan = rng.randint(product.low, product.high)
    return (yuan // 10 * 10 + 9) * 100


def format_price(fen: int) -> str:
    return f"¥{fen // 100:,}.{fen % 100:02d}"


def matches(product: Product, query: str) -> bool:
    """Every term of ``query`` is found in the name or the tags.

    A Latin term must start a word ("phone" finds phones, not headphones); a Chinese term may
    sit anywhere, as Chinese is written without spaces.
    """
    hay = f"{product.name} {product.tags}".lower()
    words = hay.split()
    return all(any(w.startswith(term) for w in words) if term.isascii() else term in hay
               for term in query.lower().split())


def search(query: str) -> list[Product]:
    return [p for p in CATALOGUE if matches(p, query)]
