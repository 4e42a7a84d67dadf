"""`Mcp-Param-*` headers mirroring `x-mcp-header` arguments (SEP-2243)."""

from __future__ import annotations

import pytest

from mesh_framework.protocol.param_headers import (
    ParamHeaderError,
    check_param_headers,
    header_params,
    mirrored_headers,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "n": {"type": "integer", "x-mcp-header": "N"},
        "x": {"type": "string"},
    },
}
PARAMS = header_params(SCHEMA)


def test_marked_properties_are_found() -> None:
    assert PARAMS == (("region", "region"), ("n", "n"))


@pytest.mark.parametrize(
    ("arguments", "headers"),
    [
        ({"region": "Hello"}, {"region": "=?base64?SGVsbG8=?="}),
        ({"region": "SGVsbG8="}, {"region": "SGVsbG8="}),  # no wrapper: literal
        ({"region": "=?base64?SGVsbG8="}, {"region": "=?base64?SGVsbG8="}),  # incomplete wrapper: literal
        ({"region": "eu", "n": 3}, {"region": " eu\t", "n": "3"}),
        ({"x": "unmarked"}, {}),
    ],
)
def test_matching_headers_pass(arguments: dict[str, object], headers: dict[str, str]) -> None:
    check_param_headers(PARAMS, arguments, headers)


@pytest.mark.parametrize(
    ("arguments", "headers", "message"),
    [
        ({"region": "Hello"}, {}, "Mcp-Param-region header is missing"),
        ({"region": "Hello"}, {"region": "=?base64?SGVsbG8?="}, "not valid base64"),
        ({"region": "Hello"}, {"region": "=?base64?SGVs!!!bG8=?="}, "not valid base64"),
        ({"region": "eu"}, {"region": "us"}, "does not match argument 'region'"),
    ],
)
def test_missing_or_different_headers_are_refused(
    arguments: dict[str, object], headers: dict[str, str], message: str
) -> None:
    with pytest.raises(ParamHeaderError, match=message):
        check_param_headers(PARAMS, arguments, headers)


@pytest.mark.parametrize(
    ("arguments", "sent"),
    [
        ({"region": "eu-west", "n": 3, "x": "unmarked"}, {"mcp-param-region": "eu-west", "mcp-param-n": "3"}),
        ({"region": "Zürich"}, {"mcp-param-region": "=?base64?WsO8cmljaA==?="}),  # not ASCII
        ({"region": " eu"}, {"mcp-param-region": "=?base64?IGV1?="}),  # blanks around it would be cut
        (
            {"region": "=?base64?SGk=?="},
            {"mcp-param-region": "=?base64?PT9iYXNlNjQ/U0drPT89?="},
        ),  # looks encoded
        ({"region": None, "n": 2.0}, {"mcp-param-n": "2"}),
    ],
)
def test_a_client_mirrors_marked_arguments_as_a_server_checks_them(
    arguments: dict[str, object], sent: dict[str, str]
) -> None:
    headers = mirrored_headers(PARAMS, arguments)
    assert headers == sent
    check_param_headers(PARAMS, arguments, {k.removeprefix("mcp-param-"): v for k, v in headers.items()})
