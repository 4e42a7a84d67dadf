"""What the SDK's call context carries for one A2A request: the skill decided for it and its caller.

`admission.admit` leaves both in the ASGI scope (`CALL_SCOPE`); `SkillContextBuilder` puts the skill in
the call context's state (`SKILL_STATE`, read by the executor and the MCP Mesh dialect) and the caller as
the SDK's user, whose `user_name` is the owner the task store keys tasks by (`requests.owner_of`). The
skill runs with that caller (`caller_of`): the one the guard authorized the request for, whatever else
verified the token before it (the edge's verifier may disagree with it, as with a key the one has seen
retired and the other not yet).
"""

from __future__ import annotations

from a2a.auth.user import UnauthenticatedUser, User
from a2a.server.context import ServerCallContext
from a2a.server.routes import DefaultServerCallContextBuilder
from starlette.requests import Request

from ..security.caller import current_access_token
from ..security.verifiers import AccessToken
from .requests import owner_of

__all__ = ["CALL_SCOPE", "SKILL_STATE", "Caller", "SkillContextBuilder", "caller_of"]

SKILL_STATE = "mesh_a2a_skill"  # the call context's state: the skill decided for the request
CALL_SCOPE = "mesh_a2a_call"  # the ASGI scope: (skill decided, verified caller) of the request


class Caller(User):
    """A verified caller as the SDK's user: its `user_name` is the owner the task store keys tasks by."""

    def __init__(self, token: AccessToken) -> None:
        self.token = token
        self.owner = owner_of(token)

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def user_name(self) -> str:
        return self.owner


def caller_of(context: ServerCallContext | None) -> AccessToken | None:
    """The caller a request's skill sees (its `AccessToken`): the one the A2A guard verified, else (no
    guard) the one the agent's edge verified, else None."""
    user = context.user if context is not None else None
    return user.token if isinstance(user, Caller) else current_access_token()


class SkillContextBuilder(DefaultServerCallContextBuilder):
    """The call context of a request `admission.admit` has read: the skill decided for it and its caller."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        skill, _ = request.scope.get(CALL_SCOPE, (None, None))
        context.state[SKILL_STATE] = skill
        return context

    def build_user(self, request: Request) -> User:
        _, caller = request.scope.get(CALL_SCOPE, (None, None))
        return Caller(caller) if caller is not None else UnauthenticatedUser()
