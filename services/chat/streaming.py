"""An answer's pieces on their way to the asker: cleaned of remote images and links first
(answer_links.py: what a client renders must fetch nothing), then their citation markers
numbered 1…n (StreamedMarkers), each sent as a `token` event."""

from collections.abc import AsyncIterator

from faststream.nats import NatsBroker

from services.chat.answer_links import AnswerLinks
from shared.contracts import ChatStreamEvent
from shared.text.citations import StreamedMarkers
from shared.text.words import word_pieces


async def send_tokens(
    broker: NatsBroker,
    subject: str,
    pieces: AsyncIterator[str],
    markers: StreamedMarkers,
    links: AnswerLinks,
) -> str:
    """Stream the pieces cleaned, with their markers numbered 1…n; the draft as the asker saw
    it, before numbering (what call 1B checks)."""
    written = []
    async for piece in pieces:
        cleaned = links.feed(piece)
        written.append(cleaned)
        await _send(broker, subject, markers.feed(cleaned))
    rest = links.flush()
    written.append(rest)
    await _send(broker, subject, markers.feed(rest) + markers.flush())
    return "".join(written)


async def _send(broker: NatsBroker, subject: str, text: str) -> None:
    if text:
        await broker.publish(ChatStreamEvent(type="token", text=text), subject)


async def pieces_of(text: str) -> AsyncIterator[str]:
    for piece in word_pieces(text):
        yield piece
