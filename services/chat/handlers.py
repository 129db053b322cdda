"""The chat service's one subscriber: accept a request at once, answer it in the background."""

import asyncio
import logging

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.chat.answering import start_answer
from shared.bus import LoopContext
from shared.contracts import ChatAccepted, ChatRequest, Request

logger = logging.getLogger(__name__)
router = NatsRouter()
# answers still being written; kept so they are not garbage-collected mid-way
_running: set[asyncio.Task[None]] = set()


@router.subscriber(Request.CHAT.value, queue="chat")
async def on_chat_request(
    request: ChatRequest,
    pool: asyncpg.Pool = LoopContext("pool"),
    broker: NatsBroker = LoopContext("broker"),
) -> ChatAccepted:
    """Reply ChatAccepted; the answer streams on chat.stream.<request_id>."""
    task = await start_answer(broker, pool, request)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return ChatAccepted(request_id=request.request_id)
