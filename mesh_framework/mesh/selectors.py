"""MCP Mesh dependency resolution as pure functions: version constraints, tag expressions, ranking.

The pipeline follows the MCP Mesh registry: healthy → capability → namespace → tags → version, then the
best candidate wins by highest tag score, then highest version, then lowest agent id (then function name).

- Tags: a plain tag is required (+5), `+tag` is preferred (+10 when present), `-tag` excludes, and a nested
  list is an OR group (satisfied by any alternative; +5, or +10 when a `+` alternative matched; a `-`
  alternative inside a group still excludes).
- Versions: `>= > <= <`, `^` (npm caret, 0.x aware), `~`/`~>` (tilde), bare or `=`/`==` exact, `!=`,
  wildcards `*`, `x`, `1.x`; comparators joined by `,` or spaces are ANDed, `||` ORs groups. Missing
  version parts are 0; a pre-release sorts just below its release; build metadata is ignored.
- Namespace: the selector's namespace, else the consumer's (`namespace=` argument); with neither, any.
  MCP Mesh agents always send `namespace` (default `default`), so resolution stays within a namespace.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .._frozen import frozen
from ..specs import Selector

__all__ = [
    "Candidate",
    "ProviderLike",
    "SelectorQuery",
    "TagQuery",
    "VersionConstraint",
    "VersionKey",
    "choose_provider",
    "compare_versions",
    "match_tags",
    "match_version",
    "parse_constraint",
    "parse_selector",
    "parse_tags",
    "parse_version",
    "rank_providers",
    "score_candidate",
    "version_sort_key",
]

REQUIRED_SCORE = 5
PREFERRED_SCORE = 10

# (major, minor, patch, 1 for a release / 0 for a pre-release, pre-release identifiers)
VersionKey = tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]

_VERSION = re.compile(
    r"v?(?P<nums>\d+(?:\.\d+){0,2})(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?"
)
_WILDCARD = re.compile(r"v?(?P<nums>\d+(?:\.\d+){0,1})\.[xX*](?:\.[xX*])?")
_COMPARATOR = re.compile(r"(?P<op>\^|~>|~|>=|<=|!=|==|=|>|<)?(?P<version>.+)")
_OPERATOR_SPACE = re.compile(r"(\^|~>|~|>=|<=|!=|==|=|>|<)\s+")


@functools.lru_cache(maxsize=4096)
def parse_version(text: str) -> VersionKey:
    """`"1.2"` → `(1, 2, 0, 1, ())`; raises ValueError for anything that is not a version."""
    key = _parse_version(text)
    if key is None:
        raise ValueError(f"Version {text!r} is not a valid version, e.g. '1.2.3'")
    return key


def _parse_version(text: str) -> VersionKey | None:
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        return None
    nums = [int(n) for n in match["nums"].split(".")] + [0, 0]
    pre = match["pre"]
    if pre is None:
        return (nums[0], nums[1], nums[2], 1, ())
    ids = tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split("."))
    return (nums[0], nums[1], nums[2], 0, ids)


def _floor(major: int, minor: int = 0, patch: int = 0) -> VersionKey:
    """The lowest key with these numbers: below every pre-release of that version."""
    return (major, minor, patch, 0, ())


_UNPARSEABLE: VersionKey = (-1, 0, 0, 0, ())


@functools.lru_cache(maxsize=4096)
def version_sort_key(text: str) -> VersionKey:
    """Like `parse_version`, but an unparseable version sorts below every valid one instead of raising."""
    return _parse_version(text) or _UNPARSEABLE


def compare_versions(a: str, b: str) -> int:
    """-1, 0 or 1 as `a` is older than, equal to or newer than `b` (numerically, pre-release below)."""
    ka, kb = version_sort_key(a), version_sort_key(b)
    return (ka > kb) - (ka < kb)


_Check = Callable[[VersionKey], bool]


@frozen
class VersionConstraint:
    """A parsed constraint: OR of groups, each an AND of primitive checks. Build with `parse_constraint`."""

    text: str
    groups: tuple[tuple[_Check, ...], ...]

    def matches(self, version: str) -> bool:
        """Whether `version` satisfies the constraint; an unparseable version satisfies only an empty one."""
        if not self.groups:
            return True
        key = _parse_version(version)
        if key is None:
            return False
        return any(all(check(key) for check in group) for group in self.groups)


def _at_least(bound: VersionKey) -> _Check:
    return lambda key: key >= bound


def _above(bound: VersionKey) -> _Check:
    return lambda key: key > bound


def _at_most(bound: VersionKey) -> _Check:
    return lambda key: key <= bound


def _below(bound: VersionKey) -> _Check:
    return lambda key: key < bound


def _equal(bound: VersionKey) -> _Check:
    return lambda key: key == bound


def _not_equal(bound: VersionKey) -> _Check:
    return lambda key: key != bound


def _comparator(token: str, text: str) -> list[_Check]:
    match = _COMPARATOR.fullmatch(token)
    assert match is not None  # the pattern accepts any non-empty token
    op, version = match["op"] or "", match["version"]
    if version in ("*", "x", "X"):
        if op in ("", "=", "==", ">="):
            return []
        raise ValueError(f"Version constraint {text!r}: {token!r} cannot use a wildcard with {op!r}")
    wildcard = _WILDCARD.fullmatch(version)
    if wildcard is not None:
        nums = [int(n) for n in wildcard["nums"].split(".")]
        if op not in ("", "=", "=="):
            raise ValueError(f"Version constraint {text!r}: {token!r} cannot use a wildcard with {op!r}")
        if len(nums) == 1:
            return [_at_least(_floor(nums[0])), _below(_floor(nums[0] + 1))]
        return [_at_least(_floor(nums[0], nums[1])), _below(_floor(nums[0], nums[1] + 1))]
    vmatch = _VERSION.fullmatch(version)
    if vmatch is None:
        raise ValueError(
            f"Version constraint {text!r}: {token!r} is not a comparator; use e.g. '>=1.0', '^1.2', '~1.2.3'"
        )
    key = parse_version(version)
    given = len(vmatch["nums"].split("."))
    major, minor, patch = key[0], key[1], key[2]
    if op == "^":
        if major > 0 or given == 1:
            upper = _floor(major + 1)
        elif minor > 0 or given == 2:
            upper = _floor(0, minor + 1)
        else:
            upper = _floor(0, 0, patch + 1)
        return [_at_least(key), _below(upper)]
    if op in ("~", "~>"):
        upper = _floor(major + 1) if given == 1 else _floor(major, minor + 1)
        return [_at_least(key), _below(upper)]
    checks: dict[str, Callable[[VersionKey], _Check]] = {
        "": _equal,
        "=": _equal,
        "==": _equal,
        "!=": _not_equal,
        ">=": _at_least,
        ">": _above,
        "<=": _at_most,
        "<": _below,
    }
    return [checks[op](key)]


@functools.lru_cache(maxsize=1024)
def parse_constraint(text: str) -> VersionConstraint:
    """Parse `">=1.0, <2"`, `"^0.2"`, `"~1.2.3 || >=3"` …; an empty or `*` constraint matches anything.

    Raises ValueError naming the offending comparator.
    """
    if not isinstance(text, str):
        raise ValueError(f"Version constraint must be a string, not {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        return VersionConstraint(text, ())
    groups: list[tuple[_Check, ...]] = []
    for alternative in stripped.split("||"):
        spaced = _OPERATOR_SPACE.sub(r"\1", alternative.replace(",", " "))
        tokens = spaced.split()
        if not tokens:
            raise ValueError(f"Version constraint {text!r} has an empty alternative around '||'")
        checks: list[_Check] = []
        for token in tokens:
            checks.extend(_comparator(token, text))
        groups.append(tuple(checks))
    if any(not group for group in groups):
        return VersionConstraint(text, ())  # one alternative is a wildcard: anything goes
    return VersionConstraint(text, tuple(groups))


def match_version(version: str, constraint: str | None) -> bool:
    """Whether `version` satisfies `constraint` (None or empty: always)."""
    return not constraint or parse_constraint(constraint).matches(version)


@frozen
class TagQuery:
    """A selector's tag list split by role. Build with `parse_tags`."""

    required: tuple[str, ...] = ()
    preferred: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    any_of: tuple[tuple[str, ...], ...] = ()

    def score(self, tags: Iterable[str]) -> int | None:
        """The tag score of a provider with `tags`, or None when it does not qualify."""
        have = tags if isinstance(tags, (set, frozenset)) else frozenset(tags)
        for tag in self.excluded:
            if tag in have:
                return None
        score = 0
        for tag in self.required:
            if tag not in have:
                return None
            score += REQUIRED_SCORE
        for tag in self.preferred:
            if tag in have:
                score += PREFERRED_SCORE
        for group in self.any_of:
            best: int | None = None
            for alternative in group:
                if alternative.startswith("-"):
                    if alternative[1:] and alternative[1:] in have:
                        return None
                elif alternative.startswith("+"):
                    if alternative[1:] and alternative[1:] in have:
                        best = PREFERRED_SCORE
                elif alternative in have and best is None:
                    best = REQUIRED_SCORE
            if best is None:
                return None
            score += best
        return score


def parse_tags(tags: Iterable[str | Sequence[str]]) -> TagQuery:
    """Split a selector's tags into required, preferred (`+`), excluded (`-`) and OR groups (nested lists)."""
    required: list[str] = []
    preferred: list[str] = []
    excluded: list[str] = []
    any_of: list[tuple[str, ...]] = []
    for tag in tags:
        if isinstance(tag, str):
            if tag.startswith("+"):
                if tag[1:]:
                    preferred.append(tag[1:])
            elif tag.startswith("-"):
                if tag[1:]:
                    excluded.append(tag[1:])
            elif tag:
                required.append(tag)
        elif isinstance(tag, Sequence) and all(isinstance(t, str) for t in tag):
            group = tuple(t for t in tag if t)
            if group:
                any_of.append(group)
        else:
            raise ValueError(f"A tag must be a string or a list of strings, not {tag!r}")
    return TagQuery(tuple(required), tuple(preferred), tuple(excluded), tuple(any_of))


def match_tags(selector_tags: Iterable[str | Sequence[str]], provider_tags: Iterable[str]) -> int | None:
    """The score of `provider_tags` against a selector tag list, or None when it does not qualify."""
    return parse_tags(selector_tags).score(provider_tags)


@frozen
class SelectorQuery:
    """A selector parsed once for repeated matching. Build with `parse_selector`."""

    capability: str
    tags: TagQuery = TagQuery()
    version: VersionConstraint | None = None
    namespace: str | None = None


class ProviderLike(Protocol):
    """What resolution reads from a candidate provider (one tool of one agent)."""

    @property
    def agent_id(self) -> str: ...
    @property
    def capability(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def tags(self) -> Iterable[str]: ...
    @property
    def namespace(self) -> str: ...
    @property
    def healthy(self) -> bool: ...
    @property
    def function_name(self) -> str: ...


@frozen
class Candidate:
    """A plain candidate provider; the registry uses its own records, which have the same attributes."""

    agent_id: str
    capability: str
    version: str = "1.0.0"
    tags: frozenset[str] | tuple[str, ...] = ()
    namespace: str = "default"
    healthy: bool = True
    function_name: str = ""
    endpoint: str = ""


P = TypeVar("P", bound=ProviderLike)
SelectorInput = SelectorQuery | Selector | Mapping[str, Any]


def parse_selector(selector: SelectorInput) -> SelectorQuery:
    """Accept a `SelectorQuery`, a `Selector` or a wire dict (`{"capability", "tags", "version", ...}`).

    Raises ValueError for a missing capability, a bad tag or an invalid version constraint.
    """
    if isinstance(selector, SelectorQuery):
        return selector
    capability: Any
    tags: Any
    version: Any
    namespace: Any
    if isinstance(selector, Selector):
        capability, tags = selector.capability, selector.tags
        version, namespace = selector.version, selector.namespace
    elif isinstance(selector, Mapping):
        capability = selector.get("capability")
        tags = selector.get("tags") or ()
        version = selector.get("version") or None
        namespace = selector.get("namespace") or None
        if not isinstance(capability, str) or not capability:
            raise ValueError("A selector needs a non-empty 'capability' string")
        if isinstance(tags, str) or not isinstance(tags, Sequence):
            raise ValueError(f"Selector 'tags' must be a list, not {tags!r}")
        if namespace is not None and not isinstance(namespace, str):
            raise ValueError(f"Selector 'namespace' must be a string, not {namespace!r}")
        if version is not None and not isinstance(version, str):
            raise ValueError(f"Selector 'version' must be a string, not {version!r}")
    else:
        raise TypeError(f"A selector must be a Selector or a mapping, not {selector!r}")
    constraint = parse_constraint(version) if version else None
    return SelectorQuery(capability, parse_tags(tags), constraint, namespace)


def score_candidate(
    query: SelectorQuery, candidate: ProviderLike, namespace: str | None = None
) -> int | None:
    """The candidate's tag score if it passes every stage of the pipeline, else None."""
    if not candidate.healthy or candidate.capability != query.capability:
        return None
    wanted = query.namespace or namespace
    if wanted is not None and candidate.namespace != wanted:
        return None
    score = query.tags.score(candidate.tags)
    if score is None:
        return None
    if query.version is not None and not query.version.matches(candidate.version):
        return None
    return score


def rank_providers(
    selector: SelectorInput, candidates: Iterable[P], *, namespace: str | None = None
) -> list[P]:
    """Every candidate that satisfies the selector, best first (score, version, then agent id)."""
    query = parse_selector(selector)
    scored: list[tuple[int, VersionKey, str, str, P]] = []
    for candidate in candidates:
        score = score_candidate(query, candidate, namespace)
        if score is not None:
            key = version_sort_key(candidate.version)
            scored.append((score, key, candidate.agent_id, candidate.function_name, candidate))
    # best first: highest score, highest version, then lowest agent id and function name
    scored.sort(key=lambda s: (s[2], s[3]))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    return [s[4] for s in scored]


def choose_provider(
    selector: SelectorInput, candidates: Iterable[P], *, namespace: str | None = None
) -> P | None:
    """The one provider MCP Mesh would pick for `selector`, or None when unresolved."""
    ranked = rank_providers(selector, candidates, namespace=namespace)
    return ranked[0] if ranked else None
