"""Text shared by tests of memory as agents keep it: a "known issues" list of short bullets,
the kind a progress file accumulates (written for these tests)."""

from __future__ import annotations

KNOWN_ISSUES = [
    "Some recipes with unusual units fail to parse",
    "Need more robust fraction parsing",
    "Consider adding ingredient aliases",
    "Scraped servings can vary significantly",
    "Need strategies for portion rounding",
    "Consider merging duplicate imports",
    "Edge cases around timers spanning midnight",
    "Need more testing for oven temperature conversions",
    "Many recipes lack nutrition information entirely",
    "Need fallback strategy for missing photos",
    "Recipe site markup can change, breaking selectors",
    "Several recipe sites fail to scrape consistently",
]

# The same list without a rule: "X fails" is a negative fact (a rule by wording, which strict
# never drops), so tests of what a pass drops and how its record names the drops use these.
PLAIN_ISSUES = [
    t.replace("fail to parse", "parse too slowly").replace(
        "fail to scrape consistently", "scrape inconsistently today"
    )
    for t in KNOWN_ISSUES
]
