"""What the suite's random parameters are drawn from: note titles and bodies, message
texts, products by kind, people and numbers (English and Chinese).

Texts stay short (one line, no ``$``, no quotes) so they type cleanly, fit a list row
unwrapped, and differ from every text the apps seed themselves (a seeded message equal
to the one to send would show on screen before it is sent).
"""

from __future__ import annotations

import random

from omg_agent.vphone.apps.shop_catalog import CATALOGUE

NOTE_TITLES = ("Groceries", "Trip", "Books", "Gym plan", "Gift ideas", "Recipes",
               "Meeting", "Packing list", "Weekend", "Garden")
NOTE_BODIES = ("milk, eggs, bread", "pack the tent", "call the plumber", "read Dune next",
               "buy new running shoes", "water the plants", "book the train tickets",
               "renew the passport", "try the pasta recipe", "ask about the budget")
NOTE_TITLES_ZH = ("购物清单", "旅行计划", "读书笔记", "周末安排", "健身计划", "生日礼物")
NOTE_BODIES_ZH = ("牛奶、鸡蛋、面包", "带上帐篷和睡袋", "给外婆打电话", "周六去爬山",
                  "每天跑步三公里", "预订火车票")
MESSAGES_EN = ("See you at 7", "Running 10 minutes late", "Dinner is ready",
               "Call me back please", "Happy birthday!", "The meeting moved to 3pm",
               "Bring the charger", "Parking is on level 2")
MESSAGES_ZH = ("晚上回家吃饭", "我到楼下了", "明天见", "生日快乐！", "会议推迟到四点",
               "记得买牛奶")
INCOMING = ("The door code is 4821", "Meet at gate 3", "航班改到晚上九点",
            "Pick up the keys at noon", "快递放在门卫室了", "The table is booked for 8")
STRANGERS = ("Zoe", "Carlos", "王强", "Priya", "Tom")
RELATIONS = ("sister", "boss", "neighbour", "flatmate")
KNOWN_CONTACTS = ("Alice", "Bob", "张伟")  # in Messages and among the Feed authors
NOT_SOLD = ("PlayStation 5", "Xbox Series X", "Galaxy S24", "Pixel 8", "Surface Laptop 5",
            "Tesla Model 3")
MISSING_SETTINGS = ("dark mode", "night light", "eye comfort mode")
MISSING_SETTINGS_ZH = ("飞行模式", "深色模式", "护眼模式")
ABOUT_ROWS = ("Model", "Android version", "Build number")
KINDS = {
    "headphones": ("AirPods Pro", "Sony WH-1000XM5"),
    "phone": ("iPhone 15", "iPhone 15 Pro", "华为 Mate 60", "小米 14"),
    "laptop": ("MacBook Air 13", "MacBook Pro 14", "联想 ThinkPad X1"),
    "watch": ("Apple Watch S9", "华为 Watch GT 4"),
}
PRODUCTS = tuple(p.name for p in CATALOGUE)
PRODUCTS_ZH = tuple(n for n in PRODUCTS if any("\u4e00" <= c <= "\u9fff" for c in n))


def notes(rng: random.Random, k: int = 3) -> list[dict[str, str]]:
    """``k`` saved notes with distinct titles and bodies."""
    titles = rng.sample(NOTE_TITLES, k)
    bodies = rng.sample(NOTE_BODIES, k)
    return [{"title": t, "body": b} for t, b in zip(titles, bodies, strict=True)]


def number(rng: random.Random) -> str:
    """A mobile number none of the seeded conversations has."""
    return "13" + "".join(str(rng.randrange(10)) for _ in range(9))


def marker(rng: random.Random) -> int:
    """A like count no seeded post has (they have 0–300): a unique text on the screen."""
    return rng.randrange(1000, 2000)
