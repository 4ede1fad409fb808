"""README.md's "Using the ledger from Python" example runs as written, whatever the shoe deals
(on the in-memory store instead of SQLite): a dealer's ace asks for insurance first, and a
natural or the dealer's blackjack ends the round before the player acts."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
# A round where insurance was offered, and one settled before the end of the example.
WANTED = {"InsuranceDecided", "HandSettled"}


def readme_example() -> str:
    section = README.read_text(encoding="utf-8").split("## Using the ledger from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 'store_env("sqlite")' in code
    return code.replace('store_env("sqlite")', 'store_env("memory", environ={})')


def test_the_python_example_runs_on_every_kind_of_deal():
    code = compile(readme_example(), str(README), "exec")
    phases_met = set()
    for _ in range(300):
        namespace: dict = {}
        exec(code, namespace)  # random shoes: about one round in thirteen shows an ace
        app, rnd = namespace["app"], namespace["rnd"]
        assert namespace["ann"] in str(app.get_round(rnd).hands["h1"])
        phases_met |= {type(e).__name__ for e in app.events.get(rnd)} & WANTED
        app.close()
        if phases_met == WANTED:
            break
    assert phases_met == WANTED
