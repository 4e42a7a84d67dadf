// The console: traffic, tokens, live traces, events and "try a tool" (registry/console/routes.py).
// Reads the page's globals `state`, `base`, `el`, `nameOf` and `showFramework()`; polls once a second.
"use strict";
const consoleData = {since: 0, traces: new Map(), open: new Set(), tools: [], lastSeq: 0};
const MAX_TRACES_SHOWN = 200;

function ms(value) { return value >= 100 ? Math.round(value) + " ms" : value.toFixed(value >= 10 ? 1 : 2) + " ms"; }
function pct(rate) { return (rate * 100).toFixed(rate && rate < 0.01 ? 2 : 1) + " %"; }
function isFramework(name) { return name.startsWith("__mesh_job_") || name === "get_server_status"; }

function sparkline(values) {
  const w = 90, h = 18, max = Math.max(1, ...values);
  const step = w / Math.max(1, values.length - 1);
  const points = values.map((v, i) => (i * step).toFixed(1) + "," + (h - 1 - (v / max) * (h - 2)).toFixed(1)).join(" ");
  const graph = svg("svg", {class: "spark", width: String(w), height: String(h), viewBox: `0 0 ${w} ${h}`});
  graph.append(svg("polyline", {points, fill: "none", stroke: "#0969da", "stroke-width": "1.5"}));
  graph.append(svg("title", {}, values.join(" ") + " calls per " + consoleData.bucket + " s"));
  return graph;
}

function trafficCells(row, stats) {
  row.append(el("td", {class: "num calls"}, String(stats.calls)));
  row.append(el("td", {class: "num errors" + (stats.errors ? " bad" : "")}, String(stats.errors)));
  row.append(el("td", {class: "num"}, pct(stats.error_rate)));
  row.append(el("td", {class: "num"}, ms(stats.avg_ms)));
  row.append(el("td", {class: "num"}, ms(stats.p99_ms)));
  const trend = el("td");
  trend.append(sparkline(stats.trend));
  row.append(trend);
  row.append(el("td", {class: "num total"}, String(stats.total_calls)));
}

function renderTraffic(view) {
  consoleData.bucket = view.bucket_seconds;
  const t = view.totals;
  document.getElementById("traffic-totals").textContent =
    `${t.calls} call(s), ${t.errors} error(s) (${pct(t.error_rate)}), avg ${ms(t.avg_ms)}, p99 ${ms(t.p99_ms)} in the last ${view.window_seconds / 60} min`;
  const edges = document.querySelector("#traffic-edges tbody");
  edges.replaceChildren();
  for (const edge of view.edges) {
    const row = el("tr", {"data-from": edge.from, "data-capability": edge.capability, "data-to": edge.to});
    row.append(el("td", {}, edge.from_name), el("td", {class: "mono"}, edge.capability), el("td", {}, edge.to_name));
    trafficCells(row, edge);
    edges.append(row);
  }
  if (!view.edges.length) edges.append(emptyRow(10, "no calls between agents yet"));
  const tools = document.querySelector("#traffic-tools tbody");
  tools.replaceChildren();
  for (const tool of view.tools) {
    if (!showFramework() && isFramework(tool.tool)) continue;
    const row = el("tr", {"data-agent": tool.agent_id, "data-tool": tool.tool});
    row.append(el("td", {}, tool.agent), el("td", {class: "mono"}, tool.tool));
    trafficCells(row, tool);
    tools.append(row);
  }
  if (!tools.children.length) tools.append(emptyRow(9, "no tool calls yet"));
}

function emptyRow(span, text) {
  const row = el("tr");
  row.append(el("td", {colspan: String(span), class: "muted"}, text));
  return row;
}

function renderTokens(view) {
  const body = document.querySelector("#tokens tbody");
  body.replaceChildren();
  const byModel = new Map();
  for (const row of view.tokens) {
    const sum = byModel.get(row.model) || {input: 0, output: 0, requests: 0};
    sum.input += row.input; sum.output += row.output; sum.requests += row.requests;
    byModel.set(row.model, sum);
  }
  for (const [model, sum] of byModel) {
    const row = el("tr", {class: "model-total", "data-model": model});
    row.append(el("td", {class: "mono"}, model), el("td", {}, "all tools"), el("td", {}, ""));
    row.append(el("td", {class: "num"}, String(sum.input)), el("td", {class: "num"}, String(sum.output)), el("td", {class: "num"}, String(sum.requests)));
    body.append(row);
    for (const entry of view.tokens.filter(r => r.model === model)) {
      const line = el("tr", {"data-model": model, "data-tool": entry.tool});
      line.append(el("td", {}, ""), el("td", {class: "mono"}, entry.tool), el("td", {}, entry.agent));
      line.append(el("td", {class: "num"}, String(entry.input)), el("td", {class: "num"}, String(entry.output)), el("td", {class: "num"}, String(entry.requests)));
      body.append(line);
    }
  }
  if (!view.tokens.length) body.append(emptyRow(6, "no LLM calls yet"));
}

// Traces: spans are [span_id, parent_id, name, kind, detail, start, seconds, error, agent_id, agent_name].
function mergeTraces(view) {
  if (view.seq < consoleData.since) consoleData.since = 0;  // the registry restarted: its numbering too
  for (const trace of view.traces) consoleData.traces.set(trace.trace_id, trace);
  consoleData.since = Math.max(consoleData.since, view.seq);
  if (consoleData.traces.size > MAX_TRACES_SHOWN) {
    const newest = [...consoleData.traces.values()].sort((a, b) => b.seq - a.seq).slice(0, MAX_TRACES_SHOWN);
    consoleData.traces = new Map(newest.map(t => [t.trace_id, t]));
  }
  document.getElementById("traces-kept").textContent =
    `${view.retained_traces} kept by the registry (at most ${view.max_traces}; ${view.evicted_traces} older ones dropped)`;
}

function traceSummary(trace) {
  const spans = trace.spans;
  const ids = new Set(spans.map(s => s[0]));
  const roots = spans.filter(s => !s[1] || !ids.has(s[1]));
  const start = Math.min(...spans.map(s => s[5]));
  const end = Math.max(...spans.map(s => s[5] + s[6]));
  const root = roots.find(s => !s[1]) || roots[0] || spans[0];
  return {
    start, end, root,
    incomplete: roots.some(s => s[1]),
    errors: spans.filter(s => s[7]).length,
    agents: [...new Set([...spans].sort((a, b) => a[5] - b[5]).map(s => s[9]))],  // in the order they joined
  };
}

function renderTraces() {
  const body = document.querySelector("#traces tbody");
  body.replaceChildren();
  const traces = [...consoleData.traces.values()].sort((a, b) => b.seq - a.seq);
  for (const trace of traces) {
    const info = traceSummary(trace);
    const row = el("tr", {class: "trace" + (info.errors ? " failed" : ""), "data-trace": trace.trace_id});
    const toggle = el("td", {class: "mono"}, (consoleData.open.has(trace.trace_id) ? "▾ " : "▸ ") + trace.trace_id.slice(0, 12));
    row.append(toggle, el("td", {}, info.root[2]), el("td", {}, info.agents.join(", ")));
    row.append(el("td", {class: "num spans"}, String(trace.spans.length)));
    row.append(el("td", {class: "num"}, ms((info.end - info.start) * 1000)));
    row.append(el("td", {class: info.errors ? "bad" : ""}, info.errors ? info.errors + " error(s)" : (info.incomplete ? "incomplete" : "ok")));
    row.addEventListener("click", () => {
      if (consoleData.open.has(trace.trace_id)) consoleData.open.delete(trace.trace_id);
      else consoleData.open.add(trace.trace_id);
      renderTraces();
    });
    body.append(row);
    if (consoleData.open.has(trace.trace_id)) body.append(waterfall(trace, info));
  }
  if (!traces.length) body.append(emptyRow(6, "no traces yet"));
}

function waterfall(trace, info) {
  const row = el("tr", {class: "waterfall", "data-waterfall": trace.trace_id});
  const cell = el("td", {colspan: "6"});
  const children = new Map();
  const ids = new Set(trace.spans.map(s => s[0]));
  for (const span of trace.spans) {
    const parent = span[1] && ids.has(span[1]) ? span[1] : "";
    (children.get(parent) || children.set(parent, []).get(parent)).push(span);
  }
  const total = Math.max(1e-6, info.end - info.start);
  const table = el("table", {class: "spans"});
  function walk(parent, depth) {
    for (const span of (children.get(parent) || []).sort((a, b) => a[5] - b[5])) {
      const line = el("tr", {class: "span" + (span[7] ? " failed" : ""), "data-span": span[0], "data-agent": span[8]});
      const name = el("td", {style: `padding-left:${8 + depth * 16}px`, class: "mono"}, span[2]);
      if (span[1] && !ids.has(span[1])) name.append(el("span", {class: "muted"}, "  (its caller's span is missing)"));
      line.append(name, el("td", {}, span[9]), el("td", {class: "muted"}, span[3].toLowerCase() + (span[4] ? " · " + span[4] : "")));
      line.append(el("td", {class: "num"}, ms(span[6] * 1000)));
      const barCell = el("td", {class: "bar-cell"});
      const left = ((span[5] - info.start) / total) * 100, width = Math.max(0.5, (span[6] / total) * 100);
      barCell.append(el("div", {class: "bar" + (span[7] ? " bad" : ""), style: `margin-left:${left.toFixed(2)}%;width:${width.toFixed(2)}%`, title: span[7] || ""}));
      line.append(barCell);
      table.append(line);
      if (span[7]) {
        const error = el("tr", {class: "span-error"});
        error.append(el("td", {colspan: "5", class: "bad mono", style: `padding-left:${24 + depth * 16}px`}, span[7]));
        table.append(error);
      }
      walk(span[0], depth + 1);
    }
  }
  walk("", 0);
  cell.append(table);
  row.append(cell);
  return row;
}

async function loadEvents() {
  const response = await fetch(base + "ui/events?limit=100", {cache: "no-store"});
  if (!response.ok) return;
  const answer = await response.json();
  const list = document.getElementById("events");
  list.replaceChildren();
  for (const event of answer.events) {
    const item = el("li", {class: "event " + event.event_type, "data-type": event.event_type});
    item.append(el("span", {class: "muted"}, ago(event.timestamp) + " "), el("b", {}, event.event_type.replace("dependency_", "")));
    item.append(el("span", {}, " " + (event.agent_name || event.agent_id) + (event.function_name ? "." + event.function_name : "")));
    if (event.reason) item.append(el("div", {class: "mono reason"}, event.reason));
    list.append(item);
  }
  if (!answer.events.length) list.append(el("li", {class: "muted"}, "no events yet"));
}

let consoleBusy = false;
async function pollConsole() {
  if (consoleBusy) return;
  consoleBusy = true;
  try {
    const response = await fetch(base + "ui/console?since=" + consoleData.since, {cache: "no-store"});
    if (!response.ok) throw new Error("HTTP " + response.status);
    const view = await response.json();
    renderTraffic(view); renderTokens(view); mergeTraces(view); renderTraces();
    await loadEvents();
    document.getElementById("console-status").textContent = view.unavailable || "";  // a registry without it
  } catch (err) {
    document.getElementById("console-status").textContent = "registry unreachable: showing the last data";
  } finally {
    consoleBusy = false;
  }
}

// Try a tool: a form from the tool's input schema, or raw JSON when the schema is more than flat fields.
function simpleField(schema) {
  if (!schema || typeof schema !== "object") return null;
  if (Array.isArray(schema.enum) && schema.enum.every(v => ["string", "number"].includes(typeof v))) return {kind: "enum", values: schema.enum};
  const options = schema.anyOf || schema.oneOf;
  if (options) {
    const real = options.filter(o => o.type !== "null");
    return real.length === 1 && real.length < options.length ? simpleField(real[0]) : null;
  }
  return ["string", "integer", "number", "boolean"].includes(schema.type) ? {kind: schema.type} : null;
}
function formFields(schema) {
  if (!schema || schema.type !== "object" || schema.$ref || schema.$defs && Object.keys(schema.properties || {}).some(k => JSON.stringify(schema.properties[k]).includes("$ref"))) return null;
  const fields = [];
  for (const [name, property] of Object.entries(schema.properties || {})) {
    const field = simpleField(property);
    if (!field) return null;
    fields.push({name, ...field, required: (schema.required || []).includes(name), schema: property});
  }
  return fields;
}

async function loadTools() {
  const response = await fetch(base + "ui/tools", {cache: "no-store"});
  if (!response.ok) return;
  consoleData.tools = (await response.json()).tools;
  const select = document.getElementById("call-tool");
  const current = select.value;
  select.replaceChildren(el("option", {value: ""}, "choose a tool…"));
  for (const tool of consoleData.tools) {
    if (!showFramework() && tool.framework) continue;
    const key = tool.agent_id + " " + tool.tool;
    const label = `${tool.agent} · ${tool.tool}` + (tool.streams ? " (stream)" : "") + (tool.healthy ? "" : " (unhealthy)");
    select.append(el("option", {value: key}, label));
  }
  if ([...select.options].some(o => o.value === current)) select.value = current;
}

function chosenTool() {
  const [agent, name] = document.getElementById("call-tool").value.split(" ");
  return consoleData.tools.find(t => t.agent_id === agent && t.tool === name);
}

function renderForm() {
  const tool = chosenTool();
  const form = document.getElementById("call-fields");
  form.replaceChildren();
  document.getElementById("call-run").disabled = !tool;
  if (!tool) return;
  if (tool.description) form.append(el("p", {class: "muted"}, tool.description));
  const fields = formFields(tool.input_schema);
  form.dataset.mode = fields ? "form" : "json";
  if (!fields) {
    form.append(el("p", {class: "muted", id: "call-raw-note"}, "This input schema has nested or combined types: arguments as raw JSON."));
    const area = el("textarea", {id: "call-json", rows: "6", class: "mono", spellcheck: "false"});
    area.value = "{}";
    form.append(area);
    const schema = el("details");
    schema.append(el("summary", {}, "input schema"), el("pre", {class: "mono"}, JSON.stringify(tool.input_schema, null, 2)));
    form.append(schema);
    return;
  }
  for (const field of fields) {
    const label = el("label", {class: "field"});
    label.append(el("span", {}, field.name + (field.required ? " *" : "")));
    let input;
    if (field.kind === "enum") {
      input = el("select", {name: field.name});
      for (const value of field.values) input.append(el("option", {value: String(value)}, String(value)));
    } else if (field.kind === "boolean") {
      input = el("input", {type: "checkbox", name: field.name});
    } else {
      input = el("input", {type: field.kind === "string" ? "text" : "number", name: field.name, step: field.kind === "integer" ? "1" : "any"});
      if (field.schema.default !== undefined) input.value = String(field.schema.default);
    }
    input.dataset.kind = field.kind;
    label.append(input);
    if (field.schema.description) label.append(el("small", {class: "muted"}, field.schema.description));
    form.append(label);
  }
}

function formArguments() {
  const form = document.getElementById("call-fields");
  if (form.dataset.mode === "json") {
    const value = JSON.parse(document.getElementById("call-json").value || "{}");
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("the arguments must be a JSON object");
    return value;
  }
  const args = {};
  for (const input of form.querySelectorAll("[name]")) {
    const kind = input.dataset.kind;
    if (kind === "boolean") { args[input.name] = input.checked; continue; }
    if (input.value === "") continue;
    args[input.name] = kind === "integer" ? parseInt(input.value, 10) : kind === "number" ? parseFloat(input.value) : input.value;
  }
  return args;
}

function resultText(result) {
  const texts = (result.content || []).filter(c => c.type === "text").map(c => c.text);
  const structured = result.structuredContent;
  if (structured && typeof structured === "object" && Object.keys(structured).join() === "result") {
    const value = structured.result;  // a plain return value, wrapped as MCP wants an object
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
  if (structured !== undefined && structured !== null) return JSON.stringify(structured, null, 2);
  return texts.join("\n");
}

// The page's CSRF token (registry/ui/protection.py): a call without it is refused.
const CSRF = document.querySelector('meta[name="mesh-csrf"]').content;

async function callOnce(tool, args, onLine, framework) {
  const response = await fetch(base + "ui/call", {
    method: "POST", cache: "no-store", headers: {"Content-Type": "application/json", "X-Mesh-Csrf": CSRF},
    body: JSON.stringify({agent_id: tool.agent_id, tool: tool.tool, arguments: args, framework: framework === undefined ? showFramework() : framework}),
  });
  if (!response.ok) {
    let message = "HTTP " + response.status;
    try { message = (await response.json()).message || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  const reader = response.body.getReader(), decoder = new TextDecoder();
  let buffered = "", last = null;
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, {stream: true});
    let cut;
    while ((cut = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 1);
      if (!line.trim()) continue;
      last = JSON.parse(line);
      onLine(last);
    }
  }
  return last;
}

async function runCall() {
  const tool = chosenTool();
  const output = document.getElementById("call-result"), chunks = document.getElementById("call-chunks");
  const status = document.getElementById("call-status");
  output.textContent = ""; chunks.textContent = ""; output.className = "mono";
  if (!tool) return;
  let args;
  try {
    args = formArguments();
  } catch (err) {
    status.textContent = "error"; output.className = "mono bad"; output.textContent = "invalid arguments: " + err.message;
    return;
  }
  status.textContent = "calling…";
  try {
    const last = await callOnce(tool, args, line => {
      if (line.chunk !== undefined) chunks.textContent += line.chunk;
      if (line.progress !== undefined) status.textContent = "progress " + line.progress + (line.total ? " / " + line.total : "");
    });
    if (!last || last.error) throw new Error(last ? last.error : "no answer");
    if (last.result && last.result.isError) {
      status.textContent = "the tool failed"; output.className = "mono bad"; output.textContent = resultText(last.result);
      return;
    }
    const handle = last.result && last.result.structuredContent;
    if (handle && typeof handle.job_id === "string" && "poll" in handle) {
      await followJob(tool, handle.job_id, status, output);
      return;
    }
    status.textContent = "done"; output.textContent = resultText(last.result);
  } catch (err) {
    status.textContent = "error"; output.className = "mono bad"; output.textContent = err.message;
  }
}

async function followJob(tool, jobId, status, output) {
  const statusTool = {agent_id: tool.agent_id, tool: "__mesh_job_status"};
  for (let polls = 0; polls < 1200; polls++) {
    const last = await callOnce(statusTool, {job_id: jobId}, () => {}, true);  // the page follows its own job
    if (!last || last.error || !last.result || last.result.isError) throw new Error(last && last.error ? last.error : "job " + jobId + " cannot be polled");
    const row = last.result.structuredContent || JSON.parse(resultText(last.result) || "{}");
    const progress = row.progress !== undefined && row.progress !== null ? ` ${Math.round(row.progress * 100)} %` : "";
    status.textContent = `job ${jobId}: ${row.status}${progress}${row.progress_message ? " · " + row.progress_message : ""}`;
    if (["completed", "failed", "cancelled", "canceled", "lost"].includes(row.status)) {
      output.className = row.status === "completed" ? "mono" : "mono bad";
      output.textContent = row.status === "completed" ? JSON.stringify(row.result, null, 2) : (row.error || row.status);
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 500));
  }
}

document.getElementById("call-tool").addEventListener("change", renderForm);
document.getElementById("call-run").addEventListener("click", runCall);
document.getElementById("show-framework").addEventListener("change", () => { renderAgents(); loadTools(); pollConsole(); });
setInterval(pollConsole, 1000);
setInterval(loadTools, 5000);
pollConsole();
loadTools();
