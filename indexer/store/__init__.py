"""The store: its files and their rules.

Finding the files (walk), reading them (parse, with the YAML readers flat_yaml and yaml_loader), one file's
rules (validate, rules), the rules across files (crossfile), the problem codes (problems, problem_cap),
timestamps and the store's settings. Knows nothing of the index: imports only `indexer.sqlite` beside
itself.
"""
