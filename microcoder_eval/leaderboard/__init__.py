"""Leaderboards: published LiveCodeBench numbers (with sources and windows) and our own runs,
rendered as JSON, a Markdown table per window and a PNG chart."""
