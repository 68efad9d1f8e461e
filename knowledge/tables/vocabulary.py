"""The header words a question's word names without saying them: a word of degree names the
amount it orders by ("the tallest": Height), a verb its noun ("bought": Purchased), a unit said
in words its symbol ("per kilo": kg). knowledge/tables/question.py reads them as said."""

from __future__ import annotations

import re

# Words of degree that name the amount they order by without saying it: "the tallest player"
# orders by Height, "the most populous city" by Population, "the cheapest" by Price; and verbs
# whose column is named otherwise ("bought" is Purchased). The header words each implies are
# read as said by the question.
IMPLIED_HEADERS = {
    **dict.fromkeys("tall taller tallest".split(), ("height",)),
    **dict.fromkeys("heavy heavier heaviest light lighter lightest weigh weighs weighed".split(),
                    ("weight",)),
    **dict.fromkeys("deep deeper deepest".split(), ("depth",)),
    **dict.fromkeys("wide wider widest".split(), ("width",)),
    **dict.fromkeys("populous populated".split(), ("population",)),
    **dict.fromkeys("fast faster fastest quick quicker quickest slow slower slowest".split(),
                    ("time", "speed", "duration", "min", "minutes", "hours", "days")),
    **dict.fromkeys("rich richer richest wealthiest".split(), ("worth", "wealth")),
    **dict.fromkeys("cheap cheaper cheapest expensive costliest".split(), ("price", "cost")),
    **dict.fromkeys("strong stronger strongest weak weaker weakest".split(), ("strength", "abv")),
    # What a thing is worth is its value, what one pays for it its price: "what were the orders
    # worth", "what are we paying for rice". Not a rate: "what do we pay each month for the
    # loan" is its payment, not its interest rate.
    **dict.fromkeys("worth".split(), ("value",)),
    **dict.fromkeys("pay pays paying".split(), ("price", "cost", "fee", "payment")),
    # A unit said in words names the header that gives its symbol: "per kilo" reads "Price per
    # kg". Only symbols of two letters or more: a one-letter one is a column of its own in many
    # tables (H for hits, L for losses, T for ties, G for goals), and so are HR and Min: "mins"
    # would be read as Min, a minimum.
    **dict.fromkeys("kilo kilos kilogram kilograms kilogramme kilogrammes".split(), ("kg",)),
    **dict.fromkeys("litre litres liter liters".split(), ("ltr",)),
    **dict.fromkeys("millilitre millilitres milliliter milliliters".split(), ("ml",)),
    **dict.fromkeys("kilometre kilometres kilometer kilometers".split(), ("km",)),
    **dict.fromkeys("mile miles".split(), ("mi",)),
    **dict.fromkeys("hour hours".split(), ("hrs",)),
    **dict.fromkeys("percent percentage".split(), ("pct",)),
    # Electricity is measured in kWh (energy): "the most electricity" of a sheet of kWh
    # generated. Not "power" (a power station's Capacity (MW) is no amount generated).
    **dict.fromkeys("electricity energy".split(), ("kwh", "mwh", "gwh")),
    # Verbs whose header is their noun or a regular form: "bought" reads Purchased.
    **dict.fromkeys("buy buys bought".split(), ("purchase", "purchased")),
    **dict.fromkeys("sell sells sold".split(), ("sales",)),
    # When a course starts is its first session, or its start; when it finishes, its end (not
    # a Last column: "where did Hamilton finish?" is no Last win).
    **dict.fromkeys("start starts begin begins".split(), ("first", "start", "begins", "from")),
    **dict.fromkeys("finish finishes".split(), ("end", "ends", "until")),
    **dict.fromkeys("born".split(), ("birth",)),
    # Kids are children ("how many kids are on the course": Children).
    **dict.fromkeys("kid kids".split(), ("children", "child")),
    **dict.fromkeys("die dies died".split(), ("death",)),
}  # fmt: skip

# Phrases that name a header their words do not: what one charges *for* a thing is its price
# ("what do we charge for a keg"); a battery's charge is not ("how long does it take to charge").
# A lease or a contract that runs out (or expires) ends: "when does the roof lease run out?"
# reads Lease ends, or an Expiry; not a supply that runs out of something.
# Who keeps a thing: "looks after", "looked after" (no row after another: tables/kept.py; "who
# took after Ben?" is the next leg).
LOOKS_AFTER = re.compile(r"\b(?:look|looks|looked|looking) after\b")
IMPLIED_BY_PHRASE = (
    # The time a job took, as much or as little of it, is its hours or minutes ("the least time
    # to do up"); not "full time", "what time", "each time".
    (
        re.compile(r"\b(?:least|most|less|more|much|longest|shortest|total) time\b"),
        ("hours", "hrs", "minutes", "mins"),
    ),
    (re.compile(r"\bcharges? (?:for|per)\b"), ("price", "fee", "cost")),
    # Whom to ring is read from their phone: "ring whoever looks after the tandem", "which
    # extension do I dial", "call them" (not a call-out fee, a call duration, "what do we call
    # it", nor any "number": a squad number); one to text, from their mobile.
    (
        re.compile(r"\b(?:ring|phone|dial)\b|\bcall (?:him|her|them|whoever)\b|\bdo i call\b"),
        ("mobile", "phone", "telephone", "tel", "extension", "ext"),
    ),
    (re.compile(r"\btext (?:him|her|them|whoever)\b"), ("mobile",)),
    # Who looks after a thing is who is in charge of it ("Vet in charge"), its lead or keeper.
    (
        LOOKS_AFTER,
        ("charge", "looked", "lead", "responsible", "keeper"),
    ),
    (
        re.compile(r"\b(?:runs?|ran) out\b(?! of)|\bexpir(?:e|es|ed|ing)\b"),
        ("end", "expiry", "until"),
    ),
)
