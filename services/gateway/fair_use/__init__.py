"""Fair use: per-user request budgets, invalid-key limits per address and held SSE streams."""
