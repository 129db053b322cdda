"""Model providers: one small interface per role (base.py), implementations beside it."""
