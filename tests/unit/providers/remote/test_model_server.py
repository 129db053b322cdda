"""The fake model server itself: plain HTTP from sync code and from another OS process."""

import json
import subprocess
import sys

import httpx

from tests.fakes.model_server import FakeModelServer

_CLIENT_SCRIPT = """
import json, sys, urllib.request
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
request = urllib.request.Request(sys.argv[1] + "/chat/completions", body,
                                 {"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(request))["choices"][0]["message"]["content"])
"""


def test_sync_callers_get_scripted_faults_in_order_then_the_responder() -> None:
    with FakeModelServer(responder=lambda request: '{"ok": true}') as server:
        server.fail_with(503)
        server.reply_raw("not json")
        url = f"{server.base_url}/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        answers = [httpx.post(url, json=body) for _ in range(3)]

    assert answers[0].status_code == 503 and "detail" in answers[0].json()
    contents = [a.json()["choices"][0]["message"]["content"] for a in answers[1:]]
    assert contents == ["not json", '{"ok": true}']
    assert answers[2].json()["usage"]["total_tokens"] > 0
    assert len(server.chat_requests) == 3


def test_another_process_can_call_it() -> None:
    with FakeModelServer(responder=lambda request: '{"from": "fake"}') as server:
        result = subprocess.run(
            [sys.executable, "-c", _CLIENT_SCRIPT, server.base_url],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    assert json.loads(result.stdout) == {"from": "fake"}


def test_embeddings_come_as_plain_floats_unless_base64_is_asked_for() -> None:
    with FakeModelServer() as server:
        payload = {"model": "text-embedding-3-small", "input": ["a", "b"], "dimensions": 8}
        answer = httpx.post(f"{server.base_url}/embeddings", json=payload).json()
    assert [item["index"] for item in answer["data"]] == [0, 1]
    assert all(len(item["embedding"]) == 8 for item in answer["data"])
    assert answer["usage"]["prompt_tokens"] == answer["usage"]["total_tokens"] > 0
