"""A served FastAPI app with a lifespan of its own: it opens a "connection" at start-up (given to its
requests as `request.state`) and logs when it starts and stops."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request

from mesh_framework import mesh_agent
from mesh_framework.fastapi import serve

logger = logging.getLogger("fastapi_lifespan_app")


@mesh_agent(name="inventory", version="1.0.0")
class Inventory:
    pass


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
    logger.info("inventory lifespan: started")
    yield {"connection": "db-1"}
    logger.info("inventory lifespan: stopped")


api = serve(FastAPI(lifespan=lifespan), path="/inv")


@api.get("/connection")
def connection(request: Request) -> dict[str, str]:
    return {"connection": request.state.connection}
