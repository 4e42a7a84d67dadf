// The official MCP TypeScript SDK as a client of protocol 2025-11-25's tasks.
//
//   node tasks_client.mjs URL SDK_DIR
//
// SDK_DIR is an installed @modelcontextprotocol/sdk (1.x). Against tests.apps.tasks_app it runs tools as
// tasks with `client.experimental.tasks.callToolStream` (which checks each result against the tool's
// outputSchema), cancels and lists them, and prints what it saw as one JSON object for
// tests/test_jobs_experimental_tasks_sdk.py to check.
import { pathToFileURL } from 'node:url';

const [url, sdk] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { CallToolResultSchema, McpError } = await load('types.js');

async function stream(client, name, args) {
  const messages = [];
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema)) {
    if (message.type === 'taskCreated') messages.push({ type: message.type, taskId: message.task.taskId });
    else if (message.type === 'taskStatus') messages.push({ type: message.type, status: message.task.status });
    else if (message.type === 'result') messages.push({ type: message.type, result: message.result });
    else messages.push({ type: message.type, error: message.error.message });
  }
  return messages;
}

const seen = {};
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: 'tasks-ts-client', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
seen.protocolVersion = transport.protocolVersion;
seen.tasksCapability = client.getServerCapabilities().tasks ?? null;
const { tools } = await client.listTools();
seen.taskTools = tools.filter((tool) => client.isToolTask(tool.name)).map((tool) => tool.name);

seen.completed = await stream(client, 'slow_compute', { seconds: 0.3, label: 'ts' });
seen.failed = await stream(client, 'failing_job', {});

const created = await client.request(
  { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 30 }, task: { ttl: 60000 } } },
  (await load('types.js')).CreateTaskResultSchema,
);
seen.cancelled = (await client.experimental.tasks.cancelTask(created.task.taskId)).status;
seen.listed = (await client.experimental.tasks.listTasks()).tasks.map((task) => task.status);
try {
  await client.experimental.tasks.getTask('no-such-task');
} catch (error) {
  seen.unknown = error instanceof McpError ? error.code : String(error);
}
const plain = await client.callTool({ name: 'slow_compute', arguments: { seconds: 0.01 } }); // checked too
seen.plainHandle = plain.structuredContent;
await client.close();
console.log(JSON.stringify(seen));
