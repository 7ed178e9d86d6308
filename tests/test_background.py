"""The FTS worker thread: jobs run in order, errors reach the caller, a cancelled run stops early."""

import threading
import time

import pytest

from indexer.index.background import Background


def test_jobs_run_in_order_on_another_thread():
    done, threads = [], set()
    worker = Background()
    for i in range(5):
        worker.submit(lambda i=i: (done.append(i), threads.add(threading.get_ident())))
    worker.wait()
    worker.close()
    assert done == [0, 1, 2, 3, 4]
    assert threads and threading.get_ident() not in threads


def test_an_error_in_a_job_is_raised_by_wait_and_later_jobs_are_skipped():
    done = []
    worker = Background()
    worker.submit(lambda: 1 / 0)
    worker.submit(lambda: done.append("after"))
    with pytest.raises(ZeroDivisionError):
        worker.wait()
    worker.close()
    assert done == []


def test_close_with_cancel_skips_queued_jobs():
    gate, done = threading.Event(), []
    worker = Background()
    worker.submit(gate.wait)
    worker.submit(lambda: done.append("queued"))
    closing = threading.Thread(target=worker.close, kwargs={"cancel": True})
    closing.start()
    while not worker.cancelled:  # close() has marked the run cancelled before the first job ends
        time.sleep(0.001)
    gate.set()
    closing.join(5)
    assert not closing.is_alive() and done == []
