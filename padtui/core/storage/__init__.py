"""Bytes on disk: stamped reads and the swap, the pad's lock, compare-and-swap commits, and
the version journal."""
