"""Skills found in the skill folders (`skills.folders`): every folder holding a `SKILL.md` is a skill, its
path below the skill folder its `<skill-path>` (`skills/acme/refunds/SKILL.md` is
`skill://acme/refunds/SKILL.md`), every file below it one of its files.

Everything is read once, at start-up: the front matter checked, every file's bytes kept with their
SHA-256 digest, so what a client reads is exactly what the listing describes, and a request never
touches the file system (a URI is looked up, never joined to a path). A skill's files stay inside its
folder: a link to a file or folder outside it stops start-up, as do a skill above the limits every host
accepts (512 files, 16 MiB) and a folder name that cannot be part of a URI. Hidden files and folders
(`.name`) and `__pycache__` are left out; links to folders inside the skill are not followed.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from .._frozen import frozen
from ..config.loader import LoadedSettings
from ..errors import display_path
from ..resources.files import guessed_type, sniffed_type
from .frontmatter import SkillFileError, check_frontmatter, read_frontmatter

__all__ = [
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "SCHEME",
    "SKILL_FILE",
    "Skill",
    "SkillFile",
    "find_skill_folders",
    "load_skill_folder",
    "load_skills",
]

SCHEME = "skill://"
SKILL_FILE = "SKILL.md"
MAX_FILES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024
# A folder of a skill path: RFC 3986's unreserved and sub-delims characters (the first one is the URI's
# authority, a `reg-name`).
_SEGMENT = re.compile(r"^[A-Za-z0-9._~!$&'()*+,;=-]+$")
_SAFE = "-._~!$&'()*+,;=:@"  # kept as they are in a file's URI path; the rest is percent-encoded
_SKIPPED = "__pycache__"


@frozen
class SkillFile:
    """One file of a skill: its URI, name, MIME type and bytes, with their digest."""

    uri: str
    name: str
    mime_type: str
    data: bytes
    digest: str

    @property
    def size(self) -> int:
        return len(self.data)


@frozen
class Skill:
    """One skill: its `SKILL.md` URI, front matter (as written), files (SKILL.md first) and folder."""

    uri: str
    path: str  # the <skill-path>: its folders below the skill folder, `/`-separated
    frontmatter: MappingProxyType[str, Any]
    files: tuple[SkillFile, ...]
    folder: Path
    origin: str = field(default="")  # the SKILL.md as problem reports name it

    @property
    def name(self) -> str:
        return str(self.frontmatter["name"])

    @property
    def description(self) -> str:
        return str(self.frontmatter["description"])

    @property
    def root(self) -> str:
        """The skill's directory resource: the SKILL.md URI without `/SKILL.md`."""
        return self.uri[: -len(SKILL_FILE) - 1]

    def entry(self) -> dict[str, Any]:
        """The skill's entry of `skills/list` and `skills/get`."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files],
        }


def find_skill_folders(
    loaded: LoadedSettings, config_dir: Path | None, package_dir: Path | None
) -> tuple[list[Path], list[str]]:
    """The skill folders of `skills.folders`: a relative one is looked up beside the config folder (in the
    folder holding it), then in the app package; an absolute one as it is. A missing default folder is
    skipped; one set explicitly is a problem."""
    explicit = loaded.origin_of("skills.folders") != "default"
    bases = _bases(config_dir, package_dir)
    folders: list[Path] = []
    problems: list[str] = []
    for index, listed in enumerate(loaded.settings.skills.folders):
        path = Path(listed)
        candidates = [path] if path.is_absolute() else [base / path for base in bases]
        found = next((c for c in candidates if c.is_dir()), None)
        if found is None:
            if explicit:
                problems.append(
                    f"skills.folders[{index}] = {listed!r} (from {loaded.origin_of('skills.folders')}): "
                    "no such folder beside the config folder or in the app package; create it or fix the path"
                )
            continue
        if found.resolve() not in (f.resolve() for f in folders):
            folders.append(found)
    return folders, problems


def _bases(config_dir: Path | None, package_dir: Path | None) -> list[Path]:
    bases = [config_dir.parent] if config_dir is not None else []
    if package_dir is not None and all(package_dir.resolve() != b.resolve() for b in bases):
        bases.append(package_dir)
    return bases


def load_skills(folders: Iterable[Path]) -> tuple[list[Skill], list[str]]:
    """The skills of every folder, and every problem found (each naming its file and line). Two skills
    at the same URI (one path in two folders) is a problem too."""
    skills: list[Skill] = []
    problems: list[str] = []
    for folder in folders:
        found, folder_problems = load_skill_folder(folder)
        skills += found
        problems += folder_problems
    seen: dict[str, Skill] = {}
    for skill in skills:
        if skill.uri in seen:
            problems.append(
                f"{skill.origin}:1: skill {skill.uri} is served twice (also by {seen[skill.uri].origin}); "
                "rename or remove one"
            )
        seen.setdefault(skill.uri, skill)
    return list(seen.values()), problems


def load_skill_folder(folder: Path) -> tuple[list[Skill], list[str]]:
    """Every skill below `folder` (sorted by path), and the problems of those that cannot be served."""
    root = folder.resolve()
    skills: list[Skill] = []
    problems: list[str] = []
    if (root / SKILL_FILE).exists():
        problems.append(
            f"{display_path(root / SKILL_FILE)}:1: a SKILL.md directly in the skill folder; put each skill "
            "in a folder of its own, named after the skill"
        )
    skill_folders: list[Path] = []
    for directory, names, files in os.walk(root):
        here = Path(directory)
        if here != root and SKILL_FILE in files:
            skill_folders.append(here)
            try:
                skills.append(_load_skill(root, here))
            except SkillFileError as exc:
                problems.append(str(exc))
        in_skill = any(here.is_relative_to(s) for s in skill_folders)  # a skill checks its own links
        for name in names:
            link = here / name
            if not in_skill and not _hidden(name) and link.is_symlink() and not _inside(link, root):
                problems.append(
                    f"{display_path(link)}:1: links outside the skill folder (to {link.resolve()}); links "
                    "to folders are not followed: copy the skill in"
                )
        names[:] = sorted(n for n in names if not _hidden(n) and not (here / n).is_symlink())
    return sorted(skills, key=lambda s: s.path), problems


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == _SKIPPED


def _load_skill(root: Path, folder: Path) -> Skill:
    relative = folder.relative_to(root).parts
    manifest = folder / SKILL_FILE
    where = display_path(manifest)
    for segment in relative[:-1]:
        if not _SEGMENT.match(segment):
            raise SkillFileError(
                f"{where}:1: folder name '{segment}' cannot be part of a skill URI; use letters, digits, "
                "'-', '.', '_' or '~'"
            )
    if manifest.is_symlink() and not _inside(manifest, folder):
        raise SkillFileError(f"{where}:1: SKILL.md links outside the skill's folder; copy the file in")
    try:
        text = manifest.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillFileError(f"{where}:1: cannot read the SKILL.md as UTF-8 text ({exc})") from None
    meta, lines = read_frontmatter(text, where)
    check_frontmatter(meta, lines, relative[-1], where)
    path = "/".join(relative)
    uri = f"{SCHEME}{path}/{SKILL_FILE}"
    files = _files(folder, f"{SCHEME}{path}", uri, where)
    return Skill(uri, path, MappingProxyType(meta), files, folder, where)


def _files(folder: Path, base: str, manifest_uri: str, where: str) -> tuple[SkillFile, ...]:
    """The skill's files, SKILL.md first, then by path; links outside the folder and the limits checked."""
    found: list[SkillFile] = []
    total = 0
    for directory, names, files in os.walk(folder):
        here = Path(directory)
        for name in list(names):
            if (here / name).is_symlink() and not _hidden(name):
                _check_link(here / name, folder)
        names[:] = sorted(n for n in names if not _hidden(n) and not (here / n).is_symlink())
        for name in sorted(files):
            path = here / name
            if _hidden(name) or (path.is_symlink() and not _check_link(path, folder)):
                continue
            if not path.is_file():
                continue  # a socket, a fifo: nothing to serve
            relative = path.relative_to(folder).as_posix()
            try:
                data = path.read_bytes()
            except OSError as exc:
                where_file = display_path(path)
                raise SkillFileError(f"{where_file}:1: cannot read the skill's file ({exc})") from None
            total += len(data)
            uri = manifest_uri if relative == SKILL_FILE else f"{base}/{quote(relative, safe=_SAFE + '/')}"
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            found.append(SkillFile(uri, name, guessed_type(name) or sniffed_type(data), data, digest))
    if len(found) > MAX_FILES:
        raise SkillFileError(
            f"{where}:1: the skill has {len(found)} files; hosts accept at most {MAX_FILES}: split it"
        )
    if total > MAX_TOTAL_BYTES:
        raise SkillFileError(
            f"{where}:1: the skill's files add up to {total} bytes; hosts accept at most {MAX_TOTAL_BYTES} "
            "(16 MiB): split it or move large files elsewhere"
        )
    found.sort(key=lambda f: (f.uri != manifest_uri, f.uri))
    return tuple(found)


def _check_link(path: Path, folder: Path) -> bool:
    """True for a link to something inside the skill's folder; SkillFileError for one leading out."""
    if not path.exists():
        raise SkillFileError(f"{display_path(path)}:1: a broken link; remove it or point it inside the skill")
    if not _inside(path, folder):
        raise SkillFileError(
            f"{display_path(path)}:1: links outside the skill's folder (to {path.resolve()}); a skill serves "
            "only its own files: copy the file in"
        )
    return True


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())
