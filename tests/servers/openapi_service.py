"""An HTTP service for the OpenAPI tools' tests: a FastAPI app serving its own OpenAPI 3.1 document at
/openapi.json (pets), plus the routes a static OpenAPI 3.0 document describes (openapi/shop.yaml; left
out of the app's own document). Answers echo what arrived, so tests see how a request was written.

Usage: python -m tests.servers.openapi_service PORT
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import uvicorn
from fastapi import Body, Cookie, FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

app = FastAPI(title="Pets", version="1.0.0")

PETS: dict[int, dict[str, Any]] = {1: {"id": 1, "name": "Rex", "kind": "dog"}}


class NewPet(BaseModel):
    name: str
    kind: str = "cat"


@app.get("/pets/{pet_id}", operation_id="get_pet", tags=["pets"], summary="One pet by its id")
async def get_pet(pet_id: int) -> dict[str, Any]:
    if pet_id not in PETS:
        raise HTTPException(404, f"no pet {pet_id}")
    return PETS[pet_id]


@app.get("/pets", operation_id="list_pets", tags=["pets"], description="Every pet, at most `limit`.")
async def list_pets(
    limit: int = 10, kind: Annotated[list[str] | None, Query()] = None
) -> list[dict[str, Any]]:
    pets = [p for p in PETS.values() if kind is None or p["kind"] in kind]
    return pets[:limit]


@app.post("/pets", operation_id="create_pet", tags=["pets"], status_code=201)
async def create_pet(pet: NewPet) -> dict[str, Any]:
    pet_id = max(PETS) + 1
    PETS[pet_id] = {"id": pet_id, **pet.model_dump()}
    return PETS[pet_id]


@app.delete("/pets/{pet_id}", operation_id="delete_pet", tags=["pets"], status_code=204)
async def delete_pet(pet_id: int) -> Response:
    PETS.pop(pet_id, None)
    return Response(status_code=204)


@app.get("/greeting", operation_id="greeting", tags=["misc"], response_class=PlainTextResponse)
async def greeting(name: str) -> str:
    return f"hello {name}"


@app.get("/whoami", operation_id="whoami", tags=["misc"])
async def whoami(request: Request) -> dict[str, Any]:
    return {k: request.headers.get(k) for k in ("authorization", "x-api-key")}


@app.post("/explode", operation_id="explode", tags=["admin"])
async def explode() -> None:
    raise RuntimeError("database exploded")


@app.post("/notes", operation_id="add_note", tags=["misc"])
async def add_note(text: Annotated[str, Body(media_type="text/plain")]) -> dict[str, Any]:
    return {"note": text}


# The routes openapi/shop.yaml (OpenAPI 3.0) describes: not in the app's own document.
@app.get("/shop/orders/{order_id}", include_in_schema=False)
async def get_order(order_id: int, request: Request, x_tenant: Annotated[str, Header()]) -> dict[str, Any]:
    return {"id": order_id, "tenant": x_tenant, "query": request.url.query, "item": "tea", "quantity": 1}


@app.post("/shop/orders", include_in_schema=False, status_code=201)
async def add_order(request: Request) -> dict[str, Any]:
    return {"received": await request.json(), "content_type": request.headers.get("content-type")}


@app.get("/shop/orders", include_in_schema=False)
async def search_orders(request: Request, session: Annotated[str | None, Cookie()] = None) -> dict[str, Any]:
    return {"query": request.url.query, "session": session}


@app.post("/shop/admin/reset", include_in_schema=False)
async def reset() -> dict[str, Any]:
    return {"reset": True}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
