"""toolpool.demo exports exactly the helpers tests and benchmarks build on."""

from __future__ import annotations

import toolpool.demo


def test_the_demo_package_exports_exactly_its_helpers() -> None:
    assert sorted(toolpool.demo.__all__) == [
        "DEMO_KINDS",
        "DemoEndpoint",
        "STDIO_ONLY_KINDS",
        "demo_command",
        "demo_environment",
        "serve_demo_http",
    ]
    assert all(hasattr(toolpool.demo, name) for name in toolpool.demo.__all__)
