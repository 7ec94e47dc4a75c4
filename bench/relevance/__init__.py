"""The relevance benchmark that can fail (issue 34): bench/relevance/README.md says what it measures and what is held out."""
