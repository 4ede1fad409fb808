"""Figure 3: the simulator's rounds per second (in-memory store, one player, casino table,
"mimic the dealer" policy) beside Gymnasium's ``Blackjack-v1`` hands per second with the same
policy (hit below 17). Gymnasium is a bench-only dependency (``pip install -e '.[bench]'``);
without it the figure is printed with ``"baseline": null`` and says why.

``sim_rounds_per_s_vs_gymnasium`` is one process beside one, and carries the 5,000 rounds/s
target. ``sim_rounds_per_s_workers_vs_gymnasium_workers`` is the simulator as an analyst runs
a long simulation, ``--workers`` over the machine's CPUs (each worker a process with its own
table on its own in-memory store, every event recorded) beside Gymnasium in as many
processes: what a run over all cores does, with no target of its own.

The two do very different work: every ledger round is a dozen commands, each an atomic write
of hash-chained events with double-entry transfers; a Gymnasium step is a few lines of
arithmetic on an infinite deck. The ratio says what the audit trail costs, not who is "faster".
"""

from __future__ import annotations

import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from benchmarks.common import SEED, TARGETS, emit, note
from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.parallel import even_shares, run_together
from ledger.simulate import Settings, run
from ledger.simulate_parallel import run_parallel

# Processes for the simulator's run over all cores, and for Gymnasium beside it: the CPUs this
# process may run on (a container's or an affinity mask's, not the host's).
WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def gymnasium_hands_per_second(hands: int, workers: int = 1) -> tuple[float, float]:
    """Hands per second and the mean reward, hitting below 17, over ``workers`` processes
    timed as the simulator's are (from the moment all are ready to the last one's end)."""
    parts = [(size, SEED + i) for i, size in enumerate(even_shares(hands, workers))]
    rewards, seconds = run_together(_gymnasium_share, parts)
    return hands / seconds, sum(rewards) / hands


def _gymnasium_share(share: tuple[int, int], ready: Callable[[], None], tick: Any) -> float:
    import gymnasium

    hands, seed = share
    env = gymnasium.make("Blackjack-v1")
    total = 0.0
    obs, _ = env.reset(seed=seed)
    ready()
    for _ in range(hands):
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(1 if obs[0] < 17 else 0)
            done = terminated or truncated
        total += float(reward)
        obs, _ = env.reset()
    env.close()
    return total


class _Bare(Aggregate):
    """The least an eventsourcing aggregate can be: no rules, no hash, no money."""

    @event("Created")
    def __init__(self) -> None:
        self.count = 0

    @event("Ticked")
    def tick(self, card: str, index: int) -> None:
        self.count += 1


class _BareApp(Application):
    name = "BareFloor"


def bare_eventsourcing_rounds_per_second(rounds: int, events_per_round: int) -> float:
    """The floor of the stack: rounds of ``events_per_round`` trivial events, one save each,
    on eventsourcing's own in-memory store."""
    app = _BareApp(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    started = time.perf_counter()
    for _ in range(rounds):
        bare = _Bare()
        for index in range(events_per_round - 1):
            bare.tick(card="TH", index=index)
        app.save(bare)
    return rounds / (time.perf_counter() - started)


def _retained_bytes_per_round(play: Callable[[int], Any], rounds: int) -> float:
    """Memory that ``play(rounds)`` leaves allocated (the store's rows, the caches), per
    round, traced by ``tracemalloc``: what a long simulation costs in memory."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = play(rounds)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return held / rounds


def bench_memory(rounds: int, per_round: int) -> dict[str, Any]:
    """The simulator's memory per round on the in-memory store beside the bare aggregate's
    (the same number of events, the library's own store and transcoder), both traced."""

    def ledger(n: int) -> Any:
        app = TwentyOneLedger(env=store_env("memory", environ={}))
        run(Settings(rounds=n, seed=SEED, players=1, strategy="mimic", one_command=True), app)
        return app

    def bare(n: int) -> Any:
        app = _BareApp(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        for _ in range(n):
            aggregate = _Bare()
            for index in range(per_round - 1):
                aggregate.tick(card="TH", index=index)
            app.save(aggregate)
        return app

    note(f"simulator memory: {rounds} rounds each, traced")
    value = _retained_bytes_per_round(ledger, rounds) / 1024
    baseline = _retained_bytes_per_round(bare, rounds) / 1024
    return emit(
        "sim_memory_per_round_vs_bare_eventsourcing",
        value,
        "KiB/round",
        baseline,
        detail={
            "rounds": rounds,
            "events_per_round": per_round,
            "measured_by": "tracemalloc: memory left allocated after the run, per round",
            "baseline_is": "a bare eventsourcing aggregate, the same events per round, "
            "eventsourcing.popo and its JSON transcoder",
        },
    )


def bench_floor(rounds: int, result: dict[str, Any]) -> dict[str, Any]:
    """The simulator beside the mandated event store's own floor for the same event count:
    what the 5,000 rounds/s target asks of the library itself."""
    per_round = max(1, round(result["events"] / max(result["rounds"], 1)))
    floor = bare_eventsourcing_rounds_per_second(rounds, per_round)
    return emit(
        "sim_rounds_per_s_vs_bare_eventsourcing",
        result["rounds_per_second"],
        "rounds/s",
        floor,
        detail={
            "events_per_round": per_round,
            "baseline_is": "a bare eventsourcing aggregate, the same events per round, one save "
            "per round, eventsourcing.popo",
        },
    )


def bench_gym(rounds: int, hands: int, parallel_rounds: int) -> None:
    note(f"simulator in one process: {rounds} rounds")
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        settings = Settings(rounds=rounds, seed=SEED, players=1, strategy="mimic", one_command=True)
        alone = run(settings, app)
    finally:
        app.close()
    bench_floor(rounds, alone)
    bench_memory(min(rounds, 2000), max(1, round(alone["events"] / max(alone["rounds"], 1))))
    gymnasium = _gymnasium_missing()
    detail = {
        "rounds": rounds,
        "ledger_net_per_hand": round(alone["player_net_per_hand"], 4),
        "ledger_rules": "6 decks, S17, blackjack 3:2",
        "policy": "hit below 17",
        "shape": "one process, each round one command (app.play_round), every event recorded",
    }
    _beside_gymnasium("sim_rounds_per_s_vs_gymnasium", alone, hands, 1, detail, gymnasium)
    note(f"simulator with {WORKERS} workers: {parallel_rounds} rounds, Gymnasium alike")
    together = run_parallel(
        Settings(
            rounds=parallel_rounds,
            seed=SEED,
            players=1,
            strategy="mimic",
            one_command=True,
            workers=WORKERS,
        ),
        store_env("memory", environ={}),
    )
    detail = {
        "rounds": parallel_rounds,
        "workers": WORKERS,
        "one_process_rounds_per_s": alone["rounds_per_second"],
        "ledger_net_per_hand": round(together["player_net_per_hand"], 4),
        "shape": "python -m ledger simulate --workers W --one-command-per-round: each worker a "
        "process with its own table and in-memory store, every event recorded; timed from "
        "all workers ready to the last one's result",
    }
    _beside_gymnasium(
        "sim_rounds_per_s_workers_vs_gymnasium_workers",
        together,
        hands,
        WORKERS,
        detail,
        gymnasium,
        target=None,
    )


def _gymnasium_missing() -> str | None:
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return "gymnasium not installed: pip install -e '.[bench]'"
    return None


def _beside_gymnasium(
    name: str,
    result: dict[str, Any],
    hands: int,
    processes: int,
    detail: dict[str, Any],
    missing: str | None,
    target: dict[str, float] | None = TARGETS["simulator"],
) -> dict[str, Any]:
    """The simulator's rounds/s beside Gymnasium's hands/s in as many processes."""
    if missing is not None:
        return emit(
            name,
            result["rounds_per_second"],
            "rounds/s",
            None,
            target=target,
            detail=detail,
            skipped=missing,
        )
    per_second, mean_reward = gymnasium_hands_per_second(hands, processes)
    detail = detail | {
        "gym_hands": hands,
        "gym_processes": processes,
        "gym_mean_reward": round(mean_reward, 4),
        "gym_rules": "Blackjack-v1 defaults: infinite deck, natural pays 1:1",
    }
    return emit(
        name,
        result["rounds_per_second"],
        "rounds/s",
        per_second,
        target=target,
        detail=detail,
        baseline_unit="hands/s",
    )
