"""Schedules."""

SCHEDULES: list = []
