-- Which embedding model made the stored vectors. Vectors of different models (or dimensions)
-- cannot be compared, so a process whose embedder differs refuses to start until
-- `artisan reembed` has re-embedded everything with it.
CREATE TABLE embedding_space (
    singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
    model     TEXT NOT NULL,
    dimension INTEGER NOT NULL
);
