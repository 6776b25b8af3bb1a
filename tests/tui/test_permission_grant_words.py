"""The question names every grant form the engine stores (docs/interfaces.md,
"Permissions") in words, never as a raw key: a path grant is not a command prefix."""

from milk_tui.model.events import PermissionRequested
from milk_tui.tui.screens.permission_body import always_label, answered_text


def _req(tool: str, grant: str, grant_all: str = "") -> PermissionRequested:
    return PermissionRequested(
        request_id="r", agent_name="a", tool_name=tool, grant=grant, grant_all=grant_all
    )


def test_a_path_grant_names_the_path_not_a_prefix() -> None:
    r = _req("write_file", "write_file:/home/u/notes.txt")
    assert always_label(r) == "Always: write_file on /home/u/notes.txt in this folder (a)"
    assert answered_text(r, True, True, False).endswith("write_file on /home/u/notes.txt only")


def test_a_move_outside_names_both_paths() -> None:
    r = _req("move_file", "move_file:/tmp/a\nmove_file:/tmp/b")
    assert "move_file on /tmp/a only; move_file on /tmp/b only" in answered_text(
        r, True, True, False
    )


def test_an_exact_command_grant_says_exactly() -> None:
    r = _req("bash", "bash=make test && rm x", grant_all="bash")
    assert always_label(r) == "Always: exactly `make test && rm x` in this folder (a)"
    assert always_label(r, wide=True) == "Always: every shell command in this folder"


def test_a_prefix_grant_and_a_plain_tool() -> None:
    assert "only commands starting with `git status …`" in answered_text(
        _req("bash", "bash:git status", "bash"), True, True, False
    )
    assert answered_text(_req("web_fetch", "web_fetch"), True, True, False).endswith(
        "every web_fetch call"
    )


def test_a_command_with_line_breaks_is_named_readably_and_cut_on_its_button() -> None:
    r = _req("bash", "bash=echo hello" + "%0A" * 81 + "touch pwned", grant_all="bash")
    label = always_label(r)
    assert "%0A" not in label and "⏎×81" in label, label
    assert len(label) < 100
