"""`SkillCatalog`: the skills an agent serves, answering the skills extension's methods (`skills/list`,
`skills/get`, `resources/directory/read`) and reading their files as resources.

Every `SKILL.md` is listed by `resources/list` (named and described from its front matter); a skill's
other files are not listed there but read by URI (a skill entry names each one). Directory resources
(`inode/directory`) are the folders holding served files: each skill's root, its subfolders and the
folders of a skill path's prefix. Lookups are by exact URI in what was read at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from ..protocol.features import FeatureRequestError
from ..resources.contents import blob_contents, is_text_type, text_contents
from .loading import SCHEME, Skill, SkillFile

__all__ = ["DIRECTORY", "PAGE_SIZE", "SkillCatalog"]

DIRECTORY = "inode/directory"
PAGE_SIZE = 100


class SkillCatalog:
    """The skills found at start-up, by URI, with their files and folders."""

    template_count = 0

    def __init__(self, skills: Sequence[Skill], *, page_size: int = PAGE_SIZE) -> None:
        self.skills = tuple(skills)
        self.page_size = page_size
        self._by_uri = {skill.uri: skill for skill in self.skills}
        self._files: dict[str, SkillFile] = {}
        self._children: dict[str, dict[str, dict[str, Any]]] = {}  # directory URI -> child URI -> resource
        for skill in self.skills:
            for file in skill.files:
                self._files.setdefault(file.uri, file)
                self._add_to_tree(file)
        self._descriptors = [
            {"uri": s.uri, "name": s.name, "description": s.description, "mimeType": "text/markdown"}
            for s in self.skills
        ]

    def _add_to_tree(self, file: SkillFile) -> None:
        child_uri, child = file.uri, _resource(file.uri, file.name, file.mime_type, file.size)
        while True:
            parent = child_uri.rsplit("/", 1)[0]
            if parent == child_uri or len(parent) <= len(SCHEME):
                return  # above the authority: the scheme's root is no directory
            self._children.setdefault(parent, {})[child_uri] = child
            name = parent.rsplit("/", 1)[-1] if parent.count("/") > 2 else parent[len(SCHEME) :]
            child_uri, child = parent, _resource(parent, unquote(name), DIRECTORY)

    def __len__(self) -> int:
        return len(self.skills)

    # -- resources ---------------------------------------------------------------------------------

    def descriptors(self) -> list[dict[str, Any]]:
        """`resources/list`: every skill's SKILL.md."""
        return self._descriptors

    def template_descriptors(self) -> list[dict[str, Any]]:
        return []

    async def read(self, uri: Any) -> dict[str, Any] | None:
        """`resources/read` of a skill's file; None for a URI that is no file of a skill (the app's
        resources answer it), a clear error for a directory."""
        if not isinstance(uri, str):
            return None
        file = self._files.get(uri)
        if file is None:
            if uri in self._children:
                raise FeatureRequestError(
                    f"{uri} is a directory resource: read its files, or list them with "
                    "resources/directory/read",
                    uri=uri,
                )
            return None
        if is_text_type(file.mime_type):
            try:
                return {"contents": [text_contents(uri, file.data.decode("utf-8"), file.mime_type)]}
            except UnicodeDecodeError:
                pass
        return {"contents": [blob_contents(uri, file.data, file.mime_type)]}

    # -- the skills extension's methods --------------------------------------------------------------

    def list_skills(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """`skills/list`: the entries of one page (a skill's entry is never split)."""
        start = self._cursor(params, len(self.skills), "skills/list")
        end = start + self.page_size
        result: dict[str, Any] = {"skills": [s.entry() for s in self.skills[start:end]]}
        if end < len(self.skills):
            result["nextCursor"] = str(end)
        return result

    def get_skill(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """`skills/get`: the entry of the skill whose SKILL.md is `params.uri`."""
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise FeatureRequestError("skills/get needs params.uri, the URI of a skill's SKILL.md")
        skill = self._by_uri.get(uri)
        if skill is None:
            served = ", ".join(s.uri for s in self.skills[:5]) or "none"
            more = f" (and {len(self.skills) - 5} more)" if len(self.skills) > 5 else ""
            raise FeatureRequestError(
                f"No skill is served at {uri}; skills/list shows the skills this agent serves: "
                f"{served}{more}",
                uri=uri,
            )
        return {"skill": skill.entry()}

    def read_directory(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """`resources/directory/read`: the direct children of a directory resource, one page."""
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise FeatureRequestError("resources/directory/read needs params.uri, the URI of a directory")
        children = self._children.get(uri)
        if children is None:
            what = "is a file, not a directory resource" if uri in self._files else "is no directory resource"
            raise FeatureRequestError(
                f"{uri} {what} of this agent; a skill's directory is its SKILL.md URI without /SKILL.md",
                uri=uri,
            )
        listed = [children[key] for key in sorted(children)]
        start = self._cursor(params, len(listed), "resources/directory/read")
        end = start + self.page_size
        result: dict[str, Any] = {"resources": listed[start:end]}
        if end < len(listed):
            result["nextCursor"] = str(end)
        return result

    @staticmethod
    def _cursor(params: Mapping[str, Any], total: int, method: str) -> int:
        cursor = params.get("cursor")
        if cursor is None:
            return 0
        if not isinstance(cursor, str) or not cursor.isdigit() or int(cursor) > total:
            raise FeatureRequestError(
                f"{method}: params.cursor {cursor!r} is no cursor this agent gave; send the nextCursor of "
                "the previous page, or none for the first"
            )
        return int(cursor)


def _resource(uri: str, name: str, mime_type: str, size: int | None = None) -> dict[str, Any]:
    resource: dict[str, Any] = {"uri": uri, "name": name, "mimeType": mime_type}
    if size is not None:
        resource["size"] = size
    return resource
