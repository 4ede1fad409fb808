"""``GET /openapi.json`` and ``GET /docs``: the OpenAPI document and a human-readable page
rendered from it on the server.

The page is one self-contained HTML document (inline CSS, no scripts, no fonts, no CDN): the
service may run on a closed network, and the docs must work there too.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from flask import Blueprint, Response, current_app

from api.openapi import METHODS, build_spec

bp = Blueprint("docs", __name__)

# Sample values for the string patterns the schemas use (a generic string would not match).
_PATTERN_SAMPLES = {"^(h[0-9]{1,3}|dealer[2-4]?)$": "h1", "^[2-9TJQKA][CDHS]$": "AS"}
_SAMPLE_UUID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"

CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2329;background:#fafafa}
main{max-width:1000px;margin:0 auto;padding:1em 2em 4em}
nav{background:#fff;border:1px solid #ddd;padding:.5em 1.5em;border-radius:6px}
nav ul{padding-left:1.2em} h2{border-bottom:2px solid #ccc;margin-top:2em}
section.op{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5em 1.5em;margin:1em 0}
.m{display:inline-block;min-width:4.5em;text-align:center;font-weight:700;color:#fff;
border-radius:4px;padding:0 .4em;margin-right:.5em;font-size:.85em}
.get{background:#2f6fb0}.post{background:#2e8b57}.delete{background:#b03a2e}
.put,.patch{background:#b07a2e}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#f3f3f3;padding:.7em;overflow-x:auto;border-radius:4px}
table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0}.roles code{background:#eef;padding:0 .3em;border-radius:3px}
"""


@bp.get("/openapi.json")
def openapi_json() -> Response:
    body = json.dumps(build_spec(current_app), indent=2, sort_keys=True, ensure_ascii=False)
    return Response(body + "\n", mimetype="application/json")


@bp.get("/docs")
def docs_page() -> Response:
    return Response(render_html(build_spec(current_app)), mimetype="text/html")


# --- rendering ------------------------------------------------------------------------------


def anchor(method: str, path: str) -> str:
    return "op-" + method + "-" + "".join(c if c.isalnum() else "-" for c in path).strip("-")


def resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        return spec["components"]["schemas"].get(ref.rsplit("/", 1)[1], {})
    return schema


def example(schema: dict[str, Any], spec: dict[str, Any], depth: int = 0) -> Any:
    """A plausible value for ``schema``: enough for a reader to see the body's shape."""
    schema = resolve(schema, spec)
    for key in ("example", "const", "default"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    if "oneOf" in schema:
        return example(schema["oneOf"][0], spec, depth)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        if depth > 3:
            return {}
        required = set(schema.get("required", ()))
        return {
            name: example(sub, spec, depth + 1)
            for name, sub in schema.get("properties", {}).items()
            # Admin-only overrides (``actor``, ``seller``) would mislead most readers.
            if name in required or "admin" not in sub.get("description", "")
        }
    if kind == "array":
        return [example(schema.get("items", {}), spec, depth + 1)] if depth <= 3 else []
    if kind == "integer":
        return max(schema.get("minimum", 100), 100) if "maximum" not in schema else 100
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if schema.get("format") == "uuid":
        return _SAMPLE_UUID
    return _PATTERN_SAMPLES.get(schema.get("pattern", ""), "string")


def type_text(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    if "oneOf" in schema:
        return "one of: " + " | ".join(
            escape(s["title"]) if "title" in s else type_text(s) for s in schema["oneOf"]
        )
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " | ".join(kind)
    if kind == "array":
        return f"array of {type_text(schema.get('items', {}))}"
    fmt = schema.get("format")
    return escape(f"{kind} ({fmt})" if fmt else str(kind))


def constraints(schema: dict[str, Any]) -> str:
    parts = []
    for key in ("minimum", "maximum", "minLength", "maxLength", "pattern", "const", "default"):
        if key in schema:
            parts.append(f"{key} {json.dumps(schema[key], ensure_ascii=False)}")
    if "enum" in schema:
        parts.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"]))
    if schema.get("additionalProperties") is False:
        parts.append("no other fields")
    return escape("; ".join(parts))


def fields_table(schema: dict[str, Any], spec: dict[str, Any]) -> str:
    schema = resolve(schema, spec)
    props = schema.get("properties")
    if not props:
        return f"<p>Type: {type_text(schema)} {constraints(schema)}</p>"
    required = set(schema.get("required", ()))
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td>{type_text(sub)}</td>"
        f"<td>{'yes' if name in required else ''}</td><td>{constraints(sub)}</td>"
        f"<td>{prose(sub.get('description', ''))}</td></tr>"
        for name, sub in props.items()
    )
    return (
        "<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Constraints</th>"
        f"<th>Description</th></tr>{rows}</table>"
    )


def inline(text: str) -> str:
    """Escaped text with the markdown marks the descriptions use: `code` and **strong**."""
    text = re.sub(r"`{1,2}([^`]+)`{1,2}", r"<code>\1</code>", escape(text))
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def prose(text: str) -> str:
    """Paragraphs and "* " bullet lists of :func:`inline` text."""
    out = []
    for block in text.strip().split("\n\n"):
        if block.startswith("* "):
            items = block[2:].split("\n* ")
            out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
        elif block.strip():
            out.append(f"<p>{inline(block)}</p>")
    return "".join(out)


def pre_json(value: Any) -> str:
    return f"<pre>{escape(json.dumps(value, indent=2, ensure_ascii=False))}</pre>"


def body_html(body: dict[str, Any], spec: dict[str, Any]) -> str:
    out = [f"<h4>Request body{' (required)' if body.get('required') else ''}</h4>"]
    for media, content in body.get("content", {}).items():
        schema = content.get("schema", {})
        out.append(f"<p><code>{escape(media)}</code>: {type_text(schema)}</p>")
        variants = resolve(schema, spec).get("oneOf")
        if variants:
            out.append("<p>One of the following, chosen by <code>action</code>:</p>")
            for variant in variants:
                title = variant.get("title", "")
                out.append(f"<h5><code>{escape(title)}</code></h5>")
                out.append(fields_table(variant, spec) + pre_json(example(variant, spec)))
        else:
            out.append(fields_table(schema, spec))
            out.append("<p>Example:</p>" + pre_json(example(schema, spec)))
    return "".join(out)


def params_html(params: list[dict[str, Any]]) -> str:
    if not params:
        return ""
    rows = "".join(
        f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
        f"<td>{'yes' if p.get('required') else ''}</td>"
        f"<td>{type_text(p.get('schema', {}))}</td><td>{constraints(p.get('schema', {}))}</td>"
        f"<td>{escape(p.get('description', ''))}</td></tr>"
        for p in params
    )
    return (
        "<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Required</th><th>Type</th>"
        f"<th>Constraints</th><th>Description</th></tr>{rows}</table>"
    )


def responses_html(responses: dict[str, Any], spec: dict[str, Any]) -> str:
    rows = []
    for status in sorted(responses, key=lambda s: (s == "default", s)):
        response = responses[status]
        if "$ref" in response:
            response = spec["components"]["responses"].get(response["$ref"].rsplit("/", 1)[1], {})
        content = response.get("content", {})
        bodies = "<br>".join(
            f"<code>{escape(media)}</code>: {type_text(c.get('schema', {}))}"
            for media, c in content.items()
        )
        headers = "<br>".join(
            f"<code>{escape(name)}</code>{'' if header.get('required') else ' (optional)'}"
            for name, header in sorted(response.get("headers", {}).items())
        )
        rows.append(
            f"<tr><td><code>{escape(status)}</code></td>"
            f"<td>{escape(response.get('description', ''))}</td><td>{bodies}</td>"
            f"<td>{headers}</td></tr>"
        )
    return (
        "<h4>Responses</h4><table><tr><th>Status</th><th>Description</th><th>Body</th>"
        "<th>Headers</th></tr>" + "".join(rows) + "</table>"
    )


def operation_html(method: str, path: str, op: dict, item: dict, spec: dict) -> str:
    security = op.get("security", spec.get("security", []))
    schemes = sorted({name for requirement in security for name in requirement})
    auth = ", ".join(f"<code>{escape(s)}</code>" for s in schemes) or "none (public)"
    roles = " ".join(f"<code>{escape(r)}</code>" for r in op.get("x-roles", ())) or "anyone"
    params = [*item.get("parameters", []), *op.get("parameters", [])]
    parts = [
        f'<section class="op" id="{anchor(method, path)}">',
        f'<h3><span class="m {method}">{method.upper()}</span><code>{escape(path)}</code></h3>',
        f"<p><strong>{inline(op.get('summary', ''))}</strong></p>",
        prose(op.get("description", "")),
        f'<p class="roles">Security: {auth}. Roles: {roles}</p>',
        params_html(params),
        body_html(op["requestBody"], spec) if "requestBody" in op else "",
        responses_html(op.get("responses", {}), spec),
        "</section>",
    ]
    return "".join(parts)


def operations(spec: dict[str, Any]) -> list[tuple[str, str, str, dict, dict]]:
    """(tag, method, path, operation, path item) in tag order, then path order."""
    tag_order = [t["name"] for t in spec.get("tags", [])]
    found = []
    for path, item in spec.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                tag = (item[method].get("tags") or ["other"])[0]
                found.append((tag, method, path, item[method], item))
    rank = {name: i for i, name in enumerate(tag_order)}
    return sorted(found, key=lambda o: (rank.get(o[0], len(rank)), o[2], METHODS.index(o[1])))


def render_html(spec: dict[str, Any]) -> str:
    info = spec.get("info", {})
    title = escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    ops = operations(spec)
    descriptions = {t["name"]: t.get("description", "") for t in spec.get("tags", [])}
    toc, body, current = [], [], None
    for tag, method, path, op, item in ops:
        if tag != current:
            if current is not None:
                toc.append("</ul></li>")
            current = tag
            toc.append(f"<li>{escape(tag)}: {escape(descriptions.get(tag, ''))}<ul>")
            body.append(f'<h2 id="tag-{escape(tag)}">{escape(tag)}</h2>')
        toc.append(
            f'<li><a href="#{anchor(method, path)}"><span class="m {method}">{method.upper()}'
            f"</span><code>{escape(path)}</code></a> {inline(op.get('summary', ''))}</li>"
        )
        body.append(operation_html(method, path, op, item, spec))
    if current is not None:
        toc.append("</ul></li>")
    schemas = spec.get("components", {}).get("schemas", {})
    schema_html = "".join(
        f'<section class="op" id="schema-{escape(name)}"><h3>{escape(name)}</h3>'
        f"{fields_table(schema, spec)}</section>"
        for name, schema in sorted(schemas.items())
    )
    intro = prose(info.get("description", ""))
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{CSS}</style></head><body><main><h1>{title}</h1>{intro}"
        f'<p>OpenAPI {escape(spec.get("openapi", ""))}: <a href="/openapi.json">'
        f"/openapi.json</a></p><nav><h2>Contents</h2><ul>{''.join(toc)}"
        f'<li><a href="#schemas">Schemas</a></li></ul></nav>{"".join(body)}'
        f'<h2 id="schemas">Schemas</h2>{schema_html}</main></body></html>\n'
    )
