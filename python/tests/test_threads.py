"""The GIL is released while a command runs; cancel from another thread; Ctrl-C cancels the command."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import bashkit


def test_gil_is_released_while_a_command_runs(session):
    ticks = 0
    stop = threading.Event()

    def counter():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=counter)
    t.start()
    try:
        time.sleep(0.05)
        before = ticks
        r = session.execute("sleep 1; echo done")
        during = ticks - before
    finally:
        stop.set()
        t.join()
    assert r.stdout == "done\n"
    # A held GIL would leave the counter at a tick or two; released, it runs for the whole second (~1000
    # ticks; the bound is low for loaded machines).
    assert during > 20, during


def test_two_sessions_run_in_parallel(sandbox):
    with sandbox.session("p1") as a, sandbox.session("p2") as b:
        results = {}

        def run(name, s):
            results[name] = s.execute("sleep 1; echo " + name).stdout

        threads = [threading.Thread(target=run, args=(n, s)) for n, s in (("a", a), ("b", b))]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {"a": "a\n", "b": "b\n"}
        assert time.monotonic() - t0 < 1.9


def test_cancel_from_another_thread(session):
    done = threading.Event()

    def canceller():
        # A cancel that comes before the command starts is not kept: repeat until it has ended.
        while not done.wait(0.1):
            session.cancel()

    t = threading.Thread(target=canceller)
    t.start()
    t0 = time.monotonic()
    try:
        r = session.execute("sleep 30; echo not reached")
    finally:
        done.set()
        t.join()
    assert r.exit_code == 130 and r.stdout == "" and not r.timed_out and r.cancelled
    assert time.monotonic() - t0 < 10
    assert session.execute("echo usable").stdout == "usable\n"


def execute_interrupted(session, interrupt, *args):
    # A long command from the main thread, interrupt(*args) 0.3 s into it: the call raises KeyboardInterrupt
    # within seconds, and the session stays usable.
    timer = threading.Timer(0.3, interrupt, args)
    timer.start()
    t0 = time.monotonic()
    try:
        session.execute("sleep 30")
        raise AssertionError("execute was not interrupted")
    except KeyboardInterrupt:
        pass
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 10
    assert session.execute("echo after").stdout == "after\n"


def test_keyboard_interrupt_cancels_execute(session):
    # interrupt_main() simulates SIGINT arriving in the main thread (Python 3.10+), as Ctrl-C does.
    import _thread

    execute_interrupted(session, _thread.interrupt_main)


def test_ctrl_c_reaches_the_programs_own_wakeup_fd_and_cancels(session):
    # A program (asyncio does this) may set its own wakeup fd: a SIGINT during a command still cancels the
    # command, and the program's fd still receives the signal's byte.
    import socket

    a, b = socket.socketpair()
    a.setblocking(False)
    b.setblocking(False)
    old = signal.set_wakeup_fd(a.fileno())
    try:
        time.sleep(0.15)  # after a pause, the next command looks at the wakeup fd again
        execute_interrupted(session, os.kill, os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        assert signal.SIGINT in b.recv(16)
    finally:
        signal.set_wakeup_fd(old)
        a.close()
        b.close()


def test_a_signal_between_commands_interrupts_nothing(session):
    # The watch only cancels a command that runs: a SIGINT handled between two commands is the program's.
    got = []
    previous = signal.signal(signal.SIGINT, lambda *_: got.append(1))
    try:
        session.execute("true")
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        r = session.execute("sleep 0.2; echo ok")
        assert r.stdout == "ok\n" and r.exit_code == 0 and not r.cancelled
        assert got == [1]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_a_real_process(tmp_path):
    script = textwrap.dedent("""
        import sys, bashkit
        sb = bashkit.BashkitSandbox(base_dir=sys.argv[1])
        with sb.session("ctrl-c") as s:
            print("ready", flush=True)
            try:
                s.execute("sleep 30")
                print("not interrupted", flush=True)
            except KeyboardInterrupt:
                print("interrupted", s.execute("echo still usable").stdout.strip(), flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline() == "ready\n"
    time.sleep(0.3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=20)
    assert out == "interrupted still usable\n"
    assert p.returncode == 0
    assert time.monotonic() - t0 < 10


def test_execute_from_a_worker_thread(session):
    out = []
    t = threading.Thread(target=lambda: out.append(session.execute("echo from-thread").stdout))
    t.start()
    t.join()
    assert out == ["from-thread\n"]
