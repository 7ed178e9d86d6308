-- How fresh the index is, as one row (docs/freshness.md): its last run and the latest watcher, `watching` only while
-- it has not stopped and its heartbeat is at most :alive_seconds old. Ages in seconds, by this reader's clock.
SELECT
    r.started AS last_run,
    r.mode AS last_run_mode,
    r.seconds AS last_run_seconds,
    r.files_changed AS last_run_changed,
    r.files_deleted AS last_run_deleted,
    CAST(round((julianday('now') - julianday(r.started)) * 86400) AS INTEGER) AS last_run_age,
    w.pid AS watcher_pid,
    w.host AS watcher_host,
    w.started AS watching_since,
    w.heartbeat,
    CAST(round((julianday('now') - julianday(w.heartbeat)) * 86400) AS INTEGER) AS heartbeat_age,
    w.stopped AS watcher_stopped,
    w.last_batch,
    w.last_batch_size,
    coalesce(w.stopped IS NULL AND (julianday('now') - julianday(w.heartbeat)) * 86400 <= :alive_seconds, 0) AS watching
FROM (SELECT 1)
LEFT JOIN (SELECT * FROM index_runs ORDER BY id DESC LIMIT 1) AS r
LEFT JOIN (SELECT * FROM index_watch ORDER BY heartbeat DESC, id DESC LIMIT 1) AS w
