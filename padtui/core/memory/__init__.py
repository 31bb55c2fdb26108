"""An agent's memory as a set of files (SPEC §10, the README's "Your memory is many files").

``patterns``: the table of files each agent loads and when; ``front``: the front matter that
scopes a rules file; ``references``: the imports, links and "read X" a memory file makes;
``discovery``: the store found under a root (a folder on disk or a git commit's tree);
``audit``: two versions of a store judged as one memory; ``git``: a repository's store at
each commit.
"""
