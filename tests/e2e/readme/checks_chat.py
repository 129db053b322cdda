"""The README's commands that talk to the personas: `artisan chat`, `artisan ask`, the chat API,
memory and the context preview, meeting summaries and the weather tool."""

import json
import re
import time

from tests.e2e.readme.expect import assert_has_shown_keys, assert_shows, done_event, sse_events
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour

YOU = "you> "
# what the tour says it told Gunnar before it looked at memory and the context
TOLD = [
    "I'm the CFO, and I always prefer short answers with the numbers first.",
    "From now on, don't use sports analogies.",
    "Our staging password is Tr0ub4dor&3, keep it handy.",
]


def chat(tour: Tour, shown: Shown) -> None:
    """The questions the README types, answered as it shows, sources and all."""
    asked = [line[len(YOU) :] for line in shown.output.splitlines() if line.startswith(YOU)]
    assert asked, shown.output
    talk = tour.running().shell(shown.command, stdin="\n".join([*asked, "", ""]))
    answers = "\n".join(line for line in shown.output.splitlines() if not line.startswith("you>"))
    assert_shows(answers, talk.stdout)


def ask(tour: Tour, shown: Shown) -> None:
    asked = tour.running().shell(shown.command)
    assert_shows(shown.output, asked.stdout)


def chat_api(tour: Tour, shown: Shown) -> None:
    """Tokens, then one `done` with the answer the README shows and every field it names."""
    printed = tour.running().shell(shown.command).stdout
    events = sse_events(printed)
    done = done_event(printed)
    tokens = "".join(data["text"] for name, data in events if name == "token")
    assert tokens == done["answer"], (tokens, done["answer"])
    shown_done = json.loads(_last_data(shown.output).replace("…", ""))
    assert done["answer"] == shown_done["answer"], done["answer"]
    assert_has_shown_keys(_last_data(shown.output), done)
    assert [c["filename"] for c in done["citations"]] == [
        c["filename"] for c in shown_done["citations"]
    ]


def _last_data(output: str) -> str:
    return [line for line in output.splitlines() if line.startswith("data: ")][-1][6:]


def memory(tour: Tour, shown: Shown) -> None:
    """After telling Gunnar what the README says: the fact it shows, in its words."""
    tour.running()
    with tour.api() as api:
        for message in TOLD:
            response = api.post("/v1/chat", json={"persona": "gunnar", "message": message})
            assert response.status_code == 200, response.text
    printed = json.loads(tour.shell(shown.command).stdout)
    deadline = time.monotonic() + 60  # facts are learned as the turn is journaled
    while not printed["items"] and time.monotonic() < deadline:
        time.sleep(0.5)
        printed = json.loads(tour.shell(shown.command).stdout)
    assert_has_shown_keys(shown.output, printed)
    shown_facts = re.findall(r'"fact":"([^"]+)"', shown.output)
    assert shown_facts and shown_facts == [item["fact"] for item in printed["items"]], printed


def context_preview(tour: Tour, shown: Shown) -> None:
    """Each section the README shows, the instruction in Gunnar's, the password redacted."""
    preview = json.loads(tour.running().shell(shown.command).stdout)
    assert_has_shown_keys(shown.output, preview)
    sections = {section["name"]: section for section in preview["sections"]}
    assert list(sections) == re.findall(r'\{"name":"(\w+)","priority"', shown.output)
    texts = json.dumps(preview)
    assert "use sports analogies" in json.dumps(sections["instructions"]), sections
    assert "[redacted password]" in texts
    assert "Tr0ub4dor" not in texts


def assign(tour: Tour, shown: Shown) -> None:
    """`NAME=$(…)`: the shell keeps the value for the commands after it."""
    name, command = shown.command.split("=", 1)
    value = tour.running().shell(f"printf %s {command}").stdout
    assert value, shown.command
    tour.env[name] = value
    if name == "KEY":
        assert value == tour.key  # the local user's key, as `artisan up` printed it
    if name == "FILE":  # "once the file is ready:"
        [record] = [f for f in tour.wait_until_settled() if f["id"] == value]
        assert record["status"] == "ready", record


def meeting_summary(tour: Tour, shown: Shown) -> None:
    """A meeting summary of the attached file, named in the answer and listed in documents."""
    done = done_event(tour.running().shell(shown.command).stdout)
    with tour.api() as api:
        documents = api.get("/v1/documents").json()["items"]
        [summary] = [d for d in documents if d["file_id"] == tour.env["FILE"]]
        opened = api.get(f"/v1/documents/{summary['id']}").json()
    assert summary["kind"] == "meeting_summary" and summary["title"] in done["answer"], done
    assert opened["items"] and all(item["citation"] for item in opened["items"]), opened


def weather_up(tour: Tour, shown: Shown) -> None:
    """Started with ARTISAN_WEATHER_TOOL=true, every user sees the tool switched on."""
    tour.up(shown.command)
    with tour.api() as api:
        status = api.get("/v1/settings/models/status").json()
    assert status["weather_tool"] is True, status


def weather_question(tour: Tour, shown: Shown) -> None:
    """The answer gives the statistics of the archive's series for Berlin, March 2024."""
    done = done_event(tour.running().shell(shown.command).stdout)
    assert "Berlin" in done["answer"] and "Open-Meteo" in done["answer"], done["answer"]
    [asked] = tour.open_meteo.requests
    assert asked["start_date"] == "2024-03-01" and asked["end_date"] == "2024-03-31", asked
