"""Entry point of the chat service (run several: they share the `chat` queue group)."""

from services.chat.handlers import router
from shared.service import run_service


def main() -> None:
    run_service("chat", router)


if __name__ == "__main__":
    main()
