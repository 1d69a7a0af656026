"""Domain objects → one output format per module."""
