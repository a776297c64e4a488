// The Qwen3 tokenizer in real headless Chromium, through src/app/tokenizer-test.html: the lazily
// fetched vocabulary chunk (from the local server only), encode / decode of non-ASCII text, the chat
// template with tools (@huggingface/jinja) and the SFT assistant mask. Expected values come from
// the Node implementation (e2e/qwen3Expected.ts, run once per file with tsx), from fixed ids, and
// from the Python jinja2 renderings in src/tokenizer/testdata/qwen3Goldens.json. No GPU involved.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, type Page, type Request, test } from '@playwright/test';
import type { ChatMessage, ToolSpec } from '../src/envs/types';
import { SERVICE_CHAT, SERVICE_TOOLS, WEATHER_ASSISTANT_TEXTS, WEATHER_CHAT, WEATHER_TOOLS } from '../src/tokenizer/chatFixtures';
import type { ExpectedRequest, ExpectedResult } from './qwen3Expected';

interface Golden { name: string; messages: ChatMessage[]; tools: ToolSpec[]; addGenerationPrompt: boolean; enableThinking: boolean; expected: string }
const GOLDENS: Golden[] = JSON.parse(readFileSync(new URL('../src/tokenizer/testdata/qwen3Goldens.json', import.meta.url), 'utf8'));

const ROUND_TRIP_TEXTS = [
  'Grüße aus Köln — «ça va?» naïve façade',
  'CJK 日本語の文章 한국어 中文',
  'emoji 😀 family 👩‍👩‍👧 flag 🇫🇷 melting 🫠',
  'Ελληνικά, русский, עברית, العربية, हिन्दी',
  '  tabs\tand\n\nnewlines \r\n <|im_start|>user\nhi<|im_end|>\n<tool_call>\n{"city": "Tōkyō"}\n</tool_call>',
  'cafe\u0301 a\u0308', // combining marks: Qwen3's NFC normaliser composes them
];

const CONVERSATIONS = [
  { name: 'weather', messages: WEATHER_CHAT, tools: WEATHER_TOOLS, opts: { verifyWholeText: true } },
  { name: 'service', messages: SERVICE_CHAT, tools: SERVICE_TOOLS, opts: { verifyWholeText: true } },
  { name: 'weather, thinking on, generation prompt', messages: WEATHER_CHAT.slice(0, 4), tools: WEATHER_TOOLS, opts: { enableThinking: true, addGenerationPrompt: true } },
];

const goldenOpts = (g: Golden) => ({ addGenerationPrompt: g.addGenerationPrompt, enableThinking: g.enableThinking });

/** The Node implementation's answers for every case above (a tsx child process, ~3 s). */
function expectedFromNode(): ExpectedResult {
  const req: ExpectedRequest = {
    texts: ROUND_TRIP_TEXTS,
    renders: GOLDENS.map((g) => ({ messages: g.messages, tools: g.tools, opts: goldenOpts(g) })),
    conversations: CONVERSATIONS.map(({ messages, tools, opts }) => ({ messages, tools, opts })),
  };
  const script = fileURLToPath(new URL('./qwen3Expected.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script], { input: JSON.stringify(req), encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as ExpectedResult;
}

test.describe.configure({ mode: 'serial' }); // one page, one tokenizer load, shared by the tests below

let node: ExpectedResult;
let page: Page;
const requests: Request[] = [];

test.beforeAll(async ({ browser }) => {
  // Runs in both projects: their flags only pick a WebGPU adapter, which the tokenizer does not use,
  // but a page that works under one set of launch flags is not assumed to work under the other.
  node = expectedFromNode();
  page = await browser.newPage();
  page.on('request', (r) => requests.push(r));
  await page.goto('/tokenizer-test.html');
  await page.waitForFunction(() => window.tokenizerTest?.ready === true);
});

test.afterAll(async () => {
  await page?.close();
});

test('the vocabulary chunk is fetched lazily, from the local server only', async ({ baseURL }) => {
  const origin = new URL(baseURL!).origin;
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true); // served with COOP/COEP like the app
  const before = requests.length;
  // Nothing fetched yet is the vocabulary: the page's own scripts stay small.
  for (const r of requests) expect((await (await r.response())!.body()).length, r.url()).toBeLessThan(1_000_000);

  const info = await page.evaluate(() => window.tokenizerTest.load());
  expect(info).toMatchObject({ imStartId: 151644, imEndId: 151645, eosId: 151645, padId: 151643, vocabSize: 151936 });
  await expect(page.locator('#status')).toHaveAttribute('data-state', 'ready');

  const lazy = requests.slice(before);
  expect(lazy.length, 'load() fetched nothing: the vocabulary was not lazy').toBeGreaterThan(0);
  let bytes = 0;
  for (const r of lazy) {
    const response = (await r.response())!;
    expect(response.status(), r.url()).toBe(200);
    expect(new URL(r.url()).pathname, r.url()).toMatch(/^\/assets\/.*\.js$/);
    bytes += (await response.body()).length;
  }
  expect(bytes).toBeGreaterThan(4_000_000); // tokenizer.json's vocabulary and merges (11.4 MB as JSON)
  const chunks = lazy.map((r) => new URL(r.url()).pathname).join(', ');
  const summary = `${chunks}: ${(bytes / 1e6).toFixed(2)} MB, load() took ${info.ms} ms`;
  test.info().annotations.push({ type: 'tokenizer chunk', description: summary });
  console.log(`tokenizer chunk ${summary}`);

  const offsite = requests.map((r) => r.url()).filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
  expect(offsite).toEqual([]);
});

test('encode and decode non-ASCII text: the same ids as Node, and a round trip (NFC)', async () => {
  const fixed = await page.evaluate(() => [window.tokenizerTest.encode('hello world'), window.tokenizerTest.encode('😀')]);
  expect(fixed).toEqual([[14990, 1879], [141334]]);
  const results = await page.evaluate((texts) => texts.map((t) => {
    const ids = window.tokenizerTest.encode(t);
    return { ids, back: window.tokenizerTest.decode(ids) };
  }), ROUND_TRIP_TEXTS);
  ROUND_TRIP_TEXTS.forEach((text, i) => {
    expect(results[i].ids, text).toEqual(node.ids[i]);
    expect(results[i].back, text).toBe(text.normalize('NFC'));
  });
  expect(node.ids[0].length).toBeGreaterThan(5); // a real encoding, not an empty one on both sides
});

test('the trimmed Qwen3 tokenizer (nano-q) in the page: Node\'s ids, exact round trips (no NFC), Qwen3 ids that Qwen3 decodes to the text', async () => {
  const info = await page.evaluate(() => window.tokenizerTest.loadTrimmed());
  expect(info.kind).toBe('qwen3-trimmed');
  expect(info.vocabSize % 8).toBe(0);
  expect(info.usedIds).toBeGreaterThan(4000);
  const results = await page.evaluate((texts) => window.tokenizerTest.trimmedRoundTrips(texts), ROUND_TRIP_TEXTS);
  ROUND_TRIP_TEXTS.forEach((text, i) => {
    expect(results[i].ids, text).toEqual(node.trimmedIds[i]);
    expect(results[i].back, text).toBe(text);
    expect(results[i].qwen3Back, text).toBe(text);
  });
  expect(results[1].ids.length).toBeGreaterThan(node.ids[1].length); // CJK is not in the corpus: split into kept pieces
});

test('the chat template with tools renders as Python jinja2 (goldens) and as Node', async () => {
  const rendered = await page.evaluate((goldens) => goldens.map((g) => window.tokenizerTest.render(
    g.messages, g.tools, { addGenerationPrompt: g.addGenerationPrompt, enableThinking: g.enableThinking })), GOLDENS);
  expect(rendered).toHaveLength(GOLDENS.length);
  GOLDENS.forEach((g, i) => {
    const label = `${g.name} (prompt ${g.addGenerationPrompt}, thinking ${g.enableThinking})`;
    expect(rendered[i], label).toBe(g.expected);
    expect(rendered[i], label).toBe(node.renders[i]);
  });
  expect(GOLDENS.filter((g) => g.tools.length > 0).length).toBeGreaterThan(0);
});

test('conversations with tool calls: ids and assistant mask equal Node, the mask selects the assistant turns', async () => {
  const seqs = await page.evaluate((cases) => cases.map((c) => window.tokenizerTest.encodeConversation(c.messages, c.tools, c.opts)), CONVERSATIONS);
  CONVERSATIONS.forEach(({ name }, i) => {
    expect(seqs[i].ids, name).toEqual(node.conversations[i].ids);
    expect(seqs[i].assistantMask, name).toEqual(node.conversations[i].assistantMask);
    expect(seqs[i].assistantMask.length, name).toBe(seqs[i].ids.length);
  });

  // The masked runs of the weather chat decode (in the page) to exactly what the assistant generated.
  const weather = seqs[0];
  const runs: number[][] = [];
  weather.assistantMask.forEach((m, i) => {
    if (m === 1 && weather.assistantMask[i - 1] !== 1) runs.push([]);
    if (m === 1) runs[runs.length - 1].push(weather.ids[i]);
  });
  const texts = await page.evaluate((rs) => rs.map((r) => window.tokenizerTest.decode(r)), runs);
  expect(texts).toEqual(WEATHER_ASSISTANT_TEXTS);
});
