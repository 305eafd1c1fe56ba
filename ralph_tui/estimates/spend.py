"""How a run spends, role by role, in each inner mode: the calls and tokens to expect, and
the most the settings allow.

Everything here is arithmetic over plain inputs (a ``RunPlan``): no file, no model, no
network. Tokens are counted from characters at the rate the context budget uses
(``CHARS_PER_TOKEN``).

The *expected* figures rest on how each mode was measured to spend (``TURNS``: turns per
iteration, what a turn writes, how much each turn adds to the next prompt), the documents'
size for the mode that puts them in the prompt, and an iteration count in the middle of
what can happen (``expected_iterations``). The *worst* figures are structural: every step,
sub-call, judge retry and iteration the settings allow, each prompt as large as the
growth allows up to the context budget, each reply as long as the role's ``max_tokens``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, replace
from typing import get_args

from ralph_tui.agents.agent_run import FALLBACK_TRAJECTORY_CHARS
from ralph_tui.agents.direct import DIRECT_MAX_STEPS
from ralph_tui.agents.sub_queries import SubQueryRunner
from ralph_tui.config.inner_modes import InnerMode, direct_fits
from ralph_tui.lcm.context import Budget
from ralph_tui.llm.pricing import Price
from ralph_tui.llm.tokens import tokens_of_chars
from ralph_tui.roles.budgets import OUTPUT_TOKENS
from ralph_tui.roles.judge import JUDGE
from ralph_tui.roles.task_judge import TASK_JUDGE
from ralph_tui.roles.task_reasoner import TASK_REASONER

SUB_CALL_OUTPUT_TOKENS: int = inspect.signature(SubQueryRunner).parameters["max_tokens"].default
"""``max_tokens`` of one ``llm_query`` sub-call, as the sub-call runner sends it."""


@dataclass(frozen=True)
class ModelInfo:
    """One role's model: who serves it, its context window and its price (``None``:
    unknown)."""

    provider: str
    name: str
    window: int
    price: Price | None

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.name}"


@dataclass(frozen=True)
class RunPlan:
    """What a run is asked to do and within which bounds: the plain inputs of an estimate."""

    mode: str
    """``qa`` or ``task``."""
    doc_chars: int
    query_chars: int
    max_iters: int
    worker_max_steps: int
    worker_max_llm_calls: int
    max_runtime_chars: int
    sub_query_concurrency: int
    generate: ModelInfo
    validate: ModelInfo
    sub: ModelInfo
    constraint_chars: int = 0
    memory_budget_chars: int = 1500
    decompose: bool = False
    counted_doc_tokens: int | None = None
    """The documents' tokens as a run counts them to choose and fit its inner mode
    (``document_tokens``; CJK text is a token a character), when the text was at hand."""

    @property
    def doc_tokens(self) -> int:
        if self.counted_doc_tokens is not None:
            return self.counted_doc_tokens
        return tokens_of_chars(self.doc_chars)

    @property
    def ask_tokens(self) -> int:
        """The question (or task) and the constraints given with it."""
        return tokens_of_chars(self.query_chars + self.constraint_chars)


@dataclass(frozen=True)
class RoleSpend:
    """What one role's calls take over a run: calls, input tokens (cached ones included),
    the cached part (read from and written to the prompt cache), and output tokens."""

    role: str
    model: ModelInfo
    calls: float
    input_tokens: float
    output_tokens: float
    cache_read: float = 0.0
    cache_write: float = 0.0

    def cost(self) -> float | None:
        """US dollars at the model's price; ``None`` when the price is unknown."""
        if self.model.price is None:
            return None
        return self.model.price.cost(
            round(self.input_tokens),
            round(self.output_tokens),
            round(self.cache_read),
            round(self.cache_write),
        )

    def times(self, count: float) -> RoleSpend:
        return replace(
            self,
            calls=self.calls * count,
            input_tokens=self.input_tokens * count,
            output_tokens=self.output_tokens * count,
            cache_read=self.cache_read * count,
            cache_write=self.cache_write * count,
        )

    def scaled(self, input_factor: float, output_factor: float) -> RoleSpend:
        """The same calls with their input and output tokens scaled (a calibration)."""
        return replace(
            self,
            input_tokens=self.input_tokens * input_factor,
            output_tokens=self.output_tokens * output_factor,
            cache_read=self.cache_read * input_factor,
            cache_write=self.cache_write * input_factor,
        )

    def plus(self, other: RoleSpend) -> RoleSpend:
        return replace(
            self,
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
        )


@dataclass(frozen=True)
class TurnPrior:
    """How a role's turns were measured to go in one iteration."""

    first_prompt: int
    """Tokens of its first request besides the question and documents: system prompt,
    tool schemas, framing."""
    turns: int
    """Model turns per iteration."""
    output: int
    """Tokens a turn writes (never more than the role's ``max_tokens``)."""
    added: int
    """Tokens each turn adds to the next prompt besides its own output: sandbox output,
    tool results, feedback."""


TURNS: dict[str, TurnPrior] = {
    "rlm": TurnPrior(first_prompt=1450, turns=2, output=3850, added=470),
    "lcm": TurnPrior(first_prompt=2530, turns=3, output=240, added=2100),
    "direct": TurnPrior(first_prompt=1000, turns=1, output=400, added=300),
    "judge": TurnPrior(first_prompt=1100, turns=1, output=130, added=0),
    "reasoner": TurnPrior(first_prompt=1200, turns=1, output=800, added=0),
    "task_judge": TurnPrior(first_prompt=1500, turns=1, output=200, added=0),
}
"""Measured with the offline baseline behind a scripted server that bills a token per four
characters of each request and reply (``bench/estimate_accuracy.py``): the first request of
each role, the turns of an iteration, what they wrote and what came back. A model that
explores longer spends more: past sessions of the same models correct these figures."""

FEEDBACK_TOKENS = 300
"""What a step's feedback adds at most besides its output and result: a refusal, a budget
warning, a repeat warning."""
JUDGE_QUOTES_TOKENS = tokens_of_chars(8 * (160 + 2 * 220) + 7 * 300)
"""The most a QA judge prompt holds of the candidate: 8 quotes of 160 characters, each with
its 220-character windows either side, and 7 answer lines."""
BRIEF_TOKENS = 1000
"""Tokens of a DocReader's brief, expected (its most is the role's ``max_tokens``)."""


def expected_iterations(max_iters: int) -> float:
    """Iterations to expect when nothing says how hard the question is: the geometric middle
    of passing at the first (1) and using every one (``max_iters``), the figure whose ratio
    to either end is smallest."""
    return math.sqrt(max_iters)


def turns_within(first: float, turns: int, growth: float, limit: float) -> int:
    """How many of ``turns`` prompts, starting at ``first`` and growing by ``growth`` a turn,
    stay at or under ``limit`` (in constant time: a step budget may be large)."""
    if turns <= 0 or first > limit:
        return 0
    if growth <= 0:
        return turns
    return min(turns, math.floor((limit - first) / growth) + 1)


def turn_inputs(first: float, turns: int, growth: float, limit: float) -> float:
    """Input tokens of ``turns`` turns whose prompt starts at ``first`` and grows by
    ``growth`` a turn, each prompt at most ``limit``."""
    below = turns_within(first, turns, growth, limit)
    return below * first + growth * below * (below - 1) / 2 + (max(turns, 0) - below) * limit


def hard_budget(model: ModelInfo, reply_tokens: int) -> int:
    """The largest prompt an exploring agent sends this model (its context budget)."""
    return Budget.of_window(model.window, reply_tokens).hard


def _one_call_role(
    role: str, model: ModelInfo, first: float, turns: int, output: float, growth: float
) -> RoleSpend:
    limit = model.window - OUTPUT_TOKENS.get(role, 1024)
    return RoleSpend(role, model, turns, turn_inputs(first, turns, growth, limit), turns * output)


# --- the explorer (QA worker, task DocReader) in each inner mode ---------------------------


def explore_expected(plan: RunPlan, role: str, mode: str) -> RoleSpend:
    prior = TURNS[mode]
    max_tokens = OUTPUT_TOKENS[role]
    output = min(prior.output, max_tokens)
    first = prior.first_prompt + plan.ask_tokens
    if mode == "direct":
        first += plan.doc_tokens
    limit = hard_budget(plan.generate, max_tokens)
    inputs = turn_inputs(first, prior.turns, output + prior.added, limit)
    return RoleSpend(role, plan.generate, prior.turns, inputs, prior.turns * output)


def explore_worst(plan: RunPlan, role: str, mode: str) -> list[RoleSpend]:
    """Every step the settings allow, each prompt grown by the most a step adds; the
    salvage call when the steps run out. ``rlm`` and ``lcm``: each prompt up to the context
    budget (compaction keeps it there, with a summary call a step past the soft budget), and
    every sub-call, each as large as the sub-model's window. ``direct``: the documents in
    every prompt, which is never compacted (the model's window bounds it) and makes no
    sub-call."""
    if mode == "direct":
        return _direct_worst(plan, role)
    max_tokens = OUTPUT_TOKENS[role]
    budget = Budget.of_window(plan.generate.window, max_tokens)
    first = TURNS[mode].first_prompt + plan.ask_tokens
    growth = max_tokens + tokens_of_chars(plan.max_runtime_chars) + FEEDBACK_TOKENS
    steps = plan.worker_max_steps
    prompts = turn_inputs(first, steps, growth, budget.hard)
    summaries = steps - turns_within(first, steps, growth, budget.soft)
    salvage = min(budget.hard, first + tokens_of_chars(FALLBACK_TRAJECTORY_CHARS))
    spends = [
        RoleSpend(role, plan.generate, steps + 1, prompts + salvage, (steps + 1) * max_tokens)
    ]
    if summaries:
        spends.append(
            RoleSpend(
                "compactor",
                plan.generate,
                summaries,
                summaries * budget.hard,
                summaries * OUTPUT_TOKENS["compactor"],
            )
        )
    calls = plan.worker_max_llm_calls
    prompt = max(plan.sub.window - SUB_CALL_OUTPUT_TOKENS, 0)
    spends.append(RoleSpend("sub", plan.sub, calls, calls * prompt, calls * SUB_CALL_OUTPUT_TOKENS))
    return spends


def _direct_worst(plan: RunPlan, role: str) -> list[RoleSpend]:
    max_tokens = OUTPUT_TOKENS[role]
    first = TURNS["direct"].first_prompt + plan.ask_tokens + plan.doc_tokens
    limit = max(plan.generate.window - max_tokens, 0)
    steps = min(plan.worker_max_steps, DIRECT_MAX_STEPS)
    prompts = turn_inputs(first, steps, max_tokens + FEEDBACK_TOKENS, limit)
    return [RoleSpend(role, plan.generate, steps, prompts, steps * max_tokens)]


# --- one iteration of each loop -------------------------------------------------------------


def qa_iteration(plan: RunPlan, mode: str, *, worst: bool) -> list[RoleSpend]:
    """The worker, then the judge (it runs when the hard checks pass: counted every time)."""
    if worst:
        judge_first = TURNS["judge"].first_prompt + plan.ask_tokens + JUDGE_QUOTES_TOKENS
        judge_out = OUTPUT_TOKENS["judge"]
        judge = _one_call_role(
            "judge", plan.validate, judge_first, JUDGE.max_steps, judge_out,
            judge_out + FEEDBACK_TOKENS,
        )  # fmt: skip
        return [*explore_worst(plan, "worker", mode), judge]
    prior = TURNS["judge"]
    judge = _one_call_role(
        "judge", plan.validate, prior.first_prompt + plan.ask_tokens, prior.turns,
        prior.output, prior.output + prior.added,
    )  # fmt: skip
    return [explore_expected(plan, "worker", mode), judge]


def task_iteration(plan: RunPlan, mode: str, *, worst: bool) -> list[RoleSpend]:
    """The DocReader, the reasoner over its brief and the memory, the memory compactor, and
    the task judge."""
    memory = tokens_of_chars(plan.memory_budget_chars)
    if worst:
        brief = OUTPUT_TOKENS["doc_reader"]
        reasoner_out = OUTPUT_TOKENS["reasoner"]
        reasoner_first = TURNS["reasoner"].first_prompt + plan.ask_tokens + brief + memory
        judge_first = TURNS["task_judge"].first_prompt + plan.ask_tokens + brief + reasoner_out
        judge_out = OUTPUT_TOKENS["task_judge"]
        return [
            *explore_worst(plan, "doc_reader", mode),
            _one_call_role(
                "reasoner", plan.generate, reasoner_first + reasoner_out, TASK_REASONER.max_steps,
                reasoner_out, reasoner_out + FEEDBACK_TOKENS,
            ),
            _one_call_role(
                "compactor", plan.generate, memory * 2 + reasoner_out, 1,
                OUTPUT_TOKENS["compactor"], 0,
            ),
            _one_call_role(
                "task_judge", plan.validate, judge_first + memory, TASK_JUDGE.max_steps,
                judge_out, judge_out + FEEDBACK_TOKENS,
            ),
        ]  # fmt: skip
    reasoner, judge = TURNS["reasoner"], TURNS["task_judge"]
    return [
        explore_expected(plan, "doc_reader", mode),
        _one_call_role(
            "reasoner", plan.generate,
            reasoner.first_prompt + plan.ask_tokens + BRIEF_TOKENS + memory,
            reasoner.turns, reasoner.output, reasoner.output,
        ),
        _one_call_role(
            "task_judge", plan.validate,
            judge.first_prompt + plan.ask_tokens + BRIEF_TOKENS + reasoner.output,
            judge.turns, judge.output, judge.output,
        ),
    ]  # fmt: skip


def merged(spends: list[RoleSpend]) -> list[RoleSpend]:
    """One entry per role and model, in the order they first appear."""
    by_key: dict[tuple[str, str], RoleSpend] = {}
    for spend in spends:
        key = (spend.role, spend.model.label)
        by_key[key] = by_key[key].plus(spend) if key in by_key else spend
    return list(by_key.values())


def run_spend(plan: RunPlan, mode: str, iterations: float, *, worst: bool) -> list[RoleSpend]:
    """Every role's spend over ``iterations`` iterations of ``plan`` in inner ``mode``."""
    iteration = task_iteration if plan.mode == "task" else qa_iteration
    per_iteration = iteration(plan, mode, worst=worst)
    spends = [spend.times(iterations) for spend in per_iteration]
    if mode == "direct" and not worst:
        spends = [_cached_after_first(s, plan) if s.role in EXPLORERS else s for s in spends]
    return merged(spends)


EXPLORERS = ("worker", "doc_reader")


def _cached_after_first(spend: RoleSpend, plan: RunPlan) -> RoleSpend:
    """In ``direct`` mode the documents are read from the prompt cache on every call but the
    first, which writes them."""
    reads = max(spend.calls - 1, 0) * plan.doc_tokens
    return replace(spend, cache_read=reads, cache_write=float(plan.doc_tokens))


def fits_window(plan: RunPlan, mode: str) -> bool:
    """Whether the mode can run on these documents: only ``direct`` puts them in the
    prompt, and it is refused by the run's own rule (``direct_fits``) when they do not fit."""
    return mode != "direct" or direct_fits(plan.doc_tokens, plan.generate.window)


ESTIMATED_MODES: tuple[InnerMode, ...] = get_args(InnerMode)
"""The inner modes a run explores in, each estimated by its ``TURNS``."""
