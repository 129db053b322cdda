"""Which check runs each command the README and the guides show. A command a page gains without a
check here fails the suite (tests/unit/test_readme_commands.py), and so does a check whose command
no page shows any more."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.e2e.readme import (
    checks_chat,
    checks_cli,
    checks_docs,
    checks_files,
    checks_system,
    checks_users,
)
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour


@dataclass(frozen=True)
class Check:
    pattern: str  # the whole command, as the README shows it
    run: Callable[[Tour, Shown], None]
    template: bool = False  # a synopsis from the command table, run with concrete arguments

    def matches(self, shown: Shown) -> bool:
        return self.template == shown.template and bool(re.fullmatch(self.pattern, shown.command))


CURL = r'curl (-X \w+ |-\w+ )*(-H "[^"]+" )+'
COMMANDS = [
    Check(
        r"python3 -m venv \.venv && \.venv/bin/pip install -e \. && .* && \.venv/bin/artisan up",
        checks_system.quickstart,
    ),
    Check(r"python3 -m venv \.venv && .* && \.venv/bin/pytest", checks_system.test_command),
    Check(r"\.venv/bin/artisan up", checks_system.the_banner),
    Check(
        r'\.venv/bin/pip install -q -e "\.\[docs\]" && '
        r"\.venv/bin/mkdocs serve -a 127\.0\.0\.1:8001",
        checks_docs.docs_site,
    ),
    Check(r"\.venv/bin/artisan upload my-notes", checks_files.upload_folder),
    Check(r"\.venv/bin/artisan files", checks_files.list_files),
    Check(CURL + r"localhost:8000/v1/files/\S+/chunks", checks_files.file_chunks),
    Check(CURL + r"localhost:8000/v1/files/\S+/events", checks_files.file_events),
    Check(CURL + r'-F "files=@[^"]+" localhost:8000/v1/files', checks_files.refused_upload),
    Check(r"\.venv/bin/artisan chat --persona \w+", checks_chat.chat),
    Check(r'\.venv/bin/artisan ask "[^"]+"', checks_chat.ask),
    Check(
        CURL + r"""-d '\{"persona": "\w+", "message": "[^"]+"\}' localhost:8000/v1/chat""",
        checks_chat.chat_api,
    ),
    Check(CURL + r"localhost:8000/v1/memory", checks_chat.memory),
    Check(CURL + r'"localhost:8000/v1/context/preview\?[^"]+"', checks_chat.context_preview),
    Check(
        CURL + r"-F files=@\S+ http://127\.0\.0\.1:8000/v1/files/FILE_ID",
        checks_files.update_by_put,
    ),
    Check(r"artisan upload plan\.md", checks_files.update_by_upload),
    Check(r"artisan sync ~/notes", checks_files.sync_folder),
    Check(r"[A-Z]+=\$\(.+\)", checks_chat.assign),
    Check(
        CURL + r'-d ".*Summarise this meeting.*" http://127\.0\.0\.1:8000/v1/chat',
        checks_chat.meeting_summary,
    ),
    Check(r"ARTISAN_WEATHER_TOOL=true \.venv/bin/artisan up", checks_chat.weather_up),
    Check(
        CURL + r"-d '.*weather in .*' http://127\.0\.0\.1:8000/v1/chat",
        checks_chat.weather_question,
    ),
]
TEMPLATES = [
    Check(
        r"artisan up \[--compressors N\] \[--chunkers N\] \[--embedders N\]"
        r" \[--nats-cluster N\] \[--model FILE\.gguf\]",
        checks_system.up_with_flags,
        True,
    ),
    Check(r"artisan run SERVICE", checks_system.run_one_service, True),
    Check(r"artisan migrate", checks_system.migrate, True),
    Check(r"artisan reembed", checks_system.reembed, True),
    Check(r"artisan users create NAME \[--admin\]", checks_users.create, True),
    Check(r"artisan users admin NAME \[--off\]", checks_users.admin, True),
    Check(r"artisan users list", checks_users.list_users, True),
    Check(r"artisan users revoke NAME", checks_users.revoke, True),
    Check(r"artisan users rotate NAME", checks_users.rotate, True),
    Check(r"artisan upload PATH… \[--new\]", checks_files.upload_as_new, True),
    Check(r"artisan sync DIR", checks_files.sync_template, True),
    Check(r"artisan files", checks_files.files_template, True),
    Check(r"artisan rm ID", checks_files.remove_file, True),
    Check(r"artisan mcp", checks_cli.mcp, True),
    Check(
        r"artisan chat \[--persona NAME\] \[--new \| --conversation ID\]",
        checks_cli.chat_options,
        True,
    ),
    Check(r"artisan ask QUESTION .*", checks_cli.ask_options, True),
]
CHECKS = COMMANDS + TEMPLATES


def check_for(shown: Shown) -> Check:
    matching = [check for check in CHECKS if check.matches(shown)]
    assert len(matching) == 1, f"{len(matching)} checks for `{shown.command}`: {matching}"
    return matching[0]
