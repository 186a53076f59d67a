"""Test doubles that are real servers, not patched objects."""
