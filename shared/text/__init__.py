"""The one text toolkit: words and stems, sentences, spans and lines, tokens, citations."""
