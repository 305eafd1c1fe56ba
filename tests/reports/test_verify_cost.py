"""``ralph-tui verify`` of a bundle from someone else costs a bounded amount of work and
stops when asked: a 40 KB quote that is not in its 40 KB source ends at once with the
closest passage "not checked: too long" (it ran past ``timeout`` before, SIGTERM ignored);
an edited quote of a few KB gets its closest passage, one like nothing in its source
shows none; SIGTERM or Ctrl-C in the middle of a heavy
bundle ends the command within about a second (143, 130)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph_tui.evidence import QuoteLocation
from tests.reports.bundles import make_bundle, read_source, write_bundle

ROOT = Path(__file__).parents[2]


def random_words(rng: random.Random, size: int, vocabulary: list[str]) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        words.append(rng.choice(vocabulary))
        length += len(words[-1]) + 1
    return " ".join(words)


def hostile_bundle(folder: Path, quote_size: int, source_size: int, quotes: int = 1) -> Path:
    """A source of random words, and quotes of other random words from the same
    vocabulary: each shares words with the source everywhere, and is in it nowhere."""
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = ["".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(2000)]
    (folder / "source.txt").write_text(random_words(rng, source_size, vocabulary))
    source, document = read_source(folder / "source.txt")
    located = []
    for number in range(1, quotes + 1):
        text = random_words(rng, quote_size, vocabulary)
        assert text not in document.text
        located.append(
            QuoteLocation(
                number=number, text=text, found="exact", source=document.name, start=0, end=10
            )
        )
    return write_bundle(folder / "bundle.json", make_bundle([source], located))


def finish(process: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """The process's output once it ends; killed, and the test failed, past ``timeout``."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"verify still ran after {timeout} s")


def verify_process(bundle: Path, *flags: str) -> subprocess.Popen[str]:
    # numpy's BLAS on one thread: the only thread past the main one is then the one that
    # checks the quotes (see ``in_the_quotes``)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "ralph_tui", "verify", str(bundle), *flags],
        cwd=bundle.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def in_the_quotes(process: subprocess.Popen[str], timeout: float = 60) -> None:
    """Waits until ``process`` checks the quotes: past start-up (several seconds on a
    busy machine), in the thread that does it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if len(os.listdir(f"/proc/{process.pid}/task")) > 1:
            time.sleep(0.5)  # well into it
            return
        time.sleep(0.02)
    pytest.fail(f"verify did not reach the quotes: {process.poll()=}")


def test_a_40_kb_quote_not_in_its_40_kb_source_ends_at_once_not_checked_too_long(
    tmp_path: Path, clean_env: None
) -> None:
    bundle = hostile_bundle(tmp_path, 40_000, 40_000)
    started = time.monotonic()
    process = verify_process(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    out, err = finish(process, 30)
    took = time.monotonic() - started
    assert process.returncode == 1, err
    [quote] = json.loads(out)["quotes"]
    assert quote["status"] == "changed"
    assert "closest passage not checked: too long (40,0" in quote["detail"]
    assert quote["closest"] is None
    assert took < 10  # a guard only: it takes well under a second past start-up


def test_an_edited_quote_of_a_few_kb_gets_its_closest_passage_quickly(
    tmp_path: Path, clean_env: None
) -> None:
    bundle = hostile_bundle(tmp_path, 100, 200_000)
    source = (tmp_path / "source.txt").read_text()
    passage = source[100_000:105_000]
    edited = passage.replace(" a", " A").replace("e ", "E ")
    raw = json.loads(bundle.read_text())
    raw["quotes"][0]["text"] = edited
    bundle.write_text(json.dumps(raw))
    started = time.monotonic()
    process = verify_process(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    out, err = finish(process, 30)
    assert time.monotonic() - started < 10, err
    [quote] = json.loads(out)["quotes"]
    assert quote["status"] == "changed"
    assert "the closest passage" in quote["detail"] and quote["similarity"] > 0.8
    closest = quote["closest"]
    assert abs(closest["start"] - 100_000) < 20 and len(closest["text"]) <= len(edited) + 200


def test_a_quote_like_nothing_in_its_source_shows_no_passage(
    tmp_path: Path, clean_env: None
) -> None:
    bundle = hostile_bundle(tmp_path, 5_000, 200_000)
    process = verify_process(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    out, err = finish(process, 30)
    [quote] = json.loads(out)["quotes"]
    assert quote["status"] == "changed" and quote["closest"] is None, err
    assert "nor anything like it" in quote["detail"] and "not shown" in quote["detail"]


@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_in_the_middle_of_a_heavy_bundle_ends_it_within_a_second(
    tmp_path: Path, clean_env: None, signum: int, exit_code: int
) -> None:
    # 300 quotes of 6.5 KB against 400 KB: about 0.05 s each, 15 s or more in all
    bundle = hostile_bundle(tmp_path, 6_500, 400_000, quotes=300)
    process = verify_process(bundle, "--out-dir", str(tmp_path / "out"))
    in_the_quotes(process)
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signum)
    _out, err = finish(process, 10)
    took = time.monotonic() - sent
    assert process.returncode == exit_code, err
    assert took < 2, f"{took:.2f} s"  # well within a second on an idle machine


def test_sigterm_while_a_large_bundle_is_parsed_ends_it_within_a_second(
    tmp_path: Path, clean_env: None
) -> None:
    """A bundle of 24 MB of small numbers takes seconds to parse within bounds: SIGTERM
    stops the parse (it used to wait for it to end, in the event loop)."""
    bundle = hostile_bundle(tmp_path, 100, 1_000)
    raw = json.loads(bundle.read_text())
    raw["claims"] = [{"line": 1, "text": "x", "quotes": [1] * 1_000} for _ in range(8_000)]
    bundle.write_text(json.dumps(raw))
    size = bundle.stat().st_size
    process = verify_process(bundle, "--out-dir", str(tmp_path / "out"))
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        # bytes read: start-up reads about 11 MB of modules, so past the bundle's size it
        # has read the bundle, and parses it
        read = int(Path(f"/proc/{process.pid}/io").read_text().split()[1])  # rchar
        if read >= size:
            break
        time.sleep(0.01)
    assert process.poll() is None, "the bundle was parsed before the signal"
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _out, err = finish(process, 10)
    took = time.monotonic() - sent
    assert process.returncode == 143, err
    assert took < 2, f"{took:.2f} s"
