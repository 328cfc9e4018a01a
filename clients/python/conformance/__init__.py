"""This library's implementation of clients/conformance/scenarios.json (`python -m conformance`)."""
