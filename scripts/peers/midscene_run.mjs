#!/usr/bin/env node
// Midscene Android's own agent on one task, for judge_task.py (issue 27 relay rounds).
//
// Midscene (npm `@midscene/android`) is installed on demand in its own folder, never in the
// repo: `mkdir -p /tmp/omg-peers/midscene && cd $_ && npm init -y && npm install
// @midscene/android@1.7.3`. This script loads it from MIDSCENE_HOME (default that folder)
// because Node resolves packages beside the script, not beside the working directory.
//
//   node scripts/peers/midscene_run.mjs SERIAL "TASK"
//
// It builds AndroidDevice(SERIAL) + AndroidAgent and calls agent.aiAct(TASK) once — the
// shipped planning loop (one model call per step, a screenshot each). The model comes from
// Midscene's own variables (MIDSCENE_MODEL_BASE_URL, _API_KEY, _NAME, _FAMILY, _TIMEOUT).
// Midscene's report folder goes under MIDSCENE_HOME (MIDSCENE_RUN_DIR), never into the cwd.
// Last line: "MIDSCENE done" (aiAct returned) or "MIDSCENE error: MESSAGE" — when the model
// ends with <complete success="false">, MESSAGE starts "Task failed:", which judge_task.py
// reads as "reported the goal infeasible" (--failed-if midscene). Exit 0 / 1 accordingly.
import { createRequire } from 'node:module';
import path from 'node:path';

const home = process.env.MIDSCENE_HOME || '/tmp/omg-peers/midscene';
process.env.MIDSCENE_RUN_DIR ||= path.join(home, 'midscene_run');
const [serial, task] = process.argv.slice(2);
if (!serial || !task) {
  console.error('usage: midscene_run.mjs SERIAL "TASK" (Midscene installed in MIDSCENE_HOME)');
  process.exit(2);
}
const require = createRequire(path.join(home, 'package.json'));
const { AndroidAgent, AndroidDevice } = require('@midscene/android');

const device = new AndroidDevice(serial, {});
let code = 0;
try {
  await device.connect();
  const agent = new AndroidAgent(device, { generateReport: false });
  const output = await agent.aiAct(task);
  if (output !== undefined) console.log(`MIDSCENE output: ${JSON.stringify(output)}`);
  console.log('MIDSCENE done');
} catch (error) {
  console.log(`MIDSCENE error: ${error?.message ?? String(error)}`);
  code = 1;
} finally {
  await device.destroy?.().catch(() => {});
}
process.exit(code);
