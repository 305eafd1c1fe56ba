"""What a cell read of ``context``, as the real child reports it: the slices it took, the
searches it made (``find``, ``index``, ``count``, ``in``, ``re`` functions), the head and
tail of ``context`` printed whole; each cell's reads on their own."""

from __future__ import annotations

import pytest
from conftest import OpenSandbox

from ralph_tui.sandbox import CellReads, Sandbox, SandboxLimits

TEXT = "Saffron is steeped in warm milk. Simmer the rice for 18 minutes. " * 20


@pytest.fixture
async def reading(open_sandbox: OpenSandbox) -> Sandbox:
    return await open_sandbox(globals={"context": TEXT, "other": TEXT})


async def reads_of(sandbox: Sandbox, code: str) -> CellReads:
    result = await sandbox.execute(code)
    assert result.error is None, result.error
    return result.reads


async def test_slices_taken_are_the_spans_read(reading: Sandbox) -> None:
    reads = await reads_of(reading, "a = context[10:40]\nb = context[30:50]\nprint(context[-5:])")
    n = len(TEXT)
    assert reads.spans == ((10, 50), (n - 5, n)) and reads.searches == ()


async def test_a_stepped_slice_counts_what_it_spans_and_an_index_counts_nothing(
    reading: Sandbox,
) -> None:
    assert (await reads_of(reading, "x = context[100:200:10]")).spans == ((100, 191),)
    assert (await reads_of(reading, "x = context[50:9:-20]")).spans == ((10, 51),)
    assert (await reads_of(reading, "x = context[5] + context[-1]")).spans == ()


async def test_searches_over_context_are_noted_and_other_strings_are_not(
    reading: Sandbox,
) -> None:
    code = (
        "context.find('saffron'); context.rfind('milk'); context.count('rice')\n"
        "context.index('Simmer'); context.rindex('warm'); 'minutes' in context\n"
        "other.find('not noted'); 'nor this' in other"
    )
    reads = await reads_of(reading, code)
    assert reads.searches == ("saffron", "milk", "rice", "Simmer", "warm", "minutes")
    assert reads.spans == ()


async def test_re_functions_on_context_note_their_patterns(reading: Sandbox) -> None:
    code = (
        "import re\n"
        "re.findall(r'simm\\w+', context, re.I)\n"
        "re.search(re.compile('steep(ed)?'), context)\n"
        "re.sub('milk', 'water', string=context)\n"
        "list(re.finditer('rice', other))\n"
        "re.split(r'\\.\\s', context)[:1]"
    )
    reads = await reads_of(reading, code)
    assert reads.searches == ("simm\\w+", "steep(ed)?", "milk", "\\.\\s")


async def test_printing_context_whole_reads_what_the_cut_output_shows(
    open_sandbox: OpenSandbox,
) -> None:
    sandbox = await open_sandbox(
        globals={"context": TEXT}, limits=SandboxLimits(max_output_chars=100)
    )
    n = len(TEXT)
    assert (await reads_of(sandbox, "print(context)")).spans == ((0, 50), (n - 50, n))
    assert (await reads_of(sandbox, "context")).spans == ((0, 50), (n - 50, n))
    assert (await reads_of(sandbox, "print(f'{context}')")).spans == ((0, 50), (n - 50, n))
    assert (await reads_of(sandbox, "print(len(context))")).spans == ()


async def test_many_slices_in_a_loop_come_back_merged(reading: Sandbox) -> None:
    code = "pieces = [context[i:i + 7] for i in range(0, 700, 5)]"
    assert (await reads_of(reading, code)).spans == ((0, 702),)
    code = "pieces = [context[i:i + 2] for i in range(0, 20000, 4) if i < len(context)]"
    reads = await reads_of(reading, code)
    assert len(reads.spans) == len(range(0, len(TEXT), 4)) and reads.spans[1] == (4, 6)


async def test_context_stays_a_str_and_the_reads_of_a_cell_are_its_own(
    reading: Sandbox,
) -> None:
    code = "isinstance(context, str), context == other, len(context.split('. '))"
    result = await reading.execute(code)
    assert result.output.strip() == "(True, True, 41)"
    assert (await reads_of(reading, "x = context[:3]")).spans == ((0, 3),)
    assert (await reads_of(reading, "y = 1")) == CellReads()


def test_reads_the_child_sends_are_checked_before_use() -> None:
    raw = {"spans": [[0, 4], [5, 5], [-1, 3], ["a", 2], [1, 2, 3]], "searches": ["x", 3]}
    assert CellReads.of(raw) == CellReads(((0, 4),), ("x",))
    assert CellReads.of("garbage") == CellReads()


async def test_a_restarted_child_tracks_context_again(reading: Sandbox) -> None:
    lost = await reading.execute("import os\nos._exit(3)")
    assert lost.restarted
    assert (await reads_of(reading, "x = context[7:9]")).spans == ((7, 9),)
