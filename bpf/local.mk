# bpf/: filled in by its issue.
