from api import create_app


def test_health_says_ok_and_names_the_store(client):
    response = client.get("/health")

    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "store": "memory", "position": 0}


def test_health_reports_the_ledger_position_after_a_write(app, client):
    app.extensions["ledger"].register_player("Ann")

    assert client.get("/health").get_json()["position"] == 1


def test_health_names_the_store_chosen_by_config(tmp_path):
    app = create_app(
        {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "db" / "l.sqlite3")}
    )

    assert app.test_client().get("/health").get_json()["store"] == "sqlite"
    assert (tmp_path / "db").is_dir()


def test_each_app_is_built_afresh():
    first, second = create_app({"LEDGER_STORE": "memory"}), create_app({"LEDGER_STORE": "memory"})

    assert first is not second
    assert first.config["STORE_ENV"]["PERSISTENCE_MODULE"] == "ledger.memory_store"
