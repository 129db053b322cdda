"""HTML pages read as a browser shows them: visible text only, whatever the markup's quirks."""

from services.extractor.extract import extract_text


def _text(source: str) -> str:
    return extract_text(source.encode(), "page.html")


def test_text_a_browser_shows_is_kept_and_hidden_text_is_not() -> None:
    source = (
        "<html><head><title>t</title><noscript><p>enable js</p></noscript></head><body>"
        "<p>a <!-- a comment --> b</p><template><p>hidden</p></template>"
        "<svg><text>drawn</text></svg><p>x &lt; y &#8212; z&hellip;</p></body></html>"
    )
    assert _text(source) == "a b\n\nx < y — z…\n"


def test_unclosed_paragraphs_and_list_items_still_break_lines() -> None:
    source = "<p>first<p>second<ul><li>one<li>two</ul><p>a < b, not a tag"
    assert _text(source) == "first\n\nsecond\n\n- one\n- two\n\na < b, not a tag\n"
