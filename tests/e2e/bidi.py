"""A minimal WebDriver BiDi client for Debian's Firefox ESR, which Playwright cannot drive (its
Firefox support wants a patched build, and its BiDi path asks ESR for commands it lacks)."""

import asyncio
import base64
import itertools
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import websockets

from shared.launcher.embedded import free_port


def firefox_path() -> str | None:
    return (
        os.environ.get("ARTISAN_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    )


class Firefox:
    """One browsing context of a headless Firefox, driven over its BiDi WebSocket."""

    def __init__(self, socket: websockets.ClientConnection, context: str) -> None:
        self._socket, self._context, self._ids = socket, context, itertools.count(1)

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        command_id = next(self._ids)
        await self._socket.send(json.dumps({"id": command_id, "method": method, "params": params}))
        while True:  # events arrive on the same socket; only our answer matters here
            message = json.loads(await self._socket.recv())
            if message.get("id") == command_id:
                if message.get("type") == "error":
                    raise RuntimeError(f"{method}: {message.get('message')}")
                return message["result"]

    async def goto(self, url: str) -> None:
        params = {"context": self._context, "url": url, "wait": "complete"}
        await self.call("browsingContext.navigate", params)

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises are awaited)."""
        target = {"context": self._context}
        params = {"expression": expression, "target": target, "awaitPromise": True}
        result = await self.call("script.evaluate", params)
        if result.get("type") == "exception":
            raise AssertionError(result["exceptionDetails"]["text"])
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 20) -> Any:
        """Poll until the expression is truthy; its value."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not (value := await self.evaluate(expression)):
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"not true after {timeout} s: {expression}")
            await asyncio.sleep(0.1)
        return value

    async def screenshot(self, path: Path) -> None:
        shot = await self.call("browsingContext.captureScreenshot", {"context": self._context})
        await asyncio.to_thread(path.write_bytes, base64.b64decode(shot["data"]))


@asynccontextmanager
async def launch_firefox(executable: str) -> AsyncIterator[Firefox]:
    port = free_port()
    profile = tempfile.mkdtemp(prefix="artisan-firefox-")
    command = [executable, "--headless", "--no-remote", "--profile", profile]
    command += ["--remote-debugging-port", str(port), "--width", "1440", "--height", "900"]
    quiet = asyncio.subprocess.DEVNULL
    process = await asyncio.create_subprocess_exec(*command, stdout=quiet, stderr=quiet)
    try:
        socket = await _connect(f"ws://127.0.0.1:{port}/session")
        async with socket:
            browser = Firefox(socket, "")
            await browser.call("session.new", {"capabilities": {}})
            tree = await browser.call("browsingContext.getTree", {})
            yield Firefox(socket, tree["contexts"][0]["context"])
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)
        shutil.rmtree(profile, ignore_errors=True)


async def _connect(url: str, seconds: float = 30) -> websockets.ClientConnection:
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            return await websockets.connect(url, max_size=2**26)
        except OSError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.2)
