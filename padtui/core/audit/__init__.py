"""One rewrite judged: the findings of each check and a verdict computed from them."""
