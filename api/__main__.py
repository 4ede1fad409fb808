"""``python -m api``: serve the ledger with Flask's own server (development use).

HOST (default 127.0.0.1) and PORT (default 8000) say where to listen; the LEDGER_* variables
say where the events go (SQLite ``./var/ledger.sqlite3`` unless told otherwise).
"""

from pathlib import Path

from api import create_app
from api.keys_cli import ensure_admin_key
from ledger.config import describe, env_int, env_str


def main() -> None:
    host = env_str("HOST", "127.0.0.1")
    port = env_int("PORT", 8000)
    Path("var").mkdir(exist_ok=True)  # the SQLite default lives there
    app = create_app()
    # A wildcard address is where the server listens, not where a client can connect.
    client_host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    url = f"http://{client_host}:{port}"
    print(
        f"Twenty-One Ledger on {describe(app.config['STORE_ENV'])} — point your client at "
        f"{url}  (try: curl {url}/health)",
        flush=True,
    )
    secret = ensure_admin_key(app)
    if secret is not None:
        print(
            f"First start: an admin API key was created. It is shown once; keep it:\n"
            f"  {secret}\n"
            f"Open a table: curl -X POST {url}/v1/tables -H 'Authorization: Bearer {secret}' "
            "-H 'Content-Type: application/json' -d '{\"family\": \"casino\"}'",
            flush=True,
        )
    app.run(host=host, port=port)  # Flask reads FLASK_DEBUG itself


if __name__ == "__main__":
    main()
