"""/v1/journal routes (being built for issue 4)."""

from fastapi import APIRouter

router = APIRouter(tags=["journal"])
