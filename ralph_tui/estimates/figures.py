"""What an estimate says: for each inner mode, the expected and the worst-case calls, tokens
and dollars of the run, by role, with what each figure rests on and where a cap stops it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SETTINGS_ONLY = "settings only"


class Figures(BaseModel):
    """Calls, tokens and dollars of a run (or of one role's part of it)."""

    calls: int
    input_tokens: int
    """Every input token, cached ones included."""
    output_tokens: int
    cost_usd: float | None
    """``None`` when a model's price is unknown: the cost is then unknown, never 0."""
    unknown_price: list[str] = Field(default_factory=list)
    """The models (``provider:model``) whose price is unknown."""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def describe_cost(self) -> str:
        """``$0.0123``, or ``cost unknown`` (naming the models without a price)."""
        if self.cost_usd is None:
            return "cost unknown"
        if self.cost_usd == 0:
            return "$0.00"
        return f"${self.cost_usd:,.4f}" if self.cost_usd < 1 else f"${self.cost_usd:,.2f}"


class RoleFigures(BaseModel):
    """One role's part of a mode's figures, on its model."""

    role: str
    model: str
    """``provider:model``."""
    expected: Figures
    worst: Figures


class CapStop(BaseModel):
    """Where a cap stops a run whose worst case passes it."""

    cap: Literal["cost", "tokens"]
    limit: float
    """The cap: US dollars or tokens."""
    at_most: float | None
    """The cap plus what the calls already under way when it is reached can add (it is
    checked before each call); ``None`` when nothing bounds it (a price is unknown)."""
    message: str


class ModeEstimate(BaseModel):
    """The figures of the run in one inner mode."""

    mode: str
    selected: bool
    """The mode the settings pick."""
    basis: str
    """What the expected figures rest on: ``settings only`` or ``N past sessions``."""
    past_sessions: int = 0
    expected_iterations: float
    fits: bool = True
    """Whether the documents fit the generating model's context (only ``direct`` needs it)."""
    expected: Figures
    per_iteration: Figures
    """One iteration of the expected figures: what each further iteration adds."""
    worst: Figures
    """Everything the settings allow (steps, sub-calls, retries, iterations), caps aside."""
    cap_stops: list[CapStop] = Field(default_factory=list)
    """The caps the worst case passes, and where each stops the run."""
    roles: list[RoleFigures] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @property
    def worst_passes_cap(self) -> bool:
        return bool(self.cap_stops)


class RunEstimate(BaseModel):
    """An estimate of a run before it starts: no model is called, nothing is sent."""

    mode: str
    """``qa`` or ``task``."""
    inner: str
    """The inner mode the settings give."""
    inner_reason: str = ""
    """Why the selected mode is the one (``auto``: its rule on these documents)."""
    doc_chars: int
    doc_tokens: int
    max_iters: int
    cost_cap_usd: float | None
    token_cap: int | None
    modes: list[ModeEstimate]
    notes: list[str] = Field(default_factory=list)

    @property
    def selected(self) -> ModeEstimate | None:
        """The estimate of the mode the settings pick (``None`` when they leave it to run
        time)."""
        return next((m for m in self.modes if m.selected), None)

    def of_mode(self, mode: str) -> ModeEstimate:
        return next(m for m in self.modes if m.mode == mode)

    def caps_reached(self) -> list[str]:
        """The caps the selected mode's *expected* figures reach: a run that would likely
        end ``capped`` (with its best candidate so far) rather than answer."""
        mode = self.selected
        if mode is None:
            return []
        reached = []
        cost = mode.expected.cost_usd
        if self.cost_cap_usd is not None and cost is not None and cost >= self.cost_cap_usd:
            reached.append(f"the ${self.cost_cap_usd:.2f} cost cap")
        if self.token_cap is not None and mode.expected.tokens >= self.token_cap:
            reached.append(f"the {self.token_cap:,}-token cap")
        return reached

    def cap_warning(self) -> str | None:
        """What to say before starting a run expected to reach a cap, ``None`` otherwise.

        A worst case past the cap alone does not ask: every step, sub-call and iteration at
        a full window passes any cap worth having (about $360 for a default ``rlm`` run on
        Sonnet against the default $5 cap), so a question asked before every run would be
        answered without reading; the cap is what stops that worst case."""
        mode, reached = self.selected, self.caps_reached()
        if mode is None or not reached:
            return None
        stops = "".join(f"; {stop.message}" for stop in mode.cap_stops)
        return (
            f"{mode.mode}: expected {mode.expected.describe_cost()} "
            f"({mode.expected.tokens:,} tokens) reaches {' and '.join(reached)}, so the run "
            f"would likely stop capped with its best candidate so far; worst case "
            f"{mode.worst.describe_cost()}{stops}"
        )
