# recorder/: filled in by its issue.
