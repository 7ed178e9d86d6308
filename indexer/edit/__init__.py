"""The write path: the only code that changes the store's files.

store_write (write, update, supersede, append, archive, delete, note: the files first, then their commit and the
index for the paths touched), frontmatter_edit (frontmatter text that keeps every other byte), atomic (a file
replaced all at once), merge (the merge rules for a file changed on two hosts) and sync (`seamless sync`).
May import every layer below it (store, git, index, query, sql, sqlite); never a front end. The explorer's
plugins never import it: the explorer stays read-only.
"""
