"""``padtui claude watch [DIR]`` on the command line: where it looks for a project's
transcripts, and the one-line exit 2 when they are not there or there is no terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from padtui.claude import projects
from padtui.core.errors import PadError
from tests.claude.sessions import FAITHFUL, Session


def _one_error(result: object) -> str:
    code, out, err = result.returncode, result.stdout, result.stderr  # type: ignore[attr-defined]
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("padtui: error: "), err
    return str(err)


@pytest.fixture(autouse=True)
def _claude_code_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(projects.CONFIG_ENV, raising=False)  # (the tests' own home only)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path)
    s.conversation()
    s.compact(FAITHFUL)
    return s


def _claude_folder(s: Session) -> Path:
    """The project's transcripts where Claude Code keeps them for the project's real path."""
    folder = s.home / ".claude" / "projects" / projects.folder_name(os.path.realpath(s.project))
    folder.mkdir(parents=True)
    os.replace(s.transcript, folder / s.transcript.name)
    return folder


def test_outside_a_terminal_exits_2_naming_the_audit_to_run(session: Session) -> None:
    folder = _claude_folder(session)
    err = _one_error(session.run("claude", "watch"))  # (DIR: the current folder)
    assert "needs a terminal" in err
    assert f"`padtui claude audit {folder / session.transcript.name}`" in err


def test_transcripts_named_outright(session: Session) -> None:
    err = _one_error(
        session.run("claude", "watch", "--transcripts", str(session.transcript.parent))
    )
    assert "needs a terminal" in err and session.transcript.name in err


def test_a_project_claude_code_never_ran_in_names_the_folder_looked_in(session: Session) -> None:
    err = _one_error(session.run("claude", "watch", str(session.project)))
    looked = (
        session.home
        / ".claude"
        / "projects"
        / projects.folder_name(os.path.realpath(session.project))
    )
    assert f"{looked}: no Claude Code transcripts for {session.project}" in err


def test_claude_config_dir_is_where_claude_code_keeps_them(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = session.root / "config"
    monkeypatch.setenv(projects.CONFIG_ENV, str(config))
    folder = config / "projects" / projects.folder_name(os.path.realpath(session.project))
    folder.mkdir(parents=True)
    assert projects.transcripts_folder(str(session.project)) == str(folder)


def test_a_missing_folder_and_an_empty_one(session: Session) -> None:
    err = _one_error(session.run("claude", "watch", str(session.root / "gone")))
    assert f"{session.root / 'gone'}: no such folder" in err
    empty = session.root / "empty"
    empty.mkdir()
    err = _one_error(session.run("claude", "watch", "--transcripts", str(empty)))
    assert f"{empty}: no transcript (*.jsonl) in this folder" in err


def test_an_unknown_session_names_the_newest(session: Session) -> None:
    err = _one_error(
        session.run(
            "claude", "watch", "--transcripts", str(session.transcript.parent), "--session", "zz"
        )
    )
    assert "no such session: zz" in err and session.transcript.stem in err


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/me/shop", "-home-me-shop"),
        ("/home/me/my_app.v2", "-home-me-my-app-v2"),
        ("/Users/a b/café", "-Users-a-b-caf-"),
        ("/srv/📦", "-srv---"),  # (a character beyond the BMP is two UTF-16 units)
    ],
)
def test_the_folder_name_is_the_path_with_every_other_character_a_dash(
    path: str, name: str
) -> None:
    assert projects.folder_name(path) == name


def test_a_long_path_takes_the_one_folder_cut_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(projects.CONFIG_ENV, str(tmp_path))
    project = tmp_path / ("deep" * 60)
    project.mkdir()
    name = projects.folder_name(os.path.realpath(project))
    assert len(name) > projects.MAX_NAME
    folder = tmp_path / "projects" / f"{name[: projects.MAX_NAME]}-k3j9x1"
    folder.mkdir(parents=True)
    assert projects.transcripts_folder(str(project)) == str(folder)


def test_sessions_newest_first_and_chosen_by_the_start_of_their_id(tmp_path: Path) -> None:
    for n, sid in enumerate(["aaa-1", "bbb-2", "aaa-3"]):
        (tmp_path / f"{sid}.jsonl").write_text("{}\n")
        os.utime(tmp_path / f"{sid}.jsonl", (1000 + n, 1000 + n))
    found = projects.sessions(str(tmp_path))
    assert [s.id for s in found] == ["aaa-3", "bbb-2", "aaa-1"]
    assert projects.choose(found, None, str(tmp_path)).id == "aaa-3"
    assert projects.choose(found, "bb", str(tmp_path)).id == "bbb-2"
    with pytest.raises(PadError, match="more than one session starts so: aaa"):
        projects.choose(found, "aaa", str(tmp_path))


def test_a_session_named_by_its_transcript(session: Session) -> None:
    err = _one_error(session.run("claude", "watch", str(session.transcript)))
    assert "needs a terminal" in err and f"`padtui claude audit {session.transcript}`" in err
    (session.root / "notes.txt").write_text("x")
    err = _one_error(session.run("claude", "watch", str(session.root / "notes.txt")))
    assert "not a folder" in err
