"""The dev workflow: designer → generator → evaluator as one engine task
(docs/adr/0044-dev-workflow.md).  ``control.WorkflowControl`` starts, resumes and clears it;
``runner.DevWorkflow`` is the loop; ``role_turn.RoleTurns`` runs one role's turn."""
