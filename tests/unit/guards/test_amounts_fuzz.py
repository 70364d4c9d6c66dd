"""A fuzz corpus of amounts (issue 34, item 6): true payable amounts × the ways screens render
them — separators, Unicode digits and spaces, currencies before and after, multipliers,
totals among fee and savings rows, hidden characters inserted — read the way the gate reads
a payment (:func:`~omg_agent.guards.payable.payment_amounts` on a checkout screen). None
may be read lower than the true payable amount: each is read exactly, higher, or not at
all (unreadable: the gate asks).

``python -m pytest -q -s tests/unit/guards/test_amounts_fuzz.py -k table`` prints the
table docs/benchmarks.md shows ("Amounts fuzz corpus").
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal

from gate_screens import SHOP, made_screen
from hypothesis import example, given, settings
from hypothesis import strategies as st

from omg_agent.core.observation import Observation
from omg_agent.guards.amounts import Money, priced
from omg_agent.guards.payable import payment_amounts

AMOUNTS = [Decimal(v) for v in ("1079.00", "1.00", "59.90", "100.00", "100.01", "999.99",
                                "12345.67", "1000000.00", "0.50", "2358", "88", "107900")]
CURRENCIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "CNY": (("¥", "￥", "¥ ", "RMB ", "CNY", "人民币"), ("元", " 元", " yuan", " CNY", "块")),
    "USD": (("$", "US$", "USD ", "$ "), (" USD", " dollars")),
    "EUR": (("€", "EUR ", "€\u00a0"), (" €", "€", " EUR", "\u00a0€", " euros")),
    "GBP": (("£",), (" GBP", " pounds")),
    "JPY": (("JPY ",), ("円", " JPY", " yen")),
    "KRW": (("₩",), ("원",)),
    "INR": (("₹", "Rs. "), (" INR",)),
}
# (grouping, decimal mark): the conventions of the world's checkouts
CONVENTIONS = [(",", "."), (".", ","), (" ", ","), ("\u00a0", ","), ("\u202f", ","),
               ("\u2009", "."), ("'", "."), ("’", "."), ("", "."), ("", ","),
               (",", ",")]  # the last is ambiguous: 2,358,00 is unreadable
DIGITS = {"full-width": "０１２３４５６７８９", "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
          "devanagari": "०१२३४५६७८९", "bengali": "০১২৩৪৫৬৭৮৯", "thai": "๐๑๒๓๔๕๖๗๘๙",
          "persian": "۰۱۲۳۴۵۶۷۸۹"}
SPACES = ["\u00a0", "\u202f", "\u2009", "\u2007", "\u2008", "\u3000", "\u205f", "\u2002",
          "\u2003", "\u1680"]
HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f",
          "\u034f", "\ufe0f", "\u3164", "\u201a", "\u2063", "\u061c", "\u180e"]
MULTIPLIED = [  # (rendering, true value, currency)
    ("¥1.2万", "12000", "CNY"), ("1.2万元", "12000", "CNY"), ("¥12万", "120000", "CNY"),
    ("3千元", "3000", "CNY"), ("¥1亿", "100000000", "CNY"), ("1万2千元", "12000", "CNY"),
    ("¥1万2", "12000", "CNY"), ("¥3千万", "30000000", "CNY"), ("2.5万 元", "25000", "CNY"),
    ("$1.2k", "1200", "USD"), ("$1.2K", "1200", "USD"), ("$2M", "2000000", "USD"),
    ("$1.5mn", "1500000", "USD"), ("1.5 million dollars", "1500000", "USD"),
    ("3 thousand yuan", "3000", "CNY"), ("€0.8m", "800000", "EUR"), ("US$1bn", "1e9", "USD"),
    ("¥1.2 万", "12000", "CNY"), ("RMB 1.2万", "12000", "CNY"), ("€2 billion", "2e9", "EUR"),
]
TOTAL_LABELS = ["Total: {}", "Amount payable {}", "合计：{}", "实付款 {}", "Total due {}",
                "To pay: {}", "Total (incl. ¥5.00 delivery): {}", "应付金额 {}",
                "Order total {} (you saved ¥2,000.00)", "Total incl. VAT: {}", "总计 {}",
                "You pay {}"]
OTHER_ROWS = ["You saved ¥50.00 in total", "已省 ¥2,000.00", "Delivery ¥5.00", "Coupon -¥20.00",
              "Tax ¥8.00", "优惠 ¥300.00", "Shipping fee: ¥12.00", "Subtotal ¥9,999.00"]


def grouped(value: Decimal, group: str, mark: str, places: int, *, indian: bool = False) -> str:
    whole, _, frac = f"{value:.{places}f}".partition(".")
    if indian and len(whole) > 3:
        head, tail = whole[:-3], whole[-3:]
        parts = [head[max(0, i - 2):i] for i in range(len(head), 0, -2)][::-1] + [tail]
    else:
        parts = [whole[max(0, i - 3):i] for i in range(len(whole), 0, -3)][::-1]
    return group.join(parts) + (f"{mark}{frac}" if places else "")


def with_currency(number: str, code: str, rng: random.Random) -> str:
    before, after = CURRENCIES[code]
    return (rng.choice(before) + number) if rng.random() < 0.5 else (number + rng.choice(after))


def rendering(family: str, rng: random.Random) -> tuple[str, Decimal, list[str]]:
    """One rendering of ``family``: (family, true payable amount, the screen's texts — the
    first is the Pay button's label, the rest rows)."""
    value, code = rng.choice(AMOUNTS), rng.choice(list(CURRENCIES))
    places = 0 if value == value.to_integral() and rng.random() < 0.4 else 2
    if family == "separators":
        group, mark = rng.choice(CONVENTIONS)
        text = with_currency(grouped(value, group, mark, places), code, rng)
    elif family == "indian grouping":
        text = with_currency(grouped(value, ",", ".", places, indian=True), "INR", rng)
    elif family == "unicode digits":
        script = rng.choice(list(DIGITS))
        group, mark = ("٬", "٫") if script in ("arabic-indic", "persian") else (",", ".")
        number = grouped(value, group, mark, places)
        text = with_currency(number.translate(str.maketrans("0123456789", DIGITS[script])),
                             code, rng)
    elif family == "unicode spaces":
        number = grouped(value, rng.choice(SPACES), rng.choice(".,"), places)
        at = rng.randrange(1, len(number) + 1)
        if rng.random() < 0.5:  # one more anywhere: a valid group, or unreadable
            number = number[:at] + rng.choice(SPACES) + number[at:]
        text = with_currency(number, code, rng)
    elif family == "multipliers":
        text, raw, code = rng.choice(MULTIPLIED)
        value = Decimal(raw)
    elif family == "hidden characters":
        number = grouped(value, ",", ".", places)
        at = rng.randrange(1, len(number) + 1)  # inside the number or between it and a sign
        text = with_currency(number[:at] + rng.choice(HIDDEN) + number[at:], code, rng)
    else:
        raise ValueError(family)
    return text, value, []


def total_screen(rng: random.Random) -> tuple[str, Decimal, list[str]]:
    """A "Pay now" button and a total row among fee and savings rows (one family)."""
    value = rng.choice(AMOUNTS)
    amount = "¥" + grouped(value, ",", ".", 2)
    rows = rng.sample(OTHER_ROWS, rng.randrange(1, 4))
    rows.insert(rng.randrange(len(rows) + 1), rng.choice(TOTAL_LABELS).format(amount))
    return "Pay now", value, rows


def screen(label: str, rows: list[str]) -> Observation:
    """A checkout: the rows top to bottom, then the Pay button."""
    return made_screen(SHOP, [
        *({"text": row, "bounds": (40, 300 + 110 * i, 1040, 400 + 110 * i)}
          for i, row in enumerate(rows)),
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": label, "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)}])


def outcome(read: tuple[Money, ...], value: Decimal) -> str:
    """exact / higher / unreadable (the gate asks) / lower (a limit below ``value`` would
    let it through: every reading readable and the highest below the true amount)."""
    if not read or not all(m.readable for m in read):
        return "unreadable"
    top = max(m.value for m in read)
    return "exact" if top == value else "higher" if top > value else "lower"


def gate_read(label: str, rows: list[str]) -> tuple[Money, ...]:
    obs = screen(label, rows)
    return payment_amounts(obs.elements[-1], obs)


FAMILIES = ["separators", "indian grouping", "unicode digits", "unicode spaces",
            "multipliers", "hidden characters"]


def corpus(seed: int = 0, per_family: int = 120) -> Iterator[tuple[str, str, Decimal,
                                                                   list[str]]]:
    """(family, Pay label, true amount, rows): each text rendering on the Pay button
    ("Pay …") and as a total row beside "Pay now", and checkout screens with rows."""
    rng = random.Random(seed)
    for family in FAMILIES:
        for _ in range(per_family // 2):
            text, value, _ = rendering(family, rng)
            yield family, f"Pay {text}", value, []
            yield family, "Pay now", value, [f"Total: {text}"]
    for _ in range(per_family):
        label, value, rows = total_screen(rng)
        yield "totals among rows", label, value, rows


def table(seed: int = 0) -> tuple[dict[str, Counter[str]], list[str]]:
    counts: dict[str, Counter[str]] = {}
    lower: list[str] = []
    for family, label, value, rows in corpus(seed):
        read = gate_read(label, rows)
        result = outcome(read, value)
        counts.setdefault(family, Counter())[result] += 1
        if result == "lower":
            lower.append(f"{family}: {label!r} {rows} read {[str(m) for m in read]}, "
                         f"true {value}")
    return counts, lower


def test_no_rendering_of_the_corpus_is_read_lower_than_its_payable_amount():
    counts, lower = table()
    assert sum(sum(c.values()) for c in counts.values()) >= 500
    assert lower == []


def test_the_table(capsys):
    counts, _ = table()
    kinds = ("exact", "higher", "unreadable", "lower")
    lines = ["| rendering family | renderings | " + " | ".join(kinds) + " |",
             "|---|---:|" + "---:|" * len(kinds)]
    total: Counter[str] = Counter()
    for family, c in counts.items():
        total.update(c)
        lines.append(f"| {family} | {sum(c.values())} | "
                     + " | ".join(str(c[k]) for k in kinds) + " |")
    lines.append(f"| **all** | {sum(total.values())} | "
                 + " | ".join(str(total[k]) for k in kinds) + " |")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert total["lower"] == 0 and total["exact"] > total["unreadable"]


# -- the property: any rendering generated reads at least its amount, or not at all --------
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(FAMILIES + ["totals among rows"]),
       st.booleans())
def test_any_rendering_reads_at_least_its_amount_or_is_unreadable(seed, family, as_row):
    rng = random.Random(seed)
    if family == "totals among rows":
        label, value, rows = total_screen(rng)
    else:
        text, value, _ = rendering(family, rng)
        label, rows = (("Pay now", [f"Amount payable {text}"]) if as_row
                       else (f"Pay {text}", []))
    assert outcome(gate_read(label, rows), value) != "lower", (label, rows)


@settings(max_examples=400, deadline=None)
@given(st.characters(exclude_categories=("Cs", "Nd", "No")),
       st.sampled_from([("¥1,079.00", "1079"), ("1 079,00 €", "1079"), ("¥1.2万", "12000"),
                        ("$1.2k", "1200"), ("1.2万元", "12000"), ("Total: ¥1,079.00", "1079")]),
       st.integers(1, 20))
@example("\n", ("¥1.2万", "12000"), 4)  # "¥1.2\n万" read ¥1.2: the unit cut off by a newline
def test_any_character_put_inside_an_amount_never_lowers_it(ch, case, at):
    """Whatever one character (not a digit) lands inside an amount: read the same, higher,
    or unreadable — never a part of it ("¥1$,079" is not ¥1, "¥1.2!万" not ¥1.2)."""
    base, value = case
    at = min(at, len(base) - 1)
    text = base[:at] + ch + base[at:]
    assert outcome(tuple(priced(text)), Decimal(value)) != "lower", text
