"""`mesh call` to an agent that requires a bearer token: `--token`, or the settings' `auth.client_token`
(`MESH_AUTH__CLIENT_TOKEN`), as an agent's own calls send it; a refusal says which option to use."""

from __future__ import annotations

from ..agents import run_agent, run_cli, run_registry, wait_until

TOKENS = '[{"token": "s3cret", "scopes": [], "client_id": "cli"}]'


def test_call_an_agent_that_requires_a_token() -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with run_agent("starter_app", env={**env, "MESH_AUTH__TOKENS": TOKENS}):
            wait_until(lambda: "starter" in run_cli(["list"], env=env).stdout, timeout=20)
            refused = run_cli(["call", "add", "a=1", "b=2"], env=env)
            assert refused.returncode == 1 and refused.stdout == ""
            assert refused.stderr.startswith("mesh call: http://127.0.0.1:")
            assert refused.stderr.endswith(
                "refused the call: HTTP 401 a bearer token is required; pass --token (or "
                "MESH_AUTH__CLIENT_TOKEN)\n"
            )
            given = run_cli(["call", "add", "a=1", "b=2", "--token", "s3cret"], env=env)
            assert (given.returncode, given.stdout, given.stderr) == (0, "3\n", "")
            from_settings = run_cli(
                ["call", "add", "a=2", "b=2"], env={**env, "MESH_AUTH__CLIENT_TOKEN": "s3cret"}
            )
            assert (from_settings.returncode, from_settings.stdout) == (0, "4\n")
            wrong = run_cli(["call", "add", "a=1", "b=2", "--token", "nope"], env=env)
            assert wrong.returncode == 1 and "HTTP 401" in wrong.stderr
            assert wrong.stderr.endswith("; check --token (or MESH_AUTH__CLIENT_TOKEN)\n")
            assert "nope" not in wrong.stderr and "s3cret" not in refused.stderr + wrong.stderr
