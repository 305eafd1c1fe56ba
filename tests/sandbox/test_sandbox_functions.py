"""Host functions: the child calls, the host awaits the real async function, results return."""

from __future__ import annotations

import asyncio
import time

from conftest import OpenSandbox

from ralph_tui.sandbox import SandboxLimits


async def fake_llm(prompt: str) -> str:
    await asyncio.sleep(0.01)
    if "fail" in prompt:
        raise RuntimeError("model unavailable")
    return f"answer to {prompt}"


class BatchedLLM:
    """The shape the agent layer uses: one host function that fans out under a semaphore."""

    def __init__(self, concurrency: int) -> None:
        self.semaphore = asyncio.Semaphore(concurrency)
        self.in_flight = 0
        self.peak = 0

    async def item(self, prompt: str) -> str:
        async with self.semaphore:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            try:
                return await fake_llm(prompt)
            except RuntimeError as exc:
                return f"[error] {exc}"
            finally:
                self.in_flight -= 1

    async def __call__(self, prompts: list[str]) -> list[str]:
        return list(await asyncio.gather(*(self.item(p) for p in prompts)))


async def test_a_host_function_call_returns_its_result(open_sandbox: OpenSandbox) -> None:
    seen: list[tuple[str, str | None]] = []

    async def llm_query(prompt: str, context_slice: str | None = None) -> str:
        seen.append((prompt, context_slice))
        return await fake_llm(prompt)

    sandbox = await open_sandbox(functions={"llm_query": llm_query})
    result = await sandbox.execute(
        "a = llm_query('q1')\nb = llm_query('q2', context_slice='s')\na, b"
    )
    assert result.output == "('answer to q1', 'answer to q2')\n"
    assert seen == [("q1", None), ("q2", "s")]


async def test_a_batch_of_twenty_with_one_failing_item(open_sandbox: OpenSandbox) -> None:
    batched = BatchedLLM(concurrency=4)
    sandbox = await open_sandbox(functions={"llm_query_batched": batched})
    code = (
        "prompts = ['fail' if i == 7 else f'p{i}' for i in range(20)]\n"
        "answers = llm_query_batched(prompts)\n"
        "[a for a in answers if a.startswith('[error]')], len(answers)"
    )
    result = await sandbox.execute(code)
    assert result.error is None
    assert result.output == "(['[error] model unavailable'], 20)\n"
    answers = await sandbox.execute("answers[:2], answers[19]")
    assert answers.output == "(['answer to p0', 'answer to p1'], 'answer to p19')\n"
    assert batched.peak == 4


async def test_functions_work_from_top_level_await_code(open_sandbox: OpenSandbox) -> None:
    sandbox = await open_sandbox(functions={"llm_query": fake_llm})
    code = "import asyncio\nawait asyncio.sleep(0)\nasync def ask(p):\n    return llm_query(p)\n"
    code += "await asyncio.gather(ask('x'), ask('y'))"
    assert (await sandbox.execute(code)).output == "['answer to x', 'answer to y']\n"


async def test_calls_from_child_threads_run_concurrently(open_sandbox: OpenSandbox) -> None:
    async def slow(value: int) -> int:
        await asyncio.sleep(0.2)
        return value * 10

    sandbox = await open_sandbox(functions={"slow": slow})
    code = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(8) as pool:\n"
        "    out = list(pool.map(slow, range(8)))\n"
        "out"
    )
    started = time.perf_counter()
    result = await sandbox.execute(code)
    assert result.output == "[0, 10, 20, 30, 40, 50, 60, 70]\n"
    assert time.perf_counter() - started < 0.2 * 4


async def test_a_failing_function_raises_in_the_cell(open_sandbox: OpenSandbox) -> None:
    sandbox = await open_sandbox(functions={"llm_query": fake_llm})
    code = "try:\n    llm_query('fail')\nexcept RuntimeError as e:\n    print('caught:', e)"
    result = await sandbox.execute(code)
    assert result.output == "caught: llm_query failed: RuntimeError: model unavailable\n"
    uncaught = await sandbox.execute("llm_query('fail')")
    assert uncaught.error is not None
    assert uncaught.error.endswith(
        "RuntimeError: llm_query failed: RuntimeError: model unavailable"
    )
    assert '  File "<cell-2>", line 1, in <module>' in uncaught.error
    assert "channel" not in uncaught.error


async def test_non_json_arguments_and_results_are_errors(open_sandbox: OpenSandbox) -> None:
    async def give_set() -> object:
        return {1, 2}

    sandbox = await open_sandbox(functions={"llm_query": fake_llm, "give_set": give_set})
    bad_argument = await sandbox.execute("llm_query({1, 2})")
    assert bad_argument.error is not None
    assert "llm_query() takes only JSON-serializable arguments" in bad_argument.error
    bad_result = await sandbox.execute("give_set()")
    assert bad_result.error is not None
    assert "give_set failed: returned a value that is not JSON-serializable" in bad_result.error
    assert (await sandbox.execute("llm_query('still fine')")).output == "'answer to still fine'\n"


async def test_time_in_host_functions_does_not_count_against_the_cell(
    open_sandbox: OpenSandbox,
) -> None:
    async def slow_model(prompt: str) -> str:
        await asyncio.sleep(0.4)
        return prompt

    limits = SandboxLimits(timeout_s=0.3, kill_grace_s=0.3)
    sandbox = await open_sandbox(functions={"slow_model": slow_model}, limits=limits)
    result = await sandbox.execute("[slow_model(str(i)) for i in range(2)]")
    assert result.output == "['0', '1']\n"
    assert not result.timed_out


async def test_large_arguments_and_results_travel_through_the_channel(
    open_sandbox: OpenSandbox,
) -> None:
    async def echo(text: str) -> str:
        return text[::-1]

    # 12 MB each way takes a few hundred ms on a loaded machine: this checks the channel, not
    # the cell timeout, so the cell gets room.
    roomy = SandboxLimits(timeout_s=30.0)
    sandbox = await open_sandbox(functions={"echo": echo}, limits=roomy)
    code = "s = 'ab\\n' * 2_000_000\nr = echo(s)\nlen(r), r == s[::-1]"
    assert (await sandbox.execute(code)).output == "(6000000, True)\n"
