"""milk-tui: two LLM agents, one conversation."""
