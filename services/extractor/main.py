"""Entry point of the extractor service."""

from services.extractor.handlers import router
from shared.service import run_service


def main() -> None:
    run_service("extractor", router)


if __name__ == "__main__":
    main()
