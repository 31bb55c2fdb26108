"""Agents' own files: Claude Code transcripts and their compactions, Letta agent files."""
