"""Guarding Claude Code's compactions: its hooks, memory files and settings (the README's
"Guard Claude Code's compactions")."""
