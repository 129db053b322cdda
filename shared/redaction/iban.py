"""IBANs in text: two capitals naming a country, two check digits, then the account in groups of
four (spaces between groups optional). A string of that shape is an IBAN only when its country
uses IBANs, its length is that country's, and it passes the mod-97 check (ISO 13616), which a
mistyped or random string passes once in 97: the check is what keeps a product code or a line of
capitals and digits from being taken for a bank account."""

import re

# the SWIFT IBAN registry: country → length of its IBANs
LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
    "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip

# At most 36 characters past its start, so each start costs a bounded number of steps; longer
# than any IBAN so that a trailing word can be cut off at the country's length.
SHAPE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}+(?: ?[A-Z0-9]{1,4})?+")
_LONGEST_SHAPE = 4 + 8 * 5


def checksum_ok(compact: str) -> bool:
    """The mod-97 check: the first four characters moved to the end, letters as 10–35."""
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def iban_end(text: str, start: int, end: int) -> int | None:
    """Where the IBAN starting at text[start] ends, within a SHAPE match ending at end: its
    country's length of characters, ending at a group's end and passing the check; else None."""
    length = LENGTHS.get(text[start : start + 2])
    if length is None:
        return None
    seen = 0
    for cut in range(start, end):
        seen += text[cut] != " "
        if seen == length:
            break
    else:
        return None
    cut += 1
    if text[cut : cut + 1].isalnum():  # the country's length ends inside a group
        return None
    return cut if checksum_ok(text[start:cut].replace(" ", "")) else None


def is_iban_shaped(text: str, start: int) -> bool:
    """True when an IBAN-shaped run with a known country (valid or not) covers text[start]."""
    for match in SHAPE.finditer(text, max(0, start - _LONGEST_SHAPE)):
        if match.start() > start:
            return False
        if start < match.end() and match.group()[:2] in LENGTHS:
            return True
    return False
