"""Money, written once: cents to exact amounts and back, and amounts as people read them.

The mirror stores prices as integer cents (mirror/store/models.py) and publishes
them as exact decimals: pricing.json and the tool results as JSON numbers
(11006, 60.05: mirror.values.jsontext.decimal_number), the pages and the answers'
sentences as text ("$8,500", "$60.05", "8,500 EUR"; the WordPress plugin
writes the same, tests/wordpress/test_wordpress*.py hold it to this). Every one of
those conversions is here, so no two surfaces round or spell an amount
differently.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

# The currencies shown by a sign; any other is shown by its code after the amount.
CURRENCY_SIGNS = {"USD": "$"}


def cents_to_decimal(cents: int | None) -> Decimal | None:
    """Exact money from integer cents (None stays None)."""
    return None if cents is None else Decimal(cents).scaleb(-2)


def to_cents(amount: Decimal | int | float | str) -> int:
    """Whole cents at or below an amount: exact for a price of two decimals, and a ceiling of 99.999 admits 99.99.

    A float is read by its shortest repr (99.99, not 99.98999...), a string as the decimal it spells.
    """
    exact = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    return int(exact.scaleb(2).to_integral_value(rounding=ROUND_FLOOR))


def format_money(amount: Decimal, currency: str) -> str:
    """'$8,500' for a whole amount, '$60.05' otherwise; a currency without a sign by its code: '8,500 EUR'.

    Whole amounts go without ".00" in every currency, as pricing pages write
    them; cents are shown whenever there are any.
    """
    digits = f"{amount:,.0f}" if amount == amount.to_integral_value() else f"{amount:,.2f}"
    sign = CURRENCY_SIGNS.get(currency)
    return f"{sign}{digits}" if sign else f"{digits} {currency}"


def format_cents(cents: int, currency: str) -> str:
    """`format_money` of an amount in integer cents."""
    return format_money(Decimal(cents).scaleb(-2), currency)
