# converter/: filled in by its issue.
