"""Generated samples for the redaction property tests: secrets of each kind (IBANs with a correct
checksum, tokens of the right alphabet and length, passphrases of 2–6 words after a label in
each language) and ordinary text that must be left as it is."""

import base64
import string

from hypothesis import strategies as st

from shared.redaction.iban import LENGTHS

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits

# prose holds no label or key word, and no word a passphrase is made of
PROSE_WORDS = str.split(
    "we met the team on monday and agreed to ship the release after review "
    "Maya thinks our customers want faster exports so Gunnar will draft a plan "
    "revenue grew across regions while costs stayed flat in spring"
)
PASSPHRASE_WORDS = str.split(
    "horse battery staple orange tiger velvet copper lantern harbor meadow pepper rocket "
    "glacier violin marble thunder cactus pillow walnut falcon Sonne Blume gato azul fiets"
)


def _numbers() -> st.SearchStrategy[str]:
    """Numbers as prose writes them: counts, years, money, percentages, decimals, dates."""
    return st.one_of(
        st.integers(0, 10**9).map(str),
        st.integers(1990, 2030).map(str),
        st.integers(1, 10**7).map(lambda n: f"${n:,}"),
        st.integers(0, 100).map(lambda n: f"{n}%"),
        st.floats(0, 1000, allow_nan=False).map(lambda x: f"{x:.2f}"),
        st.dates().map(lambda d: d.isoformat()),
    )


def prose() -> st.SearchStrategy[str]:
    """A sentence of ordinary words, each maybe followed by a number, ending with a full stop
    (two numbers side by side could read as one card number, and that is not prose)."""
    word = st.tuples(st.sampled_from(PROSE_WORDS), st.one_of(st.just(""), _numbers()))
    words = st.lists(word.map(lambda pair: " ".join(filter(None, pair))), min_size=1, max_size=8)
    return words.map(lambda ws: " ".join(ws)[:1].upper() + " ".join(ws)[1:] + ".")


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size)


# each country's account part: n a digit, a a capital, c either (the registry's formats)
BBAN_FORMATS = {
    "DE": "n" * 18,
    "GB": "aaaa" + "n" * 14,
    "FR": "n" * 10 + "c" * 11 + "nn",
    "NL": "aaaa" + "n" * 10,
    "ES": "n" * 20,
    "IT": "a" + "n" * 10 + "c" * 12,
    "PL": "n" * 24,
    "CH": "n" * 5 + "c" * 12,
    "BE": "n" * 12,
    "NO": "n" * 11,
    "MT": "aaaa" + "n" * 5 + "c" * 18,
    "IE": "aaaa" + "n" * 14,
}
_CLASSES = {"n": string.digits, "a": string.ascii_uppercase, "c": UPPER_DIGITS}


def check_digits(country: str, bban: str) -> str:
    """The two check digits that make country + digits + bban pass the mod-97 check."""
    number = int("".join(str(int(char, 36)) for char in bban + country + "00"))
    return f"{98 - number % 97:02d}"


def grouped(compact: str) -> str:
    """An IBAN printed in groups of four."""
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


@st.composite
def ibans(draw: st.DrawFn) -> str:
    """A valid IBAN of one of several countries, in groups of four or in one run."""
    country = draw(st.sampled_from(sorted(BBAN_FORMATS)))
    bban = "".join(draw(st.sampled_from(_CLASSES[c])) for c in BBAN_FORMATS[country])
    compact = country + check_digits(country, bban) + bban
    assert len(compact) == LENGTHS[country]
    return draw(st.sampled_from([grouped(compact), compact]))


@st.composite
def invalid_ibans(draw: st.DrawFn) -> str:
    """An IBAN-shaped string whose checksum fails: wrong check digits, or one character changed
    (the mod-97 check catches every single substitution)."""
    iban = draw(ibans()).replace(" ", "")
    if draw(st.booleans()):
        wrong = draw(st.integers(2, 98).filter(lambda n: f"{n:02d}" != iban[2:4]))
        broken = iban[:2] + f"{wrong:02d}" + iban[4:]
    else:
        at = draw(st.integers(4, len(iban) - 1))
        alphabet = string.digits if iban[at].isdigit() else string.ascii_uppercase
        other = draw(st.sampled_from(alphabet).filter(lambda c: c != iban[at]))
        broken = iban[:at] + other + iban[at + 1 :]
    return draw(st.sampled_from([grouped(broken), broken]))


def npm_tokens() -> st.SearchStrategy[str]:
    return _chars(ALNUM, 36).map(lambda body: "npm_" + body)


def hugging_face_tokens() -> st.SearchStrategy[str]:
    return (
        st.integers(34, 40)
        .flatmap(lambda n: _chars(string.ascii_letters, n))
        .map(lambda body: "hf_" + body)
    )


@st.composite
def slack_webhooks(draw: st.DrawFn) -> str:
    team = draw(_chars(UPPER_DIGITS, 8)) + draw(_chars(UPPER_DIGITS, 2))
    bot = draw(_chars(UPPER_DIGITS, 8)) + draw(_chars(UPPER_DIGITS, 3))
    return f"https://hooks.slack.com/services/T{team}/B{bot}/{draw(_chars(ALNUM, 24))}"


@st.composite
def basic_credentials(draw: st.DrawFn) -> str:
    """The base64 of user:password, as an Authorization: Basic header carries it."""
    user = draw(st.text(string.ascii_lowercase, min_size=3, max_size=12))
    password = draw(st.text(ALNUM + "!#$%&*", min_size=6, max_size=24))
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def bearer_tokens() -> st.SearchStrategy[str]:
    return st.text(ALNUM + "-._~+/", min_size=6, max_size=60).filter(lambda t: t[0].isalnum())


@st.composite
def aws_key_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An access key id and its secret: 40 base64 characters holding both cases and a digit."""
    key_id = "AKIA" + draw(_chars(UPPER_DIGITS, 16))
    body = list(draw(_chars(ALNUM + "/+", 37)) + "Aa1")
    order = draw(st.permutations(range(40)))
    return key_id, "".join(body[i] for i in order)


# (language, how a label and a verb give a password); {} is the password
GIVEN_IN = [
    ("en", "my password is {}"),
    ("en", "The passphrase is {}"),
    ("en", "pass phrase: {}"),
    ("en", "Password for the staging server: {}"),
    ("de", "Mein Passwort ist {}"),
    ("de", "Passwort: {}"),
    ("de", "Das Kennwort lautet {}"),
    ("de", "WLAN-Passwort: {}"),
    ("fr", "Mon mot de passe est {}"),
    ("fr", "mot de passe : {}"),
    ("es", "Mi contraseña es {}"),
    ("it", "La mia password è {}"),
    ("nl", "Mijn wachtwoord is {}"),
    ("pt", "Minha senha é {}"),
    ("pl", "Moje hasło to {}"),
    ("pl", "Hasło: {}"),
]
API_KEY_GIVEN_IN = ["API-Schlüssel: {}", "la clé API est {}", "clé d'API : {}", "API key: {}"]


def passphrases() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(PASSPHRASE_WORDS), min_size=2, max_size=6).map(" ".join)


# what a clause of a password may end with, and what follows it is kept
CLAUSE_ENDS = [". ", ".\n", "\n", ", ", "; ", "! ", "? "]

# sentences that speak of a password without giving one
NOT_GIVEN = [
    "Reset your password in Settings.",
    "Forgot your password? Use the link below.",
    "The password policy requires 12 characters.",
    "Your password is too short.",
    "The password is correct.",
    "Password is required for every account.",
    "The password must be at least 12 characters long.",
    "Change your password every 90 days.",
    "We never ask for your password by email.",
    "Send the password to Bob.",
    "Das Passwort ist falsch.",
    "Passwort vergessen?",
    "Setzen Sie Ihr Passwort in den Einstellungen zurück.",
    "Le mot de passe est incorrect.",
    "Mot de passe oublié ?",
    "La contraseña es incorrecta.",
    "¿Olvidaste tu contraseña?",
    "La password è errata.",
    "Het wachtwoord is onjuist.",
    "Wachtwoord vergeten?",
    "A senha é inválida.",
    "Esqueceu a senha?",
    "Hasło jest nieprawidłowe.",
    "Zresetuj hasło w Ustawieniach.",
    "The Authorization header is required.",
    "Run npm_install_all and hf_hub_download first.",
    "Post to the hooks.slack.com channel.",
    "Our account numbers start with DE or GB.",
]
