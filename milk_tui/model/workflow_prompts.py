"""What each dev-workflow role is asked (model/workflow.py reads their answers).

The designer is asked for its questions first; its answer is either questions for the user
or a standalone ``NO_QUESTIONS`` line followed by the plan.  The generator gets only its
sprint's section and, from the second pass on, the evaluator's last findings; the evaluator
ends with exactly one verdict line.
"""

from __future__ import annotations

ROLE_SYSTEM = (
    "You are the {role} of a software development workflow in which three agents work in "
    "turns: a designer writes a plan of sprints, a generator does each sprint's work with its "
    "tools, an evaluator checks it and gives a verdict. You work for the user in {cwd}. "
    "Each of your turns stands on its own: everything you need is in the message."
)

PLAN_FORMAT = (
    "Write the plan in Markdown with these sections:\n"
    "## Spec — what is to be built, precisely.\n"
    "## Limits — the lines `max_passes: N` (attempts per sprint, 1-10) and "
    "`max_sprints: N`.\n"
    "## Sprint Plan — one `## Sprint N` heading per sprint (N = 1, 2, …), each with its "
    "goal and the checks that tell it is done. Keep sprints few and concrete."
)


def _behaviour(text: str) -> str:
    return (
        f"\n\nHow to work (the user's instructions for this role):\n{text.strip()}" if text else ""
    )


def designer_questions_prompt(task: str, behaviour: str = "") -> str:
    return (
        f"Task from the user:\n{task}\n\n"
        "Before planning: if anything essential about the task is unclear, list your "
        "questions for the user (numbered, at most five) and stop. If nothing is unclear, "
        f"write a line with only `NO_QUESTIONS` on it, and after it the plan.\n\n{PLAN_FORMAT}"
        + _behaviour(behaviour)
    )


def designer_finalize_prompt(task: str, questions: str, answers: str, behaviour: str = "") -> str:
    said = answers.strip() or "(no answers: use sensible defaults and say which you chose)"
    return (
        f"Task from the user:\n{task}\n\nYour questions:\n{questions}\n\n"
        f"The user's answers:\n{said}\n\nNow write the plan.\n\n{PLAN_FORMAT}"
        + _behaviour(behaviour)
    )


def generator_prompt(
    task: str, section: str, sprint: int, total: int, pass_: int, findings: str, behaviour: str = ""
) -> str:
    text = (
        f"Overall task:\n{task}\n\nYou are doing sprint {sprint} of {total} (pass {pass_}). "
        f"The sprint:\n{section}\n\n"
    )
    if pass_ > 1 and findings.strip():
        text += (
            "The evaluator's findings on the previous pass (address every one):\n"
            f"{findings.strip()}\n\n"
        )
    return (
        text + "Use your tools to do the work in the folder. When you are done, a written "
        "summary is mandatory: what you changed (files) and how you checked it."
        + _behaviour(behaviour)
    )


def evaluator_prompt(
    task: str,
    section: str,
    output: str,
    sprint: int,
    total: int,
    pass_: int,
    max_passes: int,
    behaviour: str = "",
) -> str:
    last = pass_ >= max_passes
    verdicts = "good_to_go, sprint_done" if last else "good_to_go, needs_refinement, sprint_done"
    return (
        f"Overall task:\n{task}\n\nEvaluate sprint {sprint} of {total}, pass {pass_} of "
        f"{max_passes}. The sprint:\n{section}\n\nThe generator's report:\n{output.strip()}\n\n"
        "Check the work itself in the folder with your tools, not only the report. List "
        "concrete findings. End your answer with exactly ONE line holding one verdict: "
        f"{verdicts}. good_to_go = the sprint is done well; sprint_done = done, with minor "
        "findings left for later; needs_refinement = another pass must fix the findings."
        + (" This is the last pass: do not answer needs_refinement." if last else "")
        + _behaviour(behaviour)
    )


def summary_text(
    task: str, plan_head: str, history: list[tuple[int, int, str]], files: list[str], outcome: str
) -> str:
    """The session's record of a workflow run, read by both agents afterwards."""
    lines = [f"[dev workflow] {outcome}", f"Task: {task}"]
    if plan_head:
        lines += ["Plan:", plan_head]
    if history:
        lines.append("Verdicts: " + "; ".join(f"sprint {s} pass {p}: {v}" for s, p, v in history))
    lines.append("Files changed: " + (", ".join(files) if files else "none recorded"))
    return "\n".join(lines)
