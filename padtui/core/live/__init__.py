"""A live pad: watching its file, one inspection of it as the inspector sees it, and its
rules at risk."""
