"""A session writer in its own process, driven line by line from its stdin.

``python -m tests.tui.live_writer OUT_DIR`` creates a session, prints its id, then
obeys one command per line, printing ``ok`` after each, so a test knows what is on
disk before it looks at the screen:

- ``events A B``: append the scripted run's events ``A`` to ``B - 1`` as whole lines;
- ``half K`` / ``rest K``: write event ``K``'s line in two pieces (a line still landing);
- ``iteration N``: write iteration ``N``'s trace (iteration 2 passes);
- ``finish``: record the session as passed;
- ``exit``: leave without finishing, as a killed run does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ralph_tui.events import event_to_json
from ralph_tui.traces.files import EVENTS_FILE
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import SessionHandle, TraceStore
from tests.tui.scripted import QUESTION, iteration_trace, scripted_events


def _raw(handle: SessionHandle, data: bytes) -> None:
    with (handle.folder / EVENTS_FILE).open("ab") as file:
        file.write(data)


def main(out_dir: Path) -> None:
    store = TraceStore(out_dir)
    handle = store.create_session(SessionRecord(mode="qa", query=QUESTION))
    events = scripted_events(handle.session_id)
    print(handle.session_id, flush=True)
    for command in sys.stdin:
        verb, *numbers = command.split()
        args = [int(n) for n in numbers]
        if verb == "events":
            for event in events[args[0] : args[1]]:
                handle.append_event(event)
        elif verb in ("half", "rest"):
            line = (event_to_json(events[args[0]]) + "\n").encode()
            _raw(handle, line[:20] if verb == "half" else line[20:])
        elif verb == "iteration":
            handle.write_iteration(iteration_trace(args[0], passed=args[0] == 2))
        elif verb == "finish":
            handle.finish("passed", duration_ms=20_000, input_tokens=4800, output_tokens=1200)
        elif verb == "exit":
            break
        print("ok", flush=True)
    store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
