"""Data the tests read, vendored so a fresh clone runs every test (licences in README.md here)."""

from pathlib import Path

__all__ = ["DATASETS"]

DATASETS = Path(__file__).resolve().parent / "datasets"
