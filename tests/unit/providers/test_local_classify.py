"""Local classifier: reflections and decisions are strategic, data and records are factual."""

import pytest

from shared.domain import ChunkType, FileType
from shared.providers.local import LocalClassifier
from shared.providers.local.classify import (
    classify_chunk_text,
    classify_file_text,
    factual_signal,
    strategic_signal,
)
from tests.fixtures import documents
from tests.fixtures.transcripts import interview_transcript

MEETING = """Weekly leadership sync — notes

Maria: I think we should stop chasing enterprise logos for now. Every deal we lost last
quarter stalled in security review, and we don't have the people to get through it.

Tom: I agree, but if we walk away completely we lose the pipeline we spent a year building.
What if we keep two design partners and pause everything else?

Maria: That works for me. Let's decide by Friday, because the hiring plan depends on it.
My worry is that the team reads this as a retreat, so we need to explain the reasoning.

Decision: we focus on mid-market until the SOC 2 audit is done. Tom owns the message to
the team, and we revisit the enterprise question in the next planning cycle.
"""

STRATEGY_MEMO = """Why we are pivoting to B2C

Looking back, our biggest mistake was believing that procurement teams would move at our
speed. I learned that the product was strongest when an individual could try it alone.
So we chose to rebuild onboarding for individual users first. The risk is real: we give
up larger contracts. But I would rather own a smaller market we understand than keep
guessing what a committee wants. My advice to the team is to judge every feature by
whether a single person can get value from it on day one.
"""

FINANCIAL_REPORT = """Consolidated results, fiscal year 2024

| Segment      | FY2023 revenue | FY2024 revenue | Change |
|--------------|----------------|----------------|--------|
| Subscription | $41.2M         | $48.9M         | +18.7% |
| Services     | $6.3M          | $5.8M          | -7.9%  |
| Hardware     | $2.1M          | $1.4M          | -33.3% |

Gross margin increased to 74.1% from 71.6%. Operating expenses totaled $39.5M, of which
research and development accounted for $17.2M (43.5%). Headcount was 412 on 31 December 2024
compared to 388 a year earlier. Net revenue retention was 112% (2023: 108%) [3].

Deferred revenue is defined as billings for which service has not yet been delivered.
"""

SERVER_LOG = "\n".join(
    f"2024-06-0{day} 0{hour}:1{hour}:07 {level} api-{hour} request_id=ab{day}{hour} "
    f"latency_ms={120 + 7 * hour} status={200 if level == 'INFO' else 503}"
    for day in range(1, 6)
    for hour, level in enumerate(["INFO", "INFO", "WARN", "ERROR", "INFO"])
)

MIXED_REPORT = f"""Market entry: Germany

{FINANCIAL_REPORT}

Recommendation

I recommend that we enter Germany through a partner rather than a direct sales team. We
learned in France that hiring locally before we had references cost us a year. We should
pick one partner, agree on a six-month pilot, and decide on a local office only if the pilot
converts. The main risk is that the partner prioritises a competitor, so we need exclusivity
in the first year. If I were in your seat I would start the conversation this month, because
the budget cycle of our target customers closes in October and waiting means losing a year.
"""


@pytest.mark.parametrize("text", [MEETING, STRATEGY_MEMO, documents.STRATEGY_MEMO])
def test_reflections_and_decisions_are_strategic(text: str) -> None:
    assert strategic_signal(text) > factual_signal(text)
    assert classify_chunk_text(text) == ChunkType.STRATEGIC
    assert classify_file_text(text) == FileType.STRATEGIC


@pytest.mark.parametrize("text", [FINANCIAL_REPORT, SERVER_LOG, documents.QUARTERLY_FACTS])
def test_data_tables_and_logs_are_factual(text: str) -> None:
    assert factual_signal(text) > strategic_signal(text)
    assert classify_chunk_text(text) == ChunkType.FACTUAL
    assert classify_file_text(text) == FileType.FACTUAL


def test_key_value_records_are_factual_not_speaker_turns() -> None:
    text = (
        "Region: EMEA\nRevenue: 4.2M in FY2024\nGrowth: 16% year over year\n"
        "Customers: 412 active accounts\nOwner: Sales team Europe\n"
    )
    assert strategic_signal(text) == 0
    assert classify_chunk_text(text) == ChunkType.FACTUAL


def test_plain_descriptive_prose_is_factual() -> None:
    text = (
        "Photosynthesis is the process by which plants convert light energy into chemical "
        "energy. It takes place in the chloroplasts, which contain the pigment chlorophyll."
    )
    assert classify_chunk_text(text) == ChunkType.FACTUAL


def test_a_document_with_both_kinds_is_mixed_and_its_parts_differ() -> None:
    assert classify_file_text(MIXED_REPORT) == FileType.MIXED
    table_part, advice_part = MIXED_REPORT.split("Recommendation")
    assert classify_chunk_text(table_part) == ChunkType.FACTUAL
    assert classify_chunk_text(advice_part) == ChunkType.STRATEGIC


def test_a_few_numbers_do_not_make_a_conversation_factual() -> None:
    text = (
        "BOSS: Is 14% a realistic target for enterprise sales, or am I kidding myself? "
        "We have about $4.5M set aside, and I need to make a call by the end of the month."
    )
    assert classify_chunk_text(text) == ChunkType.STRATEGIC


def test_interview_transcript_is_strategic() -> None:
    assert classify_file_text(interview_transcript()) == FileType.STRATEGIC


def test_empty_text_is_factual_by_default() -> None:
    assert classify_chunk_text("") == ChunkType.FACTUAL
    assert classify_file_text("   \n") == FileType.FACTUAL


async def test_local_classifier_implements_the_interface() -> None:
    classifier = LocalClassifier()
    assert await classifier.classify_file(MIXED_REPORT) == FileType.MIXED
    assert await classifier.classify_chunk(MEETING) == ChunkType.STRATEGIC
    assert await classifier.classify_chunk(SERVER_LOG) == ChunkType.FACTUAL
