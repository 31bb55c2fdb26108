"""Guarding Claude Code's compactions: its hooks, memory files and settings (SPEC 9)."""
