"""Read side: projections, replay to a point, audits, verification, export and import.

Reads events and never writes the write side."""
