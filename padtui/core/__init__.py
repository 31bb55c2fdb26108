"""padtui's pure core: model, formats, tokens, compaction, audit. Never imports Textual."""
