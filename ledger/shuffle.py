"""The provably fair shuffle of SHUFFLE.md, step for step.

The house commits to a secret seed before the deal and reveals it when the shoe is retired;
anyone can then rebuild the shoe from this page and SHUFFLE.md alone and compare every card.
Any change here, however harmless it looks (a different byte order, modulo without rejection,
shuffling from the other end), makes honest shoes fail verification, so the code follows the
pseudocode literally and ``tests/fixtures/shuffle_zero_seed.json`` pins its output.
"""

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from functools import lru_cache

from ledger.cards import unshuffled

ALGORITHM = "hmac-sha256-fisher-yates-v1"

_SEED_BYTES = 32
_U32_BYTES = 4
_U32_RANGE = 2**32
_HEX_DIGITS = frozenset("0123456789abcdef")


def _seed_bytes(server_seed_hex: str) -> bytes:
    """Decode a seed, insisting on the exact spelling used in events.

    Uppercase hex is refused rather than normalised: a seed revealed in another spelling than
    the one hashed would let two texts stand for one shoe, which confuses audits.
    """
    if (
        not isinstance(server_seed_hex, str)
        or len(server_seed_hex) != 2 * _SEED_BYTES
        or not _HEX_DIGITS.issuperset(server_seed_hex)
    ):
        raise ValueError(
            f"server seed must be {2 * _SEED_BYTES} lowercase hex digits, got {server_seed_hex!r}"
        )
    return bytes.fromhex(server_seed_hex)


def _check_int_at_least_one(name: str, value: object) -> None:
    # bool is an int subclass; True would be written "True" into the HMAC message.
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


def _check_client_seed(client_seed: object) -> None:
    if not isinstance(client_seed, str):
        raise ValueError(f"client seed must be a string, got {client_seed!r}")


def new_server_seed() -> str:
    """A fresh secret seed: 32 bytes from ``secrets``, as the 64 lowercase hex digits of events."""
    return secrets.token_hex(_SEED_BYTES)


def commitment(server_seed_hex: str) -> str:
    """SHA-256(server_seed), where server_seed is the 32 raw bytes, not the hex text.

    Hashing the bytes is the reading of SHUFFLE.md ("SHA-256(server_seed)", the seed being 32
    bytes); a verifier hashing the 64-character text would get a different digest, so this
    choice is part of the protocol, not a detail.
    """
    return hashlib.sha256(_seed_bytes(server_seed_hex)).hexdigest()


def verify_seed(server_seed_hex: str, commitment_hex: str) -> bool:
    """True if the revealed seed is the one committed to; a malformed seed simply fails."""
    try:
        expected = commitment(server_seed_hex)
    except ValueError:
        return False
    if not isinstance(commitment_hex, str):
        return False
    return hmac.compare_digest(expected, commitment_hex)


class RandomStream:
    """Successive big-endian u32 read from HMAC-SHA256 blocks 0, 1, 2 …

    Block k is HMAC-SHA256(key=seed bytes, msg=f"{client_seed}:{nonce}:{k}"). The stream is
    endless; the shuffle takes as many values as rejection sampling needs.
    """

    def __init__(self, server_seed_hex: str, client_seed: str, nonce: int) -> None:
        self._key = _seed_bytes(server_seed_hex)
        _check_client_seed(client_seed)
        _check_int_at_least_one("nonce", nonce)
        self._prefix = f"{client_seed}:{nonce}:"
        self._block_index = 0
        self._block = b""
        self._offset = 0

    def __iter__(self) -> "RandomStream":
        return self

    def __next__(self) -> int:
        if self._offset == len(self._block):
            message = f"{self._prefix}{self._block_index}".encode()
            self._block = hmac.new(self._key, message, hashlib.sha256).digest()
            self._block_index += 1
            self._offset = 0
        chunk = self._block[self._offset : self._offset + _U32_BYTES]
        self._offset += _U32_BYTES
        return int.from_bytes(chunk, "big")


def uniform_below(stream: Iterator[int], m: int) -> int:
    """An index in [0, m) from u32 values, skipping those at or above ``limit``.

    Without the rejection, ``x % m`` would favour small indices whenever m does not divide
    2**32, and the result would differ from every verifier that follows SHUFFLE.md.
    """
    limit = _U32_RANGE - (_U32_RANGE % m)
    for x in stream:
        if x < limit:
            return x % m
    raise ValueError("random stream ran out")


def shuffle(
    server_seed_hex: str,
    client_seed: str,
    nonce: int,
    packs: int,
    stock: tuple[str, ...] | None = None,
) -> list[str]:
    """Fisher-Yates from the last position down; index 0 of the result is the first card dealt.

    ``stock``: the cards to shuffle, in place of the unshuffled shoe of ``packs`` packs. A
    round that runs out of cards is completed from the used ones (VU-29); that shoe's
    commitment records them, in the unshuffled shoe's order, so a verifier starts from the
    same list."""
    _check_int_at_least_one("packs", packs)
    stream = RandomStream(server_seed_hex, client_seed, nonce)
    cards = unshuffled(packs) if stock is None else list(stock)
    for i in range(len(cards) - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def cut(cards: list[str], k: int) -> list[str]:
    """Move the top k cards to the bottom (SHUFFLE.md); k = 0 is no cut."""
    n = len(cards)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n:
        raise ValueError(f"cut must satisfy 0 <= k < N, got k={k!r} with N={n}")
    return cards[k:] + cards[:k]


@lru_cache(maxsize=64)
def dealing_order(
    server_seed_hex: str,
    client_seed: str,
    nonce: int,
    packs: int,
    cut_at: int,
    stock: tuple[str, ...] | None = None,
) -> tuple[str, ...]:
    """The shoe as dealt, top first: shuffled, then cut.

    Cached because every deal, replay and audit of a shoe asks for the same order; a tuple so
    no caller can alter the cached copy. The cache holds unrevealed seeds in process memory,
    which is where they already live while the shoe is in play.
    """
    return tuple(cut(shuffle(server_seed_hex, client_seed, nonce, packs, stock), cut_at))
