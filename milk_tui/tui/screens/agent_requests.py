"""What an agent asks of the user mid-turn: a tool permission, a question, or a note that
calls were refused (with the key that grants them and retries)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.model import events as ev
from milk_tui.tui.screens.permission_body import answered_text
from milk_tui.tui.widgets.conversation import Conversation

if TYPE_CHECKING:
    from milk_tui.tui.screens.main import MainScreen
    from milk_tui.tui.screens.permission_modal import PermissionChoice
    from milk_tui.tui.screens.question_modal import Answers


def ask_permission(screen: MainScreen, e: ev.PermissionRequested) -> None:
    from milk_tui.tui.screens.permission_modal import DENY, PermissionModal  # when first asked
    from milk_tui.tui.widgets.prompt_input import PromptInput

    prompt = screen.query_one(PromptInput)
    typing = screen.app.focused is prompt and bool(prompt.text.strip())
    modal = PermissionModal(e, screen.facade.cwd, typing=typing)

    def answered(choice: PermissionChoice | None) -> None:
        if modal.elsewhere:  # the phone (or its timeout) won the race; nothing to answer
            screen.query_one(Conversation).add_line("notice", modal.elsewhere)
            return
        c = choice or DENY
        screen.facade.answer_permission(
            e.request_id, c.allow, always=c.always, wide=c.wide, reason=c.reason
        )
        said = answered_text(modal.request, c.allow, c.always, c.wide)  # the inert copy
        screen.query_one(Conversation).add_line("notice", said)

    screen.app.push_screen(modal, answered)


ELSEWHERE = {"telegram": "answered from Telegram", "timeout": "no answer in time (timeout_action)"}


def answered_elsewhere(screen: MainScreen, e: ev.PermissionDecided) -> None:
    """Close the open question that another side answered first, with a line saying who."""
    from milk_tui.tui.screens.permission_modal import PermissionModal

    outcome = (
        "allowed for this folder" if e.how == "always" else "allowed" if e.allowed else "denied"
    )
    where = ELSEWHERE.get(e.answered_from, e.answered_from)
    for modal in screen.app.screen_stack:
        if isinstance(modal, PermissionModal) and modal.request.request_id == e.request_id:
            modal.elsewhere = f"{modal.request.tool_name}: {outcome} — {where}"
            modal.dismiss(None)
            return


def ask_question(screen: MainScreen, e: ev.QuestionAsked) -> None:
    from milk_tui.tui.screens.question_modal import QuestionModal

    def answered(answers: Answers | None) -> None:
        screen.facade.answer_question(e.request_id, answers)
        said = "; ".join(answers.values()) if answers else "no answer"
        screen.query_one(Conversation).add_line("notice", f"{e.agent_name} asked — {said}")

    screen.app.push_screen(QuestionModal(e), answered)


def show_denials(screen: MainScreen, e: ev.PermissionsDenied) -> None:
    calls = " · ".join(f"{d.tool_name} {d.summary}".strip() for d in e.denials)
    key = screen.facade.keymap.get("milk.grant_retry", "ctrl+g")
    screen.query_one(Conversation).add_line(
        "warning",
        f"{e.agent_name} was refused: {calls} — {key} allows them for this folder and retries",
    )


def ask_project_trust(screen: MainScreen) -> None:
    """Before the first escalation turn: the folder's own Claude settings, trusted or not."""
    from milk_tui.tui.screens.project_trust_modal import ProjectTrustModal

    folder = screen.facade.project_trust
    conv = screen.query_one(Conversation)
    asked = folder.questions()
    for f in folder.ignored():
        if f not in asked:
            conv.add_line("notice", f"{f.name}: not trusted, ignored")
    if not asked:
        return

    def answered(trust: bool | None) -> None:
        folder.answer(asked, bool(trust))
        names = ", ".join(f.name for f in asked)
        said = "trusted: passed to the Claude CLI" if trust else "not trusted, ignored"
        conv.add_line("notice", f"{names}: {said}")

    screen.app.push_screen(ProjectTrustModal(asked), answered)
