import hashlib
import hmac
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.cards import unshuffled
from ledger.shuffle import (
    ALGORITHM,
    RandomStream,
    commitment,
    cut,
    dealing_order,
    new_server_seed,
    shuffle,
    uniform_below,
    verify_seed,
)

FIXTURE = Path(__file__).parent.parent / "fixtures" / "shuffle_zero_seed.json"
ZERO_SEED = "00" * 32

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
client_seeds = st.text(max_size=20)
nonces = st.integers(min_value=1, max_value=10**6)
pack_counts = st.integers(min_value=1, max_value=8)


def transcribed_shuffle(seed: bytes, client_seed: str, nonce: int, packs: int) -> list[str]:
    """SHUFFLE.md copied line by line, sharing no code with ledger.shuffle.

    If the two ever disagree, one of them has drifted from the page an independent
    verifier reads.
    """
    cards = [r + s for _ in range(packs) for s in "CDHS" for r in "A23456789TJQK"]
    stream = b""
    position = 0
    k = 0

    def next_u32() -> int:
        nonlocal stream, position, k
        if position + 4 > len(stream):
            stream += hmac.new(seed, f"{client_seed}:{nonce}:{k}".encode(), hashlib.sha256).digest()
            k += 1
        x = int.from_bytes(stream[position : position + 4], "big")
        position += 4
        return x

    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        limit = 2**32 - (2**32 % m)
        x = next_u32()
        while not x < limit:
            x = next_u32()
        j = x % m
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.fixture(scope="module")
def worked_check() -> dict:
    return json.loads(FIXTURE.read_text())


def test_worked_check_fixture_states_the_inputs_of_shuffle_md(worked_check):
    assert worked_check["algorithm"] == ALGORITHM == "hmac-sha256-fisher-yates-v1"
    assert worked_check["server_seed"] == ZERO_SEED
    assert (worked_check["client_seed"], worked_check["nonce"]) == ("", 1)
    assert (worked_check["packs"], worked_check["cut"]) == (1, 0)
    assert sorted(worked_check["cards"]) == sorted(unshuffled(1))


def test_ledger_shuffle_matches_worked_check_fixture(worked_check):
    assert shuffle(ZERO_SEED, "", 1, 1) == worked_check["cards"]
    assert list(dealing_order(ZERO_SEED, "", 1, 1, 0)) == worked_check["cards"]


def test_worked_check_fixture_matches_direct_transcription_of_pseudocode(worked_check):
    assert transcribed_shuffle(bytes(32), "", 1, 1) == worked_check["cards"]


def test_worked_check_commitment_is_sha256_of_the_32_seed_bytes(worked_check):
    assert worked_check["commitment"] == hashlib.sha256(bytes(32)).hexdigest()
    assert commitment(ZERO_SEED) == worked_check["commitment"]


@settings(max_examples=50)
@given(seeds, client_seeds, nonces, pack_counts)
def test_shuffle_agrees_with_transcription_for_any_inputs(seed, client_seed, nonce, packs):
    expected = transcribed_shuffle(bytes.fromhex(seed), client_seed, nonce, packs)
    assert shuffle(seed, client_seed, nonce, packs) == expected


@given(seeds, nonces, pack_counts)
def test_shuffle_is_a_permutation_of_the_unshuffled_shoe(seed, nonce, packs):
    shoe = shuffle(seed, "", nonce, packs)
    assert Counter(shoe) == Counter(unshuffled(packs))


@given(seeds, nonces)
def test_different_nonces_give_different_orders(seed, nonce):
    assert shuffle(seed, "", nonce, 1) != shuffle(seed, "", nonce + 1, 1)


def test_client_seed_changes_the_order():
    assert shuffle(ZERO_SEED, "", 1, 1) != shuffle(ZERO_SEED, "player", 1, 1)


def test_stream_reads_big_endian_u32_across_hmac_blocks():
    seed = bytes(range(32))
    block0 = hmac.new(seed, b"abc:7:0", hashlib.sha256).digest()
    block1 = hmac.new(seed, b"abc:7:1", hashlib.sha256).digest()
    expected = [int.from_bytes((block0 + block1)[i : i + 4], "big") for i in range(0, 64, 4)]
    stream = RandomStream(seed.hex(), "abc", 7)
    assert [next(stream) for _ in range(16)] == expected


def test_values_at_or_above_limit_are_rejected_not_reduced():
    # m = 3: limit = 2**32 - (2**32 % 3) = 2**32 - 1, so the top u32 value is skipped.
    # Reducing it instead would give (2**32 - 1) % 3 == 0.
    assert uniform_below(iter([2**32 - 1, 5]), 3) == 2


def test_several_rejections_in_a_row_are_all_skipped():
    # m = 52: 2**32 % 52 = 48, so the 48 values from 2**32 - 48 up are rejected.
    limit = 2**32 - 48
    assert uniform_below(iter([limit, 2**32 - 1, limit - 1]), 52) == (limit - 1) % 52


def test_value_just_below_limit_is_accepted():
    assert uniform_below(iter([2**32 - 2, 99]), 3) == (2**32 - 2) % 3


def test_uniform_below_reports_an_exhausted_stream():
    with pytest.raises(ValueError, match="ran out"):
        uniform_below(iter([2**32 - 1]), 3)


def test_cut_moves_top_k_cards_to_the_bottom():
    assert cut(["a", "b", "c", "d"], 1) == ["b", "c", "d", "a"]
    assert cut(["a", "b", "c", "d"], 3) == ["d", "a", "b", "c"]


def test_cut_at_zero_leaves_the_order_unchanged():
    assert cut(["a", "b", "c"], 0) == ["a", "b", "c"]


@pytest.mark.parametrize("k", [-1, 4, 100, True, 1.5])
def test_cut_outside_the_shoe_is_refused_naming_k_and_n(k):
    with pytest.raises(ValueError, match=rf"k={k!r}.*N=4"):
        cut(["a", "b", "c", "d"], k)


def test_dealing_order_is_the_shuffled_shoe_cut():
    shoe = shuffle(ZERO_SEED, "", 3, 2)
    assert dealing_order(ZERO_SEED, "", 3, 2, 30) == tuple(shoe[30:] + shoe[:30])


def test_dealing_order_is_cached_and_immutable():
    first = dealing_order(ZERO_SEED, "", 4, 1, 10)
    assert dealing_order(ZERO_SEED, "", 4, 1, 10) is first
    assert isinstance(first, tuple)


def test_dealing_order_refuses_a_cut_past_the_shoe():
    with pytest.raises(ValueError, match="N=52"):
        dealing_order(ZERO_SEED, "", 1, 1, 52)


@pytest.mark.parametrize(
    "seed",
    ["00" * 31, "00" * 33, "AB" * 32, "zz" * 32, " " + "0" * 63, b"\x00" * 32, None],
)
def test_malformed_seeds_are_refused(seed):
    with pytest.raises(ValueError, match="lowercase hex"):
        shuffle(seed, "", 1, 1)
    with pytest.raises(ValueError, match="lowercase hex"):
        commitment(seed)


@pytest.mark.parametrize("nonce", [0, -1, True, 1.0, "1"])
def test_nonce_must_be_a_positive_integer(nonce):
    with pytest.raises(ValueError, match="nonce"):
        shuffle(ZERO_SEED, "", nonce, 1)


@pytest.mark.parametrize("packs", [0, -2, False, 2.0, None])
def test_packs_must_be_a_positive_integer(packs):
    with pytest.raises(ValueError, match="packs"):
        shuffle(ZERO_SEED, "", 1, packs)


def test_client_seed_must_be_a_string():
    with pytest.raises(ValueError, match="client seed"):
        shuffle(ZERO_SEED, None, 1, 1)


def test_new_server_seed_is_64_lowercase_hex_and_fresh():
    seed = new_server_seed()
    assert len(seed) == 64
    assert seed == seed.lower()
    assert bytes.fromhex(seed).hex() == seed
    assert new_server_seed() != seed


@given(seeds)
def test_revealed_seed_verifies_against_its_commitment(seed):
    assert verify_seed(seed, commitment(seed))


def test_commitment_hashes_seed_bytes_not_hex_text():
    assert commitment(ZERO_SEED) != hashlib.sha256(ZERO_SEED.encode()).hexdigest()


def test_other_seed_does_not_verify():
    assert not verify_seed("11" * 32, commitment(ZERO_SEED))


def test_malformed_seed_or_commitment_does_not_verify():
    seed = "ab" * 32
    good = commitment(seed)
    assert not verify_seed(seed[:-2], good)
    assert not verify_seed(seed.upper(), good)
    assert not verify_seed(seed, good.upper())
    assert not verify_seed(seed, None)
