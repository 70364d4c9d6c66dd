#!/usr/bin/env node
// Midscene Android's AndroidDevice API, call by call, with no model (issue 29).
//
// Started by midscene_check.py with the vphone's serial; Midscene (npm `@midscene/android`)
// is loaded from MIDSCENE_HOME (default /tmp/omg-peers/midscene), never from the repo.
// Each call prints one JSON line {"call", "ok", "detail"}; whether a call did what it says is
// read from the device — the vphone's state provider (`content query --uri
// content://omg.vphone/state`), `uiautomator dump`, `wm size`, a pulled file — never from the
// call returning.
//
//   node scripts/peers/midscene_device.mjs SERIAL
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const home = process.env.MIDSCENE_HOME || '/tmp/omg-peers/midscene';
process.env.MIDSCENE_RUN_DIR ||= path.join(home, 'midscene_run');
const serial = process.argv[2];
if (!serial) {
  console.error('usage: midscene_device.mjs SERIAL (Midscene installed in MIDSCENE_HOME)');
  process.exit(2);
}
const require = createRequire(path.join(home, 'package.json'));
const { AndroidAgent, AndroidDevice } = require('@midscene/android');

const CHINESE = '价格 ¥7,999';
const report = (call, ok, detail = '') =>
  console.log(JSON.stringify({ call, ok, detail }));

const device = new AndroidDevice(serial, {});
let adb;
const sh = async (cmd) => String(await adb.shell(cmd));
const state = async () => JSON.parse((await sh('content query --uri content://omg.vphone/state'))
  .split('state=').slice(1).join('state='));
const dump = async () => sh('uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml');
// The centre of the first node whose attribute matches, in physical pixels.
const centre = (xml, attr, value) => {
  for (const node of xml.match(/<node [^>]*>/g) ?? []) {
    if (!node.includes(`${attr}="${value}"`)) continue;
    const [l, t, r, b] = node.match(/bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/).slice(1).map(Number);
    return { x: (l + r) / 2, y: (t + b) / 2 };
  }
  throw new Error(`no node with ${attr}="${value}"`);
};

// Run one call; `verify` gets its result and returns null or what is wrong.
async function check(call, action, verify) {
  let result;
  try {
    result = await action();
  } catch (error) {  // the peer's own error is the finding
    report(call, false, `${error?.name}: ${error?.message}`.slice(0, 300));
    return;
  }
  let wrong;
  try {
    wrong = await verify(result);
  } catch (error) {
    wrong = `could not check: ${error?.message}`;
  }
  report(call, wrong == null, wrong ?? '');
}

const foreground = async (pkg, activity) => {
  const st = await state();
  return st.foreground === pkg && (!activity || st.activity === activity)
    ? null : `foreground is ${st.foreground}/${st.activity}`;
};
const draft = async (field, want) => {
  const got = (await state()).apps['com.omg.notes'].draft?.[field];
  return got === want ? null : `the note's ${field} reads ${JSON.stringify(got)}`;
};

try {
  await check('connect', async () => { adb = await device.connect(); }, async () => null);
  let scale = 1;
  await check('size', () => device.size(), async (size) => {
    const [w, h] = (await sh('wm size')).match(/(\d+)x(\d+)/).slice(1).map(Number);
    scale = size.width / w;  // Midscene works in logical pixels (physical ÷ density ratio)
    return Math.abs(size.height / h - scale) < 0.01 ? null
      : `size ${JSON.stringify(size)} is not the ${w}x${h} screen scaled evenly`;
  });
  const at = ({ x, y }) => [Math.round(x * scale), Math.round(y * scale)];
  await check('screenshotBase64', () => device.screenshotBase64(), async (b64) => {
    const bytes = Buffer.from(b64.split(',').pop(), 'base64');
    return bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])) ||
      bytes.subarray(0, 2).equals(Buffer.from([0xff, 0xd8])) ? null : 'not a PNG or JPEG';
  });
  await check("launch 'com.omg.notes' (by package)", () => device.launch('com.omg.notes'),
    () => foreground('com.omg.notes', '.NotesListActivity'));
  await check('mouseClick New note', async () =>
    device.mouseClick(...at(centre(await dump(), 'content-desc', 'New note'))),
  () => foreground('com.omg.notes', '.NoteEditorActivity'));
  await check("keyboardType 'Groceries'", () => device.keyboardType('Groceries'),
    () => draft('title', 'Groceries'));
  await check('clearInput (clearTextField)', () => device.clearInput(), () => draft('title', ''));
  await check(`keyboardType '${CHINESE}' (yadb -keyboard)`, () => device.keyboardType(CHINESE),
    () => draft('title', CHINESE));
  await check('longPress the body field', async () =>
    device.longPress(...at(centre(await dump(), 'resource-id', 'com.omg.notes:id/body_input'))),
  () => draft('focus', 'body'));
  await check('back (leaves the editor)', async () => {
    await device.back();
    if ((await state()).apps['com.omg.notes'].screen === 'editor') await device.back();
  }, () => foreground('com.omg.notes', '.NotesListActivity'));
  await device.launch('com.omg.feed');
  const offset = async () => (await state()).apps['com.omg.feed'].scroll_offset;
  const before = await offset();
  await check('scroll down in Feed', () => device.scroll(0, 600),
    async () => (await offset()) > before ? null : `scroll_offset stayed ${before}`);
  await check('home', () => device.home(), () => foreground('com.android.launcher3'));
  new AndroidAgent(device, { generateReport: false });  // gives the device its app-name table
  await check("launch 'Settings' (by name)", () => device.launch('Settings'),
    () => foreground('com.android.settings'));
  const shot = '/data/local/tmp/midscene_force.png';
  await check('forceScreenshot (yadb -screenshot)', () => device.forceScreenshot(shot),
    async () => {
      const local = path.join(os.tmpdir(), `midscene_force_${process.pid}.png`);
      await adb.pull(shot, local);
      const head = fs.readFileSync(local).subarray(0, 8).toString('hex');
      fs.rmSync(local);
      return head === '89504e470d0a1a0a' ? null : `the pulled ${shot} starts ${head}`;
    });
  await check("launch 'com.example.absent' fails", async () => {
    try { await device.launch('com.example.absent'); } catch (error) { return error.message; }
    return null;
  }, async (message) => message ? null : 'it claimed to launch');
} finally {
  await device.destroy?.().catch(() => {});
}
process.exit(0);
