"""A thread that runs the index's FTS5 work while the main thread reads and parses files.

SQLite releases the GIL while it works, so one statement that indexes a whole batch of rows
(fts.index_rows) runs on the second core. The two threads never use the connection at once:
the main thread calls `wait()` before its own next statement.
"""

import queue
import threading


class Background:
    """Runs submitted jobs one at a time, in order, on one worker thread."""

    def __init__(self):
        self.jobs: queue.Queue = queue.Queue()
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._work, name="seamless-fts", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                if job is None:
                    return
                if self.error is None and not self.cancelled:
                    job()
            except BaseException as e:  # handed to the main thread at its next wait()
                self.error = e
            finally:
                self.jobs.task_done()

    def submit(self, job) -> None:
        """Queue `job` (a callable) after the jobs already submitted."""
        self._raise()
        self.jobs.put(job)

    def wait(self) -> None:
        """Return when every submitted job has run; raise the first error one of them raised."""
        self.jobs.join()
        self._raise()

    def close(self, cancel: bool = False) -> None:
        """Stop the thread after the jobs queued so far (skipping them if `cancel`)."""
        self.cancelled = self.cancelled or cancel
        self.jobs.put(None)
        self.thread.join()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error
