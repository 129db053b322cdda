"""Whether a message asks for a document made from its attached files ("summarise this
meeting", "minutes of the attached call", "list the action items").

Such a message is answered by the document tool, which reads the files itself: the prompt then
carries the attachments as `[Attached: name]` references only (seed 004). By form, linear time.
"""

import re

_DOCUMENT = re.compile(
    r"\b(summar(?:y|ies|ise|ize)|minutes|recap|action items|meeting notes)\b", re.IGNORECASE
)


def asks_for_document(message: str) -> bool:
    return bool(_DOCUMENT.search(message))
