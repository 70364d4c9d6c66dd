"""What a run has paid: the total a stated limit bounds ("spend no more than ¥100" is for the
whole run, not for each payment).

The gatekeeper (:mod:`omg_agent.guards.gatekeeper`) records each payment it lets through —
allowed by an authorisation or approved by the user — with the amount the gate read on the
screen (the highest one: what is recorded is never less than what was paid). The gate
(:class:`omg_agent.guards.sensitive.Gate`) asks when the total so far plus this payment
would pass a limit that bounds the total. The run's saved state keeps the ledger
(:meth:`SpendLedger.as_data`), so a resumed run goes on counting. A payment whose amount
could not be read is recorded as unreadable: from then on, every total-bounded payment asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from omg_agent.guards.amounts import Limit, Money


@dataclass
class SpendLedger:
    """The payments a run let through, in order (``None``: one whose amount was unreadable)."""

    paid: list[Money | None] = field(default_factory=list)

    def record(self, amounts: Sequence[Money]) -> None:
        """A payment went through showing ``amounts``: the highest is what it cost."""
        self.paid.append(max(amounts, key=lambda m: m.value) if amounts else None)

    def take_back(self, entry: Money | None) -> bool:
        """The last payment recorded as ``entry`` did not go (yet): it leaves the total."""
        for i in range(len(self.paid) - 1, -1, -1):
            if self.paid[i] == entry:
                del self.paid[i]
                return True
        return False

    def total(self, currency: str | None) -> Decimal | None:
        """What was paid in ``currency`` (``None``: every amount's number), or ``None``
        when a payment's amount could not be read."""
        if any(m is None for m in self.paid):
            return None
        return sum((m.value for m in self.paid if m is not None
                    and (currency is None or m.currency == currency)), Decimal(0))

    def problem(self, limit: Limit, amounts: Sequence[Money]) -> str | None:
        """Why paying ``amounts`` now would take the run's total past ``limit``, or
        ``None`` (nothing paid yet: the payment's own check is the limit's)."""
        if not self.paid or limit.amount is None or not amounts:
            return None
        currency = limit.amount.currency
        spent = self.total(currency)
        if spent is None:
            return f"an earlier payment's amount could not be read to keep your limit ({limit})"
        this = max(amounts, key=lambda m: m.value)
        after = Money(spent + this.value, currency or this.currency)
        if limit.admits(after):
            return None
        return (f"{Money(spent, after.currency)} paid already; {this} more makes {after}, "
                f"beyond your limit ({limit})")

    def as_data(self) -> list[list[str] | None]:
        """JSON-ready: ``[value, currency]`` per payment (``None``: unreadable)."""
        return [[str(m.value), m.currency or ""] if m is not None else None for m in self.paid]

    @classmethod
    def of(cls, data: Any) -> SpendLedger:
        """The ledger :meth:`as_data` wrote; :class:`ValueError` for anything else."""
        if not isinstance(data, list):
            raise ValueError("spent: expected a list of [amount, currency] pairs")
        paid: list[Money | None] = []
        for item in data:
            if item is None:
                paid.append(None)
                continue
            try:
                value, currency = item
                paid.append(Money(Decimal(str(value)), str(currency) or None))
            except (TypeError, ValueError, InvalidOperation):
                raise ValueError(f"spent: {item!r} is not an [amount, currency] pair"
                                 ) from None
        return cls(paid)


__all__ = ["SpendLedger"]
