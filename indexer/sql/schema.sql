-- The tables of seamless.db. Created once; the indexer keeps them in step with the store.

CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,          -- ULID from the frontmatter, stable forever
    kind TEXT NOT NULL,           -- constraint, runbook, protocol, gotcha, decision, refuted, reference, stage
    name TEXT NOT NULL,           -- kebab-case, unique among a project's active memories
    description TEXT NOT NULL,    -- the one line every index shows
    project TEXT,                 -- NULL = global
    status TEXT NOT NULL,         -- active, superseded, archived
    stage_status TEXT,            -- stages only: open, in_progress, blocked, done, unknown
    stage_gate TEXT,              -- stages only: human, ai or NULL
    pinned INTEGER NOT NULL,      -- 1 for constraints and live stages
    created TEXT,
    updated TEXT,
    valid_from TEXT,
    invalid_at TEXT,
    superseded_by TEXT,
    supersedes TEXT,              -- the memory this one replaced, as the supersede path records it
    source_session TEXT,
    model TEXT,
    tags TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings
    body TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE     -- relative to the store, forward slashes
);
-- a briefing's walk (briefing_ledger.sql): the next memory newest first, ties by id, is one seek at any number of ties
CREATE INDEX IF NOT EXISTS memories_project_newest ON memories (project, updated DESC, id);
CREATE INDEX IF NOT EXISTS memories_project_pinned ON memories (project, pinned);  -- a briefing's pinned rows
CREATE INDEX IF NOT EXISTS memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_supersedes ON memories (supersedes) WHERE supersedes IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_name ON memories (name);
-- the explorer's orders and facets, each counted in one pass over an index led by its column. None is led by status
-- or created: with no ANALYZE, SQLite took such an index for a selective one and read every active memory through it
CREATE INDEX IF NOT EXISTS memories_updated ON memories (updated);
CREATE INDEX IF NOT EXISTS memories_facets ON memories (kind, status, stage_status, model);
CREATE INDEX IF NOT EXISTS memories_model ON memories (model);
CREATE INDEX IF NOT EXISTS memories_stage_status ON memories (stage_status);
-- the tags facet over a filtered page reads only this (plugins/array_facet.py), not the wide rows of the table
CREATE INDEX IF NOT EXISTS memories_tags ON memories (tags);
-- each memory's tags, a row a tag: the whole table's tags facet counts them in one pass, not splitting every array
CREATE TABLE IF NOT EXISTS memory_tags (
    tag TEXT NOT NULL,
    memory INTEGER NOT NULL,      -- memories.rowid
    PRIMARY KEY (tag, memory)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY,        -- relative to the store, forward slashes
    id TEXT UNIQUE,               -- optional ULID
    title TEXT NOT NULL,          -- frontmatter title, else first # heading, else file name
    project TEXT,                 -- NULL = global
    created TEXT,
    updated TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    body TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS notes_updated ON notes (updated);
CREATE INDEX IF NOT EXISTS notes_project ON notes (project);

CREATE TABLE IF NOT EXISTS problems (
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    severity TEXT NOT NULL,       -- error (file not indexed) or warning (indexed)
    code TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS problems_path ON problems (path);

CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value                         -- no type: numbers stay numbers
);

-- Bookkeeping for incremental runs: what each file looked like when last read.
CREATE TABLE IF NOT EXISTS index_files (
    path TEXT PRIMARY KEY,
    type TEXT NOT NULL,           -- memory or note
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,    -- -1 for a file too recent to trust (read again next run)
    ctime_ns INTEGER NOT NULL,    -- changes on chmod and rename too, which leave size and mtime alone
    digest TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS index_runs (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    mode TEXT NOT NULL,           -- full, incremental, no-op, or paths (build.index_paths)
    files_seen INTEGER NOT NULL,
    files_changed INTEGER NOT NULL,
    files_deleted INTEGER NOT NULL,
    memories INTEGER NOT NULL,
    notes INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    seconds REAL NOT NULL
);

-- What the last run saw of each folder: a hash of its files' stat; NULL when one was too recent to trust (RACY_NS)
CREATE TABLE IF NOT EXISTS index_folders (
    folder TEXT PRIMARY KEY,
    walk TEXT
);

-- a briefing's pinned rows, read from this index alone (not from the wide rows, bodies and all)
CREATE INDEX IF NOT EXISTS memories_pinned_briefing ON memories (project, pinned, kind, updated, id, name, description, status, stage_status, stage_gate, valid_from, invalid_at) WHERE pinned = 1;

-- About the index itself, by key: `store` (the store it was built from), `generation` (runs that changed it)
CREATE TABLE IF NOT EXISTS index_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

-- Who follows the store (`seamless watch`, docs/freshness.md): one row per watcher process
CREATE TABLE IF NOT EXISTS index_watch (
    id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started TEXT NOT NULL,        -- UTC, when it began following changes
    heartbeat TEXT NOT NULL,      -- UTC, renewed at least every 5 s while it runs
    stopped TEXT,                 -- UTC, set when it stopped cleanly; NULL while running (or if it was killed)
    last_batch TEXT,              -- UTC, when it last applied a batch of changes
    last_batch_size INTEGER,      -- how many changed paths that batch held
    batches INTEGER NOT NULL DEFAULT 0
);

-- the explorer's home page, the store's life and the gardener count and filter from this index alone
-- (overview.sql, store_life.sql, gardener.sql), never reading the wide rows
CREATE INDEX IF NOT EXISTS memories_overview ON memories (project, kind, status, pinned, stage_status, valid_from, invalid_at, created, updated);

-- The store's git history (SPEC section 10): one row per store file that a commit changed ("commit": quote it)
CREATE TABLE IF NOT EXISTS revisions (
    "commit" TEXT NOT NULL,
    committed_at TEXT NOT NULL,   -- UTC, the committer's time
    author TEXT NOT NULL,         -- the git author, Name <email>
    message TEXT NOT NULL,        -- the commit message's first line
    path TEXT NOT NULL,           -- relative to the store, forward slashes
    id TEXT,                      -- the memory or note in the file (for a deletion, the one deleted); NULL if unread
    change TEXT NOT NULL,         -- added, modified, deleted, renamed
    old_path TEXT,                -- renamed: where the file was
    blob TEXT,                    -- the file's git object after the commit; NULL when deleted
    generation INTEGER NOT NULL,  -- 1 + its parents' largest: parents before children, the same on every clone
    PRIMARY KEY ("commit", path)
);
-- a memory's revisions in order (the memory page, `history --revisions`), and each one's first author read from
-- this index alone (attribution.sql: a tenth of the time at 100,000 memories)
CREATE INDEX IF NOT EXISTS revisions_id ON revisions (id, generation, committed_at, "commit", author);

-- Every commit the revisions have read (those that changed no store file too): a new commit's generation
-- is worked out from its parents'
CREATE TABLE IF NOT EXISTS revision_commits (
    "commit" TEXT PRIMARY KEY,
    generation INTEGER NOT NULL
) WITHOUT ROWID;

-- The text of each revision of a memory or note that has more than one: what the memory page diffs, with no git
-- at page time. NULL when the file was over index.max_file_bytes.
CREATE TABLE IF NOT EXISTS revision_texts (
    blob TEXT PRIMARY KEY,
    text TEXT
);

-- Each `Seamless-Concurrent-Edit: ID` trailer of a commit (seamless sync writes them on merge commits, SPEC 10):
-- a memory both sides changed, where one side's field won. "Needs a human" lists them.
CREATE TABLE IF NOT EXISTS concurrent_edits (
    "commit" TEXT NOT NULL,
    committed_at TEXT NOT NULL,   -- UTC, the merge commit's committer time
    id TEXT NOT NULL,             -- the memory
    PRIMARY KEY ("commit", id)
);
CREATE INDEX IF NOT EXISTS concurrent_edits_id ON concurrent_edits (id);
-- The gardener's archive proposals of stages (gardener.sql's gardener_candidates), and the stages waiting for a
-- human (needs_human.sql), each read from an index of their own: a tenth of the memories and a hundredth
CREATE INDEX IF NOT EXISTS memories_gateless_stages ON memories (updated, pinned, valid_from, invalid_at)
    WHERE kind = 'stage' AND stage_status IN ('done', 'unknown');
CREATE INDEX IF NOT EXISTS memories_human_stages ON memories (stage_status, updated, id, valid_from, invalid_at)
    WHERE kind = 'stage' AND stage_gate = 'human' AND stage_status IN ('open', 'in_progress', 'blocked');

-- The gardener's reading of the active memories (indexer/gardener/findings.py, SPEC section 12): memories of one
-- scope whose descriptions read alike word for word are one group, known by `signature` (of the scope and reading)
CREATE TABLE IF NOT EXISTS gardener_words (
    id TEXT PRIMARY KEY,          -- an active memory
    signature INTEGER NOT NULL,   -- its group
    member BLOB NOT NULL          -- what a finding says of the memory (name, kind, description, dates), hashed
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS gardener_words_signature ON gardener_words (signature);

-- Each group's terms (its newest memory's words and value slots), to find what it may pair with: each term as a
-- 32-bit key (findings.term_key), packed 4 bytes each
CREATE TABLE IF NOT EXISTS gardener_groups (
    signature INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    terms BLOB NOT NULL
);

-- The groups holding each term found in at most 100 groups of its scope (findings.COMMON) ...
CREATE TABLE IF NOT EXISTS gardener_terms (
    scope TEXT NOT NULL,
    term INTEGER NOT NULL,
    signature INTEGER NOT NULL,
    PRIMARY KEY (scope, term, signature)
) WITHOUT ROWID;

-- ... and how many hold each one found in more, which brings no two together
CREATE TABLE IF NOT EXISTS gardener_common (
    scope TEXT NOT NULL,
    term INTEGER NOT NULL,
    groups INTEGER NOT NULL,
    PRIMARY KEY (scope, term)
) WITHOUT ROWID;

-- What the gardener found, as of its last settle: read by gardener.sql, which words each finding's reason and
-- suggested command from its memories as they are (and adds the archive proposals)
CREATE TABLE IF NOT EXISTS gardener_findings (
    rank INTEGER NOT NULL,        -- what it is, as its place in the gardener's order (canned.PROPOSAL_ORDER):
                                  -- 1 contradiction, 2 duplicate, 3 vague-description ...
    updated TEXT,                 -- ... then its first memory's updated (NULL when none, first), then ids
    ids TEXT NOT NULL,            -- JSON array of every memory it involves, oldest first: the first is the one to
                                  -- act on (the older of a pair, the oldest of a group)
    signature INTEGER NOT NULL,   -- the group it is about ...
    other INTEGER,                -- ... and the other one, for a pair (NULL: the memories of one group)
    evidence TEXT NOT NULL,       -- what was found: the shared words, the two values, the vague description's fault
    since INTEGER NOT NULL        -- the latest valid_from of its memories, in seconds since 1970 (the earliest time
                                  -- there is when none has one): from then on all of them are valid
);
CREATE INDEX IF NOT EXISTS gardener_findings_signature ON gardener_findings (signature);
CREATE INDEX IF NOT EXISTS gardener_findings_other ON gardener_findings (other) WHERE other IS NOT NULL;
-- the findings in the gardener's order (ids start with the first memory's id, 26 characters: ordering by ids is
-- ordering by that id, then the others), each with `since`: the first of them and how many are valid throughout
-- as_of read from this index alone (the home page, needs_human_page.sql)
CREATE INDEX IF NOT EXISTS gardener_findings_order ON gardener_findings (rank, updated, ids, since);

-- The memories changed since the gardener's last settle, when an index run left them to a settle of its own
-- (indexer/gardener/background.py): an id per memory added, changed or removed, or '*' when the run could not
-- say which (every memory is to be read again). Empty while the findings are in step.
CREATE TABLE IF NOT EXISTS gardener_pending (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL
);

-- The gardener's dismissals, the lines of the store's gardener/dismissed.jsonl: a proposal of `kind` with `ids` is
-- not listed while each memory keeps its `updated` here (shared.sql)
CREATE TABLE IF NOT EXISTS gardener_dismissed (
    line INTEGER PRIMARY KEY,     -- its line in the file
    kind TEXT NOT NULL,
    ids TEXT NOT NULL,
    updated TEXT NOT NULL,        -- JSON object: each memory's id -> its `updated` when dismissed
    why TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gardener_dismissed_proposal ON gardener_dismissed (kind, ids);
