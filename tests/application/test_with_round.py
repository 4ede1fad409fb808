"""A command can hand back the round it saved, so an HTTP view need not read it again."""


def test_act_with_round_returns_the_round_as_saved(app, fund):
    ann = fund("Ann")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.fix_next_shoe(table, ["TC", "9C", "6D", "8D", "5H", "2S", "3S"])
    rid = app.start_round(table)["round_id"]

    staked, after_stake = app.place_stake(rid, ann, 1000, with_round=True)
    acted, after_hit = app.act(rid, "hit", actor=ann, hand="h1", with_round=True)

    assert staked["hand"] == "h1" and after_stake.hands["h1"]["cards"] == ["TC", "6D"]
    assert acted["card"] == "5H"
    stored = app.get_round(rid)
    assert after_hit.version == stored.version
    assert after_hit.hands == stored.hands and after_hit.phase == stored.phase


def test_a_replayed_command_with_round_returns_the_current_round(app, fund):
    ann = fund("Ann")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    rid = app.start_round(table)["round_id"]
    first, _ = app.place_stake(rid, ann, 1000, command_id="s1", with_round=True)

    again, rnd = app.place_stake(rid, ann, 1000, command_id="s1", with_round=True)

    assert again["replayed"] is True and again["hand"] == first["hand"]
    assert rnd.version == app.get_round(rid).version


def test_start_round_with_round_returns_the_new_round_and_a_replay_reads_it(app, fund):
    ann = fund("Ann")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)

    started, rnd = app.start_round(table, command_id="go", with_round=True)
    again, same = app.start_round(table, command_id="go", with_round=True)

    assert rnd.id.hex == started["round_id"].replace("-", "") and rnd.phase == started["phase"]
    assert rnd.version == app.get_round(started["round_id"]).version
    assert again["replayed"] is True and same.id == rnd.id


def test_a_tables_rules_are_read_once_and_an_unknown_table_is_refused(app, monkeypatch):
    import pytest

    from ledger.errors import UnknownTable

    table = app.open_table("casino", {"decks": 2, "insurance": False})["table_id"]
    assert app.table_rules(table).house_banked and app.table_rules(table).decks == 2
    monkeypatch.setattr(app, "get_table", lambda *a, **k: pytest.fail("read again"))
    assert app.table_rules(table).decks == 2
    monkeypatch.undo()
    with pytest.raises(UnknownTable):
        app.table_rules("00000000-0000-0000-0000-000000000000")
