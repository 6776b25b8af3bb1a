"""The dev workflow's plain parts: its checkpoint record and what is read from the roles'
text — the verdict, the plan's limits and its sprints (docs/adr/0044-dev-workflow.md).

A designer writes a plan (``## Spec``, ``## Limits`` with ``max_passes: N`` /
``max_sprints: N``, ``## Sprint N`` sections); per sprint a generator does the work and an
evaluator ends with one verdict line; the loop (engine/workflow/runner.py) checkpoints a
``WorkflowState`` after every step so a resume continues with the role that was next.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["designer", "generator", "evaluator", "done"]
ROLES: tuple[str, ...] = ("designer", "generator", "evaluator")
Verdict = Literal["good_to_go", "sprint_done", "needs_refinement", "unknown"]
ADVANCING: frozenset[str] = frozenset({"good_to_go", "sprint_done"})
"""Verdicts that end a sprint; the others run the sprint again (or exhaust its passes)."""

DEFAULT_MAX_PASSES = 5
"""Passes per sprint when the plan names none."""

NO_QUESTIONS = "NO_QUESTIONS"
STATE_VERSION = 1

_VERDICTS: tuple[tuple[Verdict, re.Pattern[str]], ...] = (
    ("good_to_go", re.compile(r"good[_ ]to[_ ]go", re.I)),
    ("sprint_done", re.compile(r"sprint[_ ]done", re.I)),
    ("needs_refinement", re.compile(r"needs[_ ]refinement", re.I)),
)
_SPRINT_HEAD = re.compile(r"^#{2,6}\s+Sprint\s+(\d+)\b.*$", re.I | re.M)
_ANY_HEAD = re.compile(r"^#{1,6}\s+\S", re.M)
_LIMIT = re.compile(r"^\W*(max_passes|max_sprints)\W*[:=]\s*(\d+)", re.I | re.M)


def parse_verdict(text: str) -> Verdict:
    """The verdict of the LAST line naming one (an evaluator may discuss the other verdicts
    before it decides); ``unknown`` when no line does."""
    for line in reversed(text.splitlines()):
        for verdict, pattern in _VERDICTS:
            if pattern.search(line):
                return verdict
    return "unknown"


def count_sprints(plan: str) -> int:
    """The number of distinct ``## Sprint N`` headings; a plan without any is one sprint."""
    return max(1, len({m.group(1) for m in _SPRINT_HEAD.finditer(plan)}))


def parse_limits(plan: str) -> tuple[int | None, int | None]:
    """(max_passes, max_sprints) the plan names, None for one it does not (or names as 0)."""
    found: dict[str, int] = {}
    for m in _LIMIT.finditer(plan):
        found.setdefault(m.group(1).lower(), int(m.group(2)))
    passes, sprints = found.get("max_passes"), found.get("max_sprints")
    return (passes or None), (sprints or None)


def sprint_section(plan: str, sprint: int) -> str:
    """The text of ``## Sprint <sprint>`` up to the next heading of the same or a higher
    level; the whole plan when it has no such section (a plan of one sprint)."""
    for m in _SPRINT_HEAD.finditer(plan):
        if int(m.group(1)) != sprint:
            continue
        level = _hashes(m.group(0))
        rest = plan[m.end() :]
        for h in _ANY_HEAD.finditer(rest):
            if _hashes(h.group(0)) <= level:
                rest = rest[: h.start()]
                break
        return (m.group(0) + rest).strip()
    return plan.strip()


def _hashes(heading: str) -> int:
    return len(heading) - len(heading.lstrip("#"))


def split_questions(text: str) -> tuple[bool, str]:
    """(the designer asked nothing, the text after its standalone ``NO_QUESTIONS`` line);
    (False, its questions) when no line is exactly ``NO_QUESTIONS``."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().strip("*`").strip() == NO_QUESTIONS:
            return True, "\n".join(lines[i + 1 :]).strip()
    return False, text.strip()


@dataclass
class VerdictEntry:
    sprint: int
    pass_: int
    verdict: str


@dataclass
class WorkflowState:
    """The checkpoint: everything a resume needs besides the plan and the role outputs,
    which are files beside it (engine/workflow/files.py)."""

    workflow_id: int
    session_id: str
    task: str
    agent_map: dict[str, str]
    """role → configured agent name (``primary``/``escalation`` are resolved at start)."""
    prompts: dict[str, str] = field(default_factory=dict)
    """role → behaviour prompt added to that role's instructions (also on resume)."""
    name: str = "dev"
    role: Role = "designer"
    sprint: int = 1
    pass_: int = 1
    total_sprints: int = 0
    max_passes: int = 0
    """0 until the plan is read; an extension doubles it."""
    verdict_history: list[VerdictEntry] = field(default_factory=list)
    cli_sessions: dict[str, str] = field(default_factory=dict)
    """role → the Claude CLI session that role resumes (never shared between roles)."""
    nonce: str = ""
    """The tag nonce the roles' fact tags carry (model/tags.py)."""
    answers: str = ""
    files_changed: list[str] = field(default_factory=list)
    cost_usd: float = 0.0
    elapsed_s: float = 0.0
    """Time spent running, summed over runs (a resume adds to it)."""
    exhausted: bool = False
    """The last run stopped at the pass limit; ``extend`` continues with twice the passes."""
    error: str = ""
    summarised: bool = False
    version: int = STATE_VERSION

    @property
    def finished(self) -> bool:
        return self.role == "done"

    def to_json(self) -> str:
        data = asdict(self)
        data["pass"] = data.pop("pass_")
        data["verdict_history"] = [
            {"sprint": v.sprint, "pass": v.pass_, "verdict": v.verdict}
            for v in self.verdict_history
        ]
        return json.dumps(data, indent=2, ensure_ascii=False)

    @staticmethod
    def from_json(text: str) -> WorkflowState:
        """ValueError for anything that is not a state this version wrote."""
        try:
            data: dict[str, Any] = json.loads(text)
            data["pass_"] = data.pop("pass")
            history = [
                VerdictEntry(int(v["sprint"]), int(v["pass"]), str(v["verdict"]))
                for v in data.pop("verdict_history", [])
            ]
            known = set(WorkflowState.__dataclass_fields__)
            state = WorkflowState(
                **{k: v for k, v in data.items() if k in known}, verdict_history=history
            )
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as e:
            raise ValueError(f"not a workflow state: {e}") from e
        if state.role not in (*ROLES, "done") or state.sprint < 1 or state.pass_ < 1:
            raise ValueError(f"not a workflow state: role {state.role!r}")
        return state

    def position(self) -> str:
        """``sprint 2/3 pass 1`` (the total once the plan is known)."""
        total = f"/{self.total_sprints}" if self.total_sprints else ""
        return f"sprint {self.sprint}{total} pass {self.pass_}"
