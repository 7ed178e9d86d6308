"""The store: its files and their rules.

Finding the files (walk), reading them (parse: python-frontmatter's split, then yaml_loader, PyYAML with the flat
reader flat_yaml in front), one file's rules (validate, rules), the rules across files (crossfile), the problem
codes (problems, problem_cap), timestamps, the store's settings, the conflict markers a git merge leaves
(conflict_markers), store text printed on one line (printable), and Claude Code's memory files read as memories
(claude_code). Knows nothing of the index: imports only `indexer.sqlite` beside itself.
"""
