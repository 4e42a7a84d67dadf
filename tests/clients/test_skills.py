"""Agent Skills, read and checked at start-up: the front matter (the Agent Skills fields, YAML 1.2, every
problem naming the file and line), where skill folders are found (beside the config folder, in the app
package, `skills.folders`), files kept inside their skill (links out, a SKILL.md at the top, the limits),
and what the catalog answers for a URI that is not one of its files (`..`, absolute paths, encodings)."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.errors import ConfigError
from mesh_framework.protocol.features import FeatureRequestError
from mesh_framework.skills import SkillCatalog, load_skill_folder
from mesh_framework.skills.loading import MAX_FILES, MAX_TOTAL_BYTES
from mesh_framework.testing import mesh_client

pytestmark = pytest.mark.timeout(60)

GOOD = "---\nname: {name}\ndescription: Does {name} things\n---\n\n# {name}\n"
_apps = itertools.count()


def skill(folder: Path, path: str, text: str | None = None, **files: str) -> Path:
    """A skill at `folder/path` (its SKILL.md `text`, by default a valid one) with `files` beside it."""
    where = folder / path
    where.mkdir(parents=True, exist_ok=True)
    (where / "SKILL.md").write_text(text if text is not None else GOOD.format(name=path.rsplit("/", 1)[-1]))
    for name, content in files.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(content)
    return where


def problems_of(folder: Path) -> list[str]:
    _found, problems = load_skill_folder(folder)
    return problems


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# no front matter\n", "SKILL.md:1: a SKILL.md starts with YAML front matter"),
        ("---\nname: notes\n", "SKILL.md:1: the front matter opened here is never closed"),
        ("---\nname: notes\ndescription: [unclosed\n---\n", "SKILL.md:3: invalid YAML front matter"),
        ("---\n- a list\n---\n", "SKILL.md:2: the front matter must be a mapping"),
        ("---\ndescription: Notes\n---\n", "SKILL.md:2: the front matter has no 'name'; add name: notes"),
        ("---\ndescription: Notes\nname: Notes\n---\n", "SKILL.md:3: name 'Notes' is invalid"),
        ("---\nname: my--notes\ndescription: N\n---\n", "SKILL.md:2: name 'my--notes' is invalid"),
        (
            "---\nname: other\ndescription: N\n---\n",
            "SKILL.md:2: name 'other' must be the skill's folder name",
        ),
        ("---\nname: notes\n---\n", "SKILL.md:2: the front matter needs a 'description'"),
        ("---\nname: notes\ndescription: '  '\n---\n", "SKILL.md:3: the front matter needs a 'description'"),
        ("---\nname: notes\ndescription: " + "x" * 1025 + "\n---\n", "description is 1025 characters"),
        (
            "---\nname: notes\ndescription: N\nlicense: 3\n---\n",
            "SKILL.md:4: 'license' must be text, not int",
        ),
        ("---\nname: notes\ndescription: N\nmetadata:\n  n: 1\n---\n", "SKILL.md:4: 'metadata' must map"),
        ("---\nname: notes\ndescription: N\n1: one\n---\n", "SKILL.md:4: front matter key 1 must be text"),
        (
            "---\nname: notes\ndescription: N\nx: .nan\n---\n",
            "SKILL.md:4: 'x' is nan, which JSON cannot carry",
        ),
        ("---\nname: notes\ndescription: N\nx: !!timestamp 2026-09-01\n---\n", "'x' holds a date"),
    ],
)
def test_a_bad_front_matter_is_a_problem_naming_the_file_and_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    skill(tmp_path, "notes", text)
    [found] = problems_of(tmp_path)
    assert found.startswith(str(tmp_path / "notes" / "SKILL.md")) or "notes/SKILL.md" in found
    assert problem in found


def test_the_front_matter_is_read_as_yaml_1_2_and_passed_through(tmp_path: Path) -> None:
    text = (
        "\ufeff---\r\nname: notes\r\ndescription: Notes\r\nenabled: yes\r\non: off\r\nsince: 2026-09-01\r\n"
        "count: 0x1F\r\nratio: 1.5\r\nempty:\r\nflag: true\r\nmetadata:\r\n  version: '1.0'\r\n"
        "---  \r\nBody\r\n"
    )
    skill(tmp_path, "notes", text)
    [found], problems = load_skill_folder(tmp_path)
    assert problems == []
    assert dict(found.frontmatter) == {
        "name": "notes",
        "description": "Notes",
        "enabled": "yes",
        "on": "off",
        "since": "2026-09-01",
        "count": 31,
        "ratio": 1.5,
        "empty": None,
        "flag": True,
        "metadata": {"version": "1.0"},
    }
    assert found.files[0].data.startswith(b"\xef\xbb\xbf---\r\n")  # served as written, byte for byte


def test_every_bad_skill_is_reported_and_the_good_ones_kept(tmp_path: Path) -> None:
    skill(tmp_path, "good")
    skill(tmp_path, "bad", "---\nname: bad\n---\n")
    skill(tmp_path, "acme/also-bad", "no front matter")
    skill(tmp_path, "acme/fine")
    found, problems = load_skill_folder(tmp_path)
    assert [s.uri for s in found] == ["skill://acme/fine/SKILL.md", "skill://good/SKILL.md"]
    assert len(problems) == 2


def test_a_skill_path_is_its_folders_and_nested_skills_are_files_of_the_enclosing_one(tmp_path: Path) -> None:
    outer = skill(tmp_path, "team/guide", **{"refs/a.md": "A", ".hidden": "no", "__pycache__/x.pyc": "no"})
    skill(outer, "inner")
    found, problems = load_skill_folder(tmp_path)
    assert problems == []
    guide, inner = found
    assert (guide.uri, guide.path, guide.root) == (
        "skill://team/guide/SKILL.md",
        "team/guide",
        "skill://team/guide",
    )
    assert [f.uri for f in guide.files] == [
        "skill://team/guide/SKILL.md",
        "skill://team/guide/inner/SKILL.md",
        "skill://team/guide/refs/a.md",
    ]
    assert inner.uri == "skill://team/guide/inner/SKILL.md"


def test_a_folder_name_that_cannot_be_in_a_uri_is_a_problem(tmp_path: Path) -> None:
    skill(tmp_path, "my team/notes")
    assert "folder name 'my team' cannot be part of a skill URI" in problems_of(tmp_path)[0]


def test_a_skill_md_at_the_top_of_the_folder_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text(GOOD.format(name="top"))
    assert "a SKILL.md directly in the skill folder" in problems_of(tmp_path)[0]


def test_links_out_of_a_skill_are_problems_and_links_inside_are_served(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = tmp_path / "skills"
    notes = skill(root, "notes", **{"refs/a.md": "A"})
    (notes / "same.md").symlink_to(notes / "refs" / "a.md")  # inside: served at its own URI
    (notes / "again").symlink_to(notes / "refs", target_is_directory=True)  # a folder inside: not followed
    [found], problems = load_skill_folder(root)
    assert problems == []
    assert [f.uri for f in found.files] == [
        "skill://notes/SKILL.md",
        "skill://notes/refs/a.md",
        "skill://notes/same.md",
    ]
    (notes / "leak.txt").symlink_to(outside / "secret.txt")
    [problem] = problems_of(root)
    assert "notes/leak.txt:1: links outside the skill's folder" in problem
    (notes / "leak.txt").unlink()
    (notes / "up").symlink_to(outside, target_is_directory=True)
    assert "notes/up:1: links outside the skill's folder" in problems_of(root)[0]
    (notes / "up").unlink()
    (notes / "broken").symlink_to(tmp_path / "gone")
    assert "notes/broken:1: a broken link" in problems_of(root)[0]
    (notes / "broken").unlink()
    (root / "linked").symlink_to(outside, target_is_directory=True)  # a whole skill linked in
    assert "skills/linked:1: links outside the skill folder" in problems_of(root)[0]
    (root / "linked").unlink()
    (notes / "SKILL.md").unlink()
    (outside / "SKILL.md").write_text(GOOD.format(name="notes"))
    (notes / "SKILL.md").symlink_to(outside / "SKILL.md")
    assert "notes/SKILL.md:1: SKILL.md links outside the skill's folder" in problems_of(root)[0]


def test_a_skill_over_the_limits_is_a_problem(tmp_path: Path) -> None:
    many = skill(tmp_path, "many")
    for number in range(MAX_FILES):  # with SKILL.md: one too many
        (many / f"f{number}.txt").write_text("x")
    large = skill(tmp_path, "large")
    with (large / "big.bin").open("wb") as handle:
        handle.truncate(MAX_TOTAL_BYTES)  # with SKILL.md: over 16 MiB
    problems = problems_of(tmp_path)
    assert any("many/SKILL.md:1: the skill has 513 files; hosts accept at most 512" in p for p in problems)
    assert any("large/SKILL.md:1: the skill's files add up to" in p for p in problems)


async def test_the_catalog_serves_only_its_files_by_exact_uri(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    skill(tmp_path / "skills", "notes", **{"refs/a b.md": "A", "refs/deep/c.md": "C"})
    found, _problems = load_skill_folder(tmp_path / "skills")
    catalog = SkillCatalog(found, page_size=1)
    read = await catalog.read("skill://notes/refs/a%20b.md")
    assert read == {
        "contents": [{"uri": "skill://notes/refs/a%20b.md", "mimeType": "text/markdown", "text": "A"}]
    }
    for outside in (
        "skill://notes/../secret.txt",
        "skill://notes/refs/../../../secret.txt",
        "skill://notes/%2E%2E/secret.txt",
        "skill://notes/refs/a b.md",  # not the URI it is served at
        str(tmp_path / "secret.txt"),
        "file://" + str(tmp_path / "secret.txt"),
        "skill://" + str(tmp_path / "secret.txt"),
        "SKILL://notes/SKILL.md",
        None,
        17,
    ):
        assert await catalog.read(outside) is None  # not served here: the app's resources answer
    with pytest.raises(FeatureRequestError, match="is a directory resource"):
        await catalog.read("skill://notes/refs")
    with pytest.raises(FeatureRequestError, match="is no directory resource"):
        catalog.read_directory({"uri": "skill://notes/../notes"})
    first = catalog.read_directory({"uri": "skill://notes/refs"})
    assert [r["name"] for r in first["resources"]] == ["a b.md"] and first["nextCursor"] == "1"
    second = catalog.read_directory({"uri": "skill://notes/refs", "cursor": "1"})
    assert second["resources"] == [
        {"uri": "skill://notes/refs/deep", "name": "deep", "mimeType": "inode/directory"}
    ]
    assert "nextCursor" not in second
    with pytest.raises(FeatureRequestError, match="params.cursor '9' is no cursor this agent gave"):
        catalog.read_directory({"uri": "skill://notes/refs", "cursor": "9"})


# -- where skill folders are found -------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A project folder: `config/application.yaml` and an app package `<name>/` beside it."""
    name = f"skills_project_{next(_apps)}"
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "application.yaml").write_text("registry:\n  enabled: false\n")
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(
        "from mesh_framework import mesh_agent\n\n\n"
        "@mesh_agent(name='skills-project')\nclass Agent:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name
    for module in [m for m in sys.modules if m.split(".")[0] == name]:
        del sys.modules[module]


async def listed(app: MeshApplication) -> list[str]:
    async with mesh_client(app) as client:
        return [s["uri"] for s in (await client.result("skills/list"))["skills"]]


async def test_skills_beside_the_config_folder_and_in_the_app_package_are_served(
    project: tuple[Path, str],
) -> None:
    folder, name = project
    skill(folder / "skills", "beside")
    skill(folder / name / "skills", "packaged")
    app = MeshApplication.load(name, environ={})
    assert await listed(app) == ["skill://beside/SKILL.md"]  # the first folder found, as for prompts
    (folder / "skills" / "beside" / "SKILL.md").unlink()
    (folder / "skills" / "beside").rmdir()
    (folder / "skills").rmdir()
    for module in [m for m in sys.modules if m.split(".")[0] == name]:
        del sys.modules[module]
    assert await listed(MeshApplication.load(name, environ={})) == ["skill://packaged/SKILL.md"]


async def test_skills_folders_names_several_folders(project: tuple[Path, str]) -> None:
    folder, name = project
    skill(folder / "team", "one")
    skill(folder / "shared", "two")
    environ = {"MESH_SKILLS__FOLDERS": f'["team", "{folder / "shared"}"]'}
    app = MeshApplication.load(name, environ=environ)
    assert await listed(app) == ["skill://one/SKILL.md", "skill://two/SKILL.md"]


def test_a_missing_folder_set_explicitly_and_a_skill_served_twice_are_problems(
    project: tuple[Path, str],
) -> None:
    folder, name = project
    skill(folder / "a", "notes")
    skill(folder / "b", "notes")
    skill(folder / "b", "broken", "---\nname: broken\n---\n")
    environ = {"MESH_SKILLS__FOLDERS": '["a", "b", "nowhere"]'}
    with pytest.raises(ConfigError) as caught:
        MeshApplication.load(name, environ=environ)
    text = str(caught.value)
    assert (
        "skills.folders[2] = 'nowhere' (from environment variable MESH_SKILLS__FOLDERS): no such folder"
        in text
    )
    assert "skill skill://notes/SKILL.md is served twice" in text
    assert "broken/SKILL.md:2: the front matter needs a 'description'" in text  # all reported together


async def test_an_app_without_a_skill_folder_declares_no_skills(project: tuple[Path, str]) -> None:
    _folder, name = project
    app = MeshApplication.load(name, environ={})
    async with mesh_client(app) as client:
        capabilities = (await client.result("server/discover"))["capabilities"]
        assert "extensions" not in capabilities and "resources" not in capabilities
        answer = (await client.request("skills/list")).json()
        assert answer["error"]["code"] == -32601
