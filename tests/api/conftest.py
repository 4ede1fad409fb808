import pytest

from api import create_app


@pytest.fixture
def app(memory_env):
    return create_app({"TESTING": True, "STORE_ENV": memory_env})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
