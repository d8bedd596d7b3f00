"""Stepwise's local trainer: fine-tunes from the annotations collected in the editor."""

__version__ = "0.1.0"
