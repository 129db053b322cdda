"""Whether a message asks for a document made from its attached files ("summarise this
meeting", "minutes of the attached call", "list the action items").

Such a message is answered by the document tool, which reads the files itself: the prompt then
carries the attachments as `[Attached: name]` references only (seed 004). By form, linear time.
"""

import re

# a meeting's own documents, asked for by name
_MEETING_DOCUMENT = re.compile(r"\b(minutes|action items|meeting notes)\b", re.IGNORECASE)
# a summary or recap, of a meeting: "summarise this document" is an answer, not a document
_SUMMARY = re.compile(r"\b(summar(?:y|ies|ise|ize)|recap)\b", re.IGNORECASE)
_MEETING = re.compile(
    r"\b(meetings?|calls?|transcripts?|interviews?|syncs?|stand-?ups?|1:1s?)\b", re.IGNORECASE
)


def asks_for_document(message: str) -> bool:
    if _MEETING_DOCUMENT.search(message):
        return True
    return bool(_SUMMARY.search(message) and _MEETING.search(message))
