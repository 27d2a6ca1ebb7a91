"""Reference exchange rates and a converter."""

RATES = {
    ("EUR", "USD", "2025-03-03"): 1.0484,
    ("EUR", "USD", "2025-03-04"): 1.0621,
    ("GBP", "JPY", "2025-03-03"): 189.37,
    ("USD", "CHF", "2025-03-03"): 0.8997,
}


def get_exchange_rate(base: str, quote: str, date: str) -> str:
    """The reference rate of one currency against another on a date."""
    rate = RATES.get((base.upper(), quote.upper(), date))
    if rate is None:
        return f"No reference rate for {base}/{quote} on {date}."
    return f"Reference rate on {date}: 1 {base.upper()} = {rate} {quote.upper()}"


def convert_amount(amount: float, rate: float) -> str:
    """Multiply an amount by an exchange rate, rounded to cents."""
    return f"{amount:,.2f} x {rate} = {amount * rate:,.2f}"
