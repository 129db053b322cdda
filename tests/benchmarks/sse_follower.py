"""A separate SSE client process for the ingestion benchmark, as a real client would be.

Follows GET /v1/events until `count` files have settled and prints one JSON line per event:
{"file_id", "status", "stage", "committed", "received", "delay"}: committed = the row's
updated_at, set when the step's UPDATE ran (its last statement, just before the commit); received
= wall clock; delay = the two apart.
"""

import json
import sys
import time
from datetime import datetime

import httpx


def follow(url: str, api_key: str, count: int) -> None:
    settled: set[str] = set()
    headers = {"Authorization": f"Bearer {api_key}"}
    with httpx.stream("GET", f"{url}/v1/events", headers=headers, timeout=None) as response:
        print(json.dumps({"connected": True}), flush=True)
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue
            received = time.time()
            event = json.loads(line[5:])
            committed = datetime.fromisoformat(event["updated_at"]).timestamp()
            record = {
                "file_id": event["file_id"],
                "status": event["status"],
                "stage": event["stage"],
                "committed": committed,
            }
            print(json.dumps({**record, "received": received, "delay": received - committed}))
            if event["status"] in ("ready", "failed"):
                settled.add(event["file_id"])
                if len(settled) >= count:
                    return


if __name__ == "__main__":
    follow(sys.argv[1], sys.argv[2], int(sys.argv[3]))
