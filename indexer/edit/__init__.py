"""The write path: the only code that changes the store's files.

store_write (write, update, supersede, append, archive, delete, note: the files first, then the index for
the paths touched), frontmatter_edit (frontmatter text that keeps every other byte), atomic (a file
replaced all at once). May import every layer below it (store, index, query, sql, sqlite); never a front
end. The explorer's plugins never import it: the explorer stays read-only.
"""
