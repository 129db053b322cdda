-- Document length for BM25 ranking of full-text hits: words in the chunk's title and text.
ALTER TABLE file_chunks ADD COLUMN term_count INTEGER GENERATED ALWAYS AS (
    coalesce(array_length(regexp_split_to_array(btrim(title || ' ' || text), '\s+'), 1), 1)
) STORED;
