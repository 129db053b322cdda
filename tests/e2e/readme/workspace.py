"""The files the README's tour works on, as a newcomer would have them beside the checkout."""

from pathlib import Path

from shared.config import REPO_ROOT
from tests.fixtures import documents
from tests.fixtures.meeting_transcript import STANDUP_TRANSCRIPT
from tests.fixtures.transcripts import interview_transcript

PRICING_DECISION = """# Pricing decision: per-seat to usage-based

Decided at the leadership sync on 2026-03-02.

We move every plan from per-seat pricing to usage-based tiers from April, because our
largest customers kept asking for predictable bills.

We rejected a freemium tier because support costs would grow faster than conversions.

Small teams keep a starter tier with a fixed monthly price.
"""

Q2_METRICS = """Q2 METRICS

Revenue grew 18% quarter over quarter, to $4.2M.
Gross margin was 71%, down one point because of higher hosting costs.
Net revenue retention was 104%.
Logo churn among small teams rose to 3.1% a month.
"""

HIRING_PLAN = """# Hiring plan for the second half

We will hire two backend engineers and one customer success manager before October.
Recruiting starts in July; the budget was approved at the June board meeting.
"""

BOARD_MEMO = [
    "Board memo: we chose to expand into Germany first.",
    "Reason: 40% of inbound demand comes from DACH.",
]

PLAN = """# Launch plan

We launch the usage tiers on April 1.
Support will staff a launch desk for the first two weeks.
"""

SYNCED_NOTE = "Standup notes: the billing migration is on track for March 20.\n"
UPLOAD_LIMIT = 10 * 1024 * 1024  # the default ARTISAN_MAX_UPLOAD_BYTES


def write_workspace(checkout: Path, home: Path) -> None:
    """`my-notes/` (the folder the tour uploads), the single files it names, `~/notes`, and the
    documentation site."""
    for part in ("docs", "mkdocs.yml"):  # the documentation site, as a checkout has it
        (checkout / part).symlink_to(REPO_ROOT / part)
    notes = checkout / "my-notes"
    (notes / "q2").mkdir(parents=True)
    (notes / "expert-interview.md").write_text(interview_transcript())
    (notes / "pricing-decision.md").write_text(PRICING_DECISION)
    (notes / "hiring-plan.md").write_text(HIRING_PLAN)
    (notes / "q2" / "q2-metrics.txt").write_text(Q2_METRICS)
    (notes / "q2" / "board.pdf").write_bytes(documents.pdf(BOARD_MEMO))
    (checkout / "plan.md").write_text(PLAN)
    (checkout / "weekly-sync.txt").write_text(STANDUP_TRANSCRIPT)
    with (checkout / "big.txt").open("w") as big:
        line = "A line of a log that is far too long to upload in one piece.\n"
        big.write(line * (UPLOAD_LIMIT // len(line) + 1))
    (home / "notes").mkdir()
    (home / "notes" / "standup.md").write_text(SYNCED_NOTE)
