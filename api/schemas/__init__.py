"""Marshmallow schemas of every request and response body (the OpenAPI document's source)."""
