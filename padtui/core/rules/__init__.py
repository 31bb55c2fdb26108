"""Rules wherever they live: which claims of a pad bind the agent, and with what force."""
