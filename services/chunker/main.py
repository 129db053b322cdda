"""Entry point of the chunker service."""

from services.chunker.handlers import router
from shared.service import run_service


def main() -> None:
    run_service("chunker", router)


if __name__ == "__main__":
    main()
