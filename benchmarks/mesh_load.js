'use strict'
// Load generator of benchmarks/mesh_bench.py.
//
//   node benchmarks/mesh_load.js CONFIG.json      -> one JSON object on stdout
//
// CONFIG: {"autocannon": "<path of autocannon.js>", "url": "http://127.0.0.1:PORT", "connections": 16,
//          "duration": 5, "max_requests": 200000, "timeout": 10, "kind": "call" | "post" | "head",
//          "path": "/mcp", "headers": {...},
//          call: "body": "<one JSON-RPC request>", "expect": "<substring of a correct answer>"
//          post: "bodies": ["<heartbeat JSON>", ...]   (POST /heartbeat, cycled over all connections)
//          head: "ids": ["agent-id", ...]              (HEAD /heartbeat/{id}, cycled)}
// Every run is bounded by a duration AND a request cap.
//
// "call" and "post" use autocannon's programmatic API (maxOverallRequests = the cap), so that every request
// can carry another body (the heartbeats of a simulated fleet) and every answer can be checked (tool
// results). "head" does not use autocannon: its HTTP parser waits for a body after a HEAD answer that
// carries no content-length (the MCP Mesh registry sends none), so every connection stalls. It uses Node's
// own http client instead: `connections` sequential loops, each on its own keep-alive socket.

const fs = require('fs')

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))

let next = 0

function runAutocannon () {
  const autocannon = require(cfg.autocannon)
  let checked = 0
  let good = 0
  const badSamples = []
  const request = { method: 'POST', path: cfg.path || '/' }
  if (cfg.kind === 'call') {
    request.body = cfg.body
    request.onResponse = (status, body) => {
      checked++
      if (status === 200 && body && body.includes(cfg.expect)) {
        good++
      } else if (badSamples.length < 3) {
        badSamples.push(`${status} ${String(body).slice(0, 300)}`)
      }
    }
  } else {
    const bodies = cfg.bodies
    request.path = '/heartbeat'
    request.setupRequest = (req) => ({ ...req, method: 'POST', path: '/heartbeat', body: bodies[next++ % bodies.length] })
  }
  const started = process.hrtime.bigint()
  const cpuStart = process.cpuUsage()
  autocannon({
    url: cfg.url,
    connections: cfg.connections,
    duration: cfg.duration,
    maxOverallRequests: cfg.max_requests,
    timeout: cfg.timeout || 10,
    headers: cfg.headers || {},
    requests: [request]
  }, (err, result) => {
    if (err) {
      console.error(String(err && err.stack ? err.stack : err))
      process.exit(1)
    }
    const cpu = process.cpuUsage(cpuStart)
    process.stdout.write(JSON.stringify({
      elapsed_s: Number(process.hrtime.bigint() - started) / 1e9,
      duration_s: result.duration,
      requests_total: result.requests.total,
      req_per_s: result.requests.total / result.duration,
      latency_ms: {
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        mean: result.latency.average,
        max: result.latency.max
      },
      statusCodeStats: result.statusCodeStats,
      '2xx': result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      checked,
      good,
      bad_samples: badSamples,
      loadgen_cpu_s: (cpu.user + cpu.system) / 1e6
    }) + '\n')
  })
}

function runHeads () {
  const http = require('http')
  const url = new URL(cfg.url)
  const ids = cfg.ids
  const deadline = Date.now() + cfg.duration * 1000
  const latencies = []
  const statusCodeStats = {}
  let sent = 0
  let errors = 0
  let timeouts = 0
  const started = process.hrtime.bigint()
  const cpuStart = process.cpuUsage()
  const loop = (agent) => new Promise((resolve) => {
    const one = () => {
      if (Date.now() >= deadline || sent >= cfg.max_requests) return resolve()
      sent++
      const path = '/heartbeat/' + ids[next++ % ids.length]
      const t0 = process.hrtime.bigint()
      const req = http.request({ host: url.hostname, port: url.port, method: 'HEAD', path, agent }, (res) => {
        res.resume()
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
          const stat = statusCodeStats[res.statusCode] || (statusCodeStats[res.statusCode] = { count: 0 })
          stat.count++
          setImmediate(one)
        })
      })
      req.setTimeout((cfg.timeout || 10) * 1000, () => { timeouts++; req.destroy() })
      req.on('error', () => { errors++; setImmediate(one) })
      req.end()
    }
    one()
  })
  const loops = []
  for (let i = 0; i < cfg.connections; i++) {
    loops.push(loop(new http.Agent({ keepAlive: true, maxSockets: 1 })))
  }
  Promise.all(loops).then(() => {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    const cpu = process.cpuUsage(cpuStart)
    latencies.sort((a, b) => a - b)
    const total = latencies.length
    const pct = (q) => total ? latencies[Math.min(total - 1, Math.round(q / 100 * (total - 1)))] : 0
    process.stdout.write(JSON.stringify({
      elapsed_s: elapsed,
      duration_s: elapsed,
      requests_total: total,
      req_per_s: total / elapsed,
      latency_ms: {
        p50: pct(50),
        p90: pct(90),
        p99: pct(99),
        mean: total ? latencies.reduce((a, b) => a + b, 0) / total : 0,
        max: pct(100)
      },
      statusCodeStats,
      errors,
      timeouts,
      checked: 0,
      good: 0,
      bad_samples: [],
      loadgen_cpu_s: (cpu.user + cpu.system) / 1e6
    }) + '\n')
    process.exit(0)
  })
}

if (cfg.kind === 'head') {
  runHeads()
} else if (cfg.kind === 'call' || cfg.kind === 'post') {
  runAutocannon()
} else {
  throw new Error('unknown kind ' + cfg.kind)
}
