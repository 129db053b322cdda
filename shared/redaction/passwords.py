"""A password given in a sentence, in eight languages: after its label ("password", "Passwort",
"mot de passe", "contraseña", "wachtwoord", "senha", "hasło"…) and a verb ("is", "ist", "est"…)
or ":", "=", "->", its value runs to the end of the clause, so a passphrase goes whole; and a
value that cannot be a word right after the label ("the password hunter2x", "PIN 4821").

A sentence that describes a password rather than gives one ("the password is too short", "Das
Passwort ist falsch") is told by the value's first word. Linear time: every run is possessive and
a quoted value is looked for over at most 200 characters."""

import re

# the labels, by language; a long one may end a compound ("DB_PASSWORD", "Datenbankkennwort",
# "WLAN-Passwort"), a short one starts a word ("PIN", not "spin")
_LABELS = "|".join(
    [
        r"(?<!\d)(?:pass(?:word|phrase|code|wd)|passwort|kennwort|wachtwoord)",  # en it, de, nl
        r"\bpass\s+phrase|\bpwd|\bpin(?:\s+(?:code|number))?|\bpincode|\bcode\s+pin",
        r"\bmot\s+de\s+passe",  # fr
        r"\bcontraseña|\bsenha|\bhas[łl]o",  # es, pt, pl
    ]
)
# the verbs that give a value: en nl, de, fr, es it pt, pl (and Polish "to", after hasło only:
# "send the password to Bob" gives none)
_VERBS = "is|was|ist|war|lautet|est|était|es|era|è|é|jest"
# the labels' first letters: where none starts, the search moves on at once (three times faster)
_LABEL_STARTS = "(?=[pkwmcsh])"
# "password for the staging server is": a word of it may hold a dot ("admin@acme.com") but not
# end a sentence with one
_FOR_WHAT = (
    r"(?:\s+(?:for|to|on|of|für|pour|para|per|voor|do|dla)"
    r"(?:\s+[\w@-]++(?:\.[\w@-]++)*+){1,3}?)?"
)
_GIVEN = (
    rf"(?:{_LABELS})\b{_FOR_WHAT}(?:[\"']?\s*(?::|=|->)|\s+(?:{_VERBS})\b)"
    r"|\bhas[łl]o\s+to\b"
)
# a character inside a clause: clause punctuation is one only when no space follows ("p.ss,w")
_IN_CLAUSE = r"(?:[^\s.!?;,]|[.!?;,](?=\S))"
PASSWORD_GIVEN = re.compile(
    rf"(?P<lead>{_LABEL_STARTS}(?:{_GIVEN})\s*(?:now\s+|still\s+|just\s+)?)"
    r"(?P<secret>(?![\[(])(?:"
    r"\"[^\"\n]{1,200}+\"|'[^'\n]{1,200}+'|`[^`\n]{1,200}+`"  # quoted: to its closing quote
    rf"|{_IN_CLAUSE}++(?:[ \t]++{_IN_CLAUSE}++)*+"  # else to the end of the clause
    r"))",
    re.IGNORECASE,
)
# "the password hunter2x", "PIN 4821": no separator, so only a value that cannot be a word
PASSWORD_BARE = re.compile(
    rf"{_LABEL_STARTS}(?P<word>{_LABELS})\s+(?P<secret>[\"'`]?[^\s\"'`\[]{{4,}}[\"'`]?)",
    re.IGNORECASE,
)


# the first words of what describes a password rather than gives one ("the password is too short",
# "Das Passwort ist falsch"), by language
_DESCRIBING_WORDS = {
    "en": "the a an not no never too very so also only your my his her their our its it it's this "
    "that in on at for to from with by under same different required needed mandatory optional "
    "wrong incorrect invalid expired missing empty blank case-sensitive stored saved kept "
    "encrypted hashed set sent changed reset shown hidden printed written generated weak strong "
    "long short secure",
    "de": "der die das ein eine nicht zu falsch erforderlich abgelaufen ungültig gespeichert "
    "geändert leer",
    "fr": "le la les un une pas trop incorrect requis obligatoire expiré invalide vide",
    "es": "el la los un una no demasiado incorrecta obligatoria requerida caducada inválida",
    "it": "il lo la un una non troppo errata sbagliata obbligatoria scaduta",
    "nl": "de het een niet te onjuist verplicht verlopen ongeldig",
    "pt": "o a os um uma não muito incorreta obrigatória expirada inválida",
    "pl": "nie za nieprawidłowe wymagane błędne",
}
_DESCRIBING = frozenset(word for words in _DESCRIBING_WORDS.values() for word in words.split())
# and the words that describe it alone ("the password is correct", "Das Passwort ist geheim")
_DESCRIBING_ALONE = frozenset(
    ["correct", "right", "valid", "fine", "ok", "okay", "secret", "geheim"]
)
_PIN_WORDS = frozenset(["pin", "pincode", "pinnumber", "codepin"])


def password_ok(match: re.Match[str]) -> bool:
    """A value given after a label: not a description of the password, nor a marker."""
    value = match.group("secret").strip("\"'`").rstrip(".,;!?)").lower()
    words = value.split()
    if len(value) < 3 or "redacted" in value or words[0] in _DESCRIBING:
        return False
    return len(words) > 1 or value not in _DESCRIBING_ALONE


def bare_password_ok(match: re.Match[str]) -> bool:
    """A value right after its label: 4 to 8 digits after PIN, else letters with digits."""
    value = match.group("secret").strip("\"'`").rstrip(".,;!?)")
    if "".join(match.group("word").lower().split()) in _PIN_WORDS:
        return value.isdigit() and 4 <= len(value) <= 8
    return any(c.isdigit() for c in value) and any(not c.isdigit() for c in value)
