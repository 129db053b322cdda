"""Model roles served by any chat model that answers validated JSON (the `ChatModel` protocol).

Each role renders its prompt from `prompts/`, asks `chat.complete_json` for a pydantic answer and
maps it to the role's return type, fixing in code what a model commonly gets slightly wrong.
"""

from shared.providers.llm.artisan_cut import LLMCompressor, LLMVerifier
from shared.providers.llm.chunking import LLMChunker
from shared.providers.llm.classify import LLMClassifier
from shared.providers.llm.summarise import LLMSummariser

__all__ = ["LLMChunker", "LLMClassifier", "LLMCompressor", "LLMSummariser", "LLMVerifier"]
