"""A separate NATS client for the ingestion benchmark: the progress events as they leave the bus,
before the gateway, so an event's SSE delay splits into the worker's part and the gateway's.

Subscribes to the user's progress subjects until `count` files have settled and prints one JSON
line per event: {"file_id", "updated_at", "received"} (received = wall clock).
"""

import asyncio
import json
import sys
import time

import nats

from shared.config import InfraSettings
from shared.contracts import ProgressEvent, progress_wildcard


async def follow(url: str, user_id: str, count: int) -> None:
    token = InfraSettings().nats_token
    client = await nats.connect(url, token=token.get_secret_value() if token else None)
    settled: set[str] = set()
    done = asyncio.Event()

    async def on_event(msg: nats.aio.msg.Msg) -> None:
        received = time.time()
        event = ProgressEvent.model_validate_json(msg.data)
        line = {"file_id": str(event.file_id), "updated_at": event.updated_at.isoformat()}
        print(json.dumps({**line, "received": received}), flush=True)
        if event.status in ("ready", "failed"):
            settled.add(line["file_id"])
            if len(settled) >= count:
                done.set()

    await client.subscribe(progress_wildcard(user_id), cb=on_event)
    await client.flush()
    print(json.dumps({"connected": True}), flush=True)
    await done.wait()
    await client.close()


if __name__ == "__main__":
    asyncio.run(follow(sys.argv[1], sys.argv[2], int(sys.argv[3])))
