"""Test doubles that speak real wire protocols (a fake model server over HTTP)."""
