"""The rows of the history's tables as its projector (``history.py``) keeps them: the columns
of each, where each column stands in a row, a new row of each, and the values of a round's
status and of a player's part in it.

The tables' DDL and the projector's version stay with ``History``: a change here that changes
what a table holds raises that version.
"""

from __future__ import annotations

from typing import Any

# A round's status, and a player's part in it, as the views hold them (the API lists them).
OPEN, ENDED = "open", "ended"
ROUND_STATUSES = (OPEN, ENDED)
BANKER, PUNTER = "banker", "punter"
ROUND_ROLES = (BANKER, PUNTER)
ROUND_COLUMNS = (
    "table_id", "number", "family", "dealer", "started_at", "ended_at", "status", "hands",
    "settled", "passes_deal", "position", "staked", "punters_net", "banker_net", "house_net",
    "held",
)  # fmt: skip
HAND_COLUMNS = (
    "player_id", "seat", "stake", "is_natural", "is_bust", "outcome", "net", "clauses",
    "side_net", "side_clauses",
)  # fmt: skip
PLAYER_COLUMNS = (
    "table_id", "number", "started_at", "role", "hands", "staked", "net", "joined",
)  # fmt: skip
TABLE_COLUMNS = (
    "name", "family", "opened_at", "closed_at", "rounds", "naturals", "busts", "staked",
    "punters_net", "banker_net", "house_net", "pool_balance", "in_play_rounds", "in_play_staked",
    "held",
)  # fmt: skip
R_TABLE, R_NUMBER, R_DEALER, R_ENDED_AT, R_STATUS, R_HANDS, R_SETTLED, R_PASSES, R_POS = (
    0, 1, 3, 5, 6, 7, 8, 9, 10,
)  # fmt: skip
R_STAKED, R_PUNTERS, R_BANKER, R_HOUSE, R_HELD = 11, 12, 13, 14, 15
H_PLAYER, H_STAKE, H_NATURAL, H_BUST, H_OUTCOME, H_NET, H_CLAUSES, H_SIDE, H_SIDE_CLAUSES = (
    0, 2, 3, 4, 5, 6, 7, 8, 9,
)  # fmt: skip
P_HANDS, P_STAKED, P_NET, P_JOINED = 4, 5, 6, 7
T_CLOSED, T_ROUNDS, T_NATURALS, T_BUSTS, T_STAKED, T_PUNTERS, T_BANKER, T_HOUSE, T_POOL = (
    3, 4, 5, 6, 7, 8, 9, 10, 11,
)  # fmt: skip
T_IN_PLAY, T_IN_PLAY_STAKED, T_HELD = 12, 13, 14
# A round's figures that join its table's totals when it ends (``History.ended``).
SETTLED_FIGURES = ((R_STAKED, T_STAKED), (R_PUNTERS, T_PUNTERS), (R_BANKER, T_BANKER),
                   (R_HOUSE, T_HOUSE))  # fmt: skip
TABLE_FIGURE = dict(SETTLED_FIGURES)


def column_defs(names: tuple[str, ...], types: dict[str, str]) -> str:
    return ", ".join(f"{n} {types.get(n, 'BIGINT')} NOT NULL" for n in names)


TEXT_COLUMNS = dict.fromkeys(
    ("table_id", "family", "dealer", "started_at", "ended_at", "status", "passes_deal",
     "player_id", "outcome", "clauses", "side_clauses", "role", "name", "opened_at", "closed_at"),
    "TEXT",
)  # fmt: skip


def new_round(_: Any) -> list[Any]:
    return ["", 0, "", "", "", "", "", 0, 0, "", 0, 0, 0, 0, 0, 0]


def new_hand(_: Any) -> list[Any]:
    return ["", 0, 0, 0, 0, "", 0, "", 0, ""]


def new_player(_: Any) -> list[Any]:
    return ["", 0, "", "", 0, 0, 0, 0]


def new_table(_: Any) -> list[Any]:
    return ["", "", "", "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
