"""A trial compaction (a plan and its refusals) and sealing, the way out of a refusal."""
