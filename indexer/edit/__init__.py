"""The write path: the only code that changes the store's files (docs/development.md). It imports every layer below
it, never a front end; the explorer's plugins never import it: the explorer stays read-only."""
