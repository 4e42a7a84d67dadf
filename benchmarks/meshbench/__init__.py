"""The mesh benchmark's parts; `benchmarks/mesh_bench.py` runs them (imports point down this list).

  processes      processes the benchmark starts (log file, stop by PID), waiting, the run's log lines
  client         the MCP client of the measurements (sequential, one keep-alive connection) and its verdicts
  agents         the sides; our registry and agents, MCP Mesh's registry and agents: start, wait until listed
  measure        CPU, RSS and other people's load on the machine; sequential latency and its statistics
  load           autocannon runs (benchmarks/mesh_load.js) and the throughput of a consumer
  calls          calls across a change: polling for an answer's kind, calls across a crash, their summary
  calc           phase `calc`: every side's stack at once, latency chunks and throughput rounds alternating
  crash          the crash part of phase `topology`: kill the provider in use, then the alternate
  topology       phase `topology`: missing dependency, provider start -> first successful call, crashes
  registry_load  phase `registry`: a simulated fleet of heartbeats against the registry alone

The modules import `_common` and `tests.interop.mcp_mesh`: `mesh_bench.py` puts `benchmarks/` and the
repository on `sys.path` first.
"""
