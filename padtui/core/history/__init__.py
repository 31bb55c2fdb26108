"""A pad's versions over time: the journal's audited history, and the versions kept in git."""
