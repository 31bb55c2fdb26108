"""One rewrite judged: the findings of each check and a verdict computed from them.

``rewrite.audit`` is the entry point. The table of finding codes is ``findings``; the
checks (``sealed``, ``claims``, ``pad``) each return findings, read from the two versions
(``context``) and from where each old claim went (``fates``, by ``carry``, ``matching`` and
``wording``); ``verdict`` computes the verdict from the findings alone.
"""
