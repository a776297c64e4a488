// Parsing problems: key/value strings, arithmetic expressions, CSV lines, durations, bracket
// balance, version strings. Where parsing the input is the whole problem, the oracle does not
// parse: inputs are rendered from generated structures whose answers are known.
import type { Rng } from '../../../util/rng';
import { repeat, word, type ProblemTemplate } from './types';

const KEYS = ['name', 'age', 'city', 'mode', 'level', 'port', 'host', 'user', 'color', 'size', 'retries', 'debug'];

const keyValues: ProblemTemplate = {
  id: 'parse-key-values',
  category: 'parsing',
  make(rng) {
    const pairSep = rng.pick([';', '&', ',']);
    const kvSep = rng.pick(['=', ':']);
    const entry = rng.pick(['parseConfig', 'parseKeyValues', 'parsePairs']);
    const PS = JSON.stringify(pairSep);
    const KS = JSON.stringify(kvSep);
    const pad = () => ' '.repeat(rng.int(0, 2));
    const value = () => (rng.next() < 0.5 ? String(rng.int(-50, 500)) : word(rng, 1, 6));
    const line = () => Array.from({ length: rng.int(0, 5) }, () => (rng.next() < 0.15 ? pad() : `${pad()}${rng.pick(KEYS)}${pad()}${kvSep}${pad()}${value()}${pad()}`)).join(pairSep);
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that parses settings written as key${kvSep}value pairs separated by "${pairSep}" into an object. Split each pair at its first "${kvSep}"; trim spaces around keys and values; skip segments that are empty or only spaces; values made only of digits (with an optional leading "-") become numbers, all others stay strings; when a key repeats, the last value wins.`,
      reference: `function ${entry}(text) {\n  const out = {};\n  for (const part of text.split(${PS})) {\n    if (part.trim() === '') continue;\n    const at = part.indexOf(${KS});\n    const key = part.slice(0, at).trim();\n    const raw = part.slice(at + 1).trim();\n    out[key] = /^-?\\d+$/.test(raw) ? Number(raw) : raw;\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(text) {\n  const out = {};\n  for (const part of text.split(${PS})) {\n    if (!part) continue;\n    const [key, value] = part.split(${KS});\n    out[key] = /^-?\\d+$/.test(value) ? Number(value) : value;\n  }\n  return out;\n}\n`,
      bugNote: 'keys and values must be trimmed, and segments holding only spaces skipped',
      oracle: (text: string) => {
        const out: Record<string, string | number> = {};
        for (const segment of text.split(pairSep).map((s) => s.trim()).filter((s) => s.length > 0)) {
          const i = segment.indexOf(kvSep);
          const raw = segment.slice(i + kvSep.length).trim();
          out[segment.slice(0, i).trim()] = [...raw].every((c, j) => (c >= '0' && c <= '9') || (c === '-' && j === 0 && raw.length > 1)) && raw.length > 0 ? Number(raw) : raw;
        }
        return out;
      },
      publicInputs: [[`name ${kvSep} Ada${pairSep} age${kvSep}36 ${pairSep}${pairSep}  `], [line()], ['']],
      hiddenInputs: repeat(9, () => [line()]),
    };
  },
};

/** An arithmetic expression tree over small non-negative integers. */
type Expr = number | { op: '+' | '-' | '*'; left: Expr; right: Expr };

function randomExpr(rng: Rng, depth: number): Expr {
  // Leaves ≤ 9 and depth ≤ 4 keep every intermediate value below 2^53, so any evaluation order is exact.
  if (depth === 0 || rng.next() < 0.25) return rng.int(0, 9);
  return { op: rng.pick(['+', '-', '*'] as const), left: randomExpr(rng, depth - 1), right: randomExpr(rng, depth - 1) };
}
function exprValue(e: Expr): number {
  if (typeof e === 'number') return e;
  const a = exprValue(e.left);
  const b = exprValue(e.right);
  return e.op === '+' ? a + b : e.op === '-' ? a - b : a * b;
}
const PREC = { '+': 1, '-': 1, '*': 2 } as const;
/** Renders with the parentheses precedence needs, plus (when `redundant`) a few extra ones, and random spacing. */
function renderExpr(rng: Rng, e: Expr, redundant = true): string {
  if (typeof e === 'number') return String(e);
  const side = (child: Expr, right: boolean) => {
    const text = renderExpr(rng, child, redundant);
    if (typeof child === 'number') return text;
    const need = PREC[child.op] < PREC[e.op] || (right && e.op === '-' && PREC[child.op] === PREC[e.op]);
    return need || (redundant && rng.next() < 0.15) ? `(${text})` : text;
  };
  const sp = () => (rng.next() < 0.7 ? ' ' : '');
  return `${side(e.left, false)}${sp()}${e.op}${sp()}${side(e.right, true)}`;
}

const evalExpression: ProblemTemplate = {
  id: 'eval-expression',
  category: 'parsing',
  make(rng) {
    const entry = rng.pick(['evaluate', 'evalExpression', 'calculate']);
    const known = new Map<string, number>();
    const make = (e: Expr, redundant = true) => { const s = renderExpr(rng, e, redundant); known.set(s, exprValue(e)); return [s]; };
    return {
      entry,
      params: ['expr'],
      statement: `Write ${entry}(expr) that evaluates an arithmetic expression made of non-negative integers, +, -, * and parentheses, with spaces allowed anywhere between tokens. * binds tighter than + and -, and operators of equal precedence apply left to right ("8 - 3 - 2" is 3). Do not use eval or Function.`,
      reference: `function ${entry}(expr) {\n  const tokens = expr.match(/\\d+|[-+*()]/g) || [];\n  let pos = 0;\n  function primary() {\n    const t = tokens[pos++];\n    if (t === '(') { const v = sum(); pos++; return v; }\n    return Number(t);\n  }\n  function product() {\n    let v = primary();\n    while (tokens[pos] === '*') { pos++; v *= primary(); }\n    return v;\n  }\n  function sum() {\n    let v = product();\n    while (tokens[pos] === '+' || tokens[pos] === '-') {\n      const op = tokens[pos++];\n      const r = product();\n      v = op === '+' ? v + r : v - r;\n    }\n    return v;\n  }\n  return sum();\n}\n`,
      buggy: `function ${entry}(expr) {\n  const tokens = expr.match(/\\d+|[-+*()]/g) || [];\n  let pos = 0;\n  function primary() {\n    const t = tokens[pos++];\n    if (t === '(') { const v = chain(); pos++; return v; }\n    return Number(t);\n  }\n  function chain() {\n    let v = primary();\n    while (tokens[pos] === '+' || tokens[pos] === '-' || tokens[pos] === '*') {\n      const op = tokens[pos++];\n      const r = primary();\n      v = op === '+' ? v + r : op === '-' ? v - r : v * r;\n    }\n    return v;\n  }\n  return chain();\n}\n`,
      bugNote: '* must be applied before + and -, not strictly left to right',
      oracle: (expr: string) => {
        const v = known.get(expr);
        if (v === undefined) throw new Error(`eval-expression oracle: unknown expression ${expr}`);
        return v;
      },
      // The first example must read "2 + 3 * 4" without extra parentheses: it is the one that shows precedence.
      publicInputs: [make({ op: '+', left: 2, right: { op: '*', left: 3, right: 4 } }, false), make(randomExpr(rng, 3)), make({ op: '*', left: { op: '-', left: 10, right: 4 }, right: 2 })],
      hiddenInputs: repeat(9, () => make(randomExpr(rng, 4))),
    };
  },
};

const csvLine: ProblemTemplate = {
  id: 'csv-line',
  category: 'parsing',
  make(rng) {
    const sep = rng.pick([',', ';', '|']);
    const entry = rng.pick(['parseCsvLine', 'splitFields', 'parseRecord']);
    const S = JSON.stringify(sep);
    const known = new Map<string, string[]>();
    const render = (fields: string[]) => fields.map((f) => (f.includes(sep) || f.includes('"') || rng.next() < 0.2 ? `"${f.replace(/"/g, '""')}"` : f)).join(sep);
    const make = (fields: string[]) => { const line = render(fields); known.set(line, fields); return [line]; };
    const field = () => (rng.next() < 0.25 ? `${word(rng, 1, 4)}${rng.pick([sep, '"', ' '])}${word(rng, 0, 4)}` : rng.next() < 0.1 ? '' : word(rng, 1, 7));
    return {
      entry,
      params: ['line'],
      statement: `Write ${entry}(line) that splits one CSV record into its fields. Fields are separated by "${sep}". A field may be wrapped in double quotes: inside quotes "${sep}" is ordinary text and "" stands for one double quote; the surrounding quotes are not part of the value. Return the array of field values ("" gives [""]).`,
      reference: `function ${entry}(line) {\n  const fields = [];\n  let current = '';\n  let quoted = false;\n  for (let i = 0; i < line.length; i++) {\n    const ch = line[i];\n    if (quoted) {\n      if (ch === '"' && line[i + 1] === '"') { current += '"'; i++; }\n      else if (ch === '"') quoted = false;\n      else current += ch;\n    } else if (ch === '"') quoted = true;\n    else if (ch === ${S}) { fields.push(current); current = ''; }\n    else current += ch;\n  }\n  fields.push(current);\n  return fields;\n}\n`,
      buggy: `function ${entry}(line) {\n  return line.split(${S}).map((f) => (f.startsWith('"') && f.endsWith('"') ? f.slice(1, -1) : f));\n}\n`,
      bugNote: `a quoted field can itself contain "${sep}", so splitting on every "${sep}" is wrong`,
      oracle: (line: string) => {
        const v = known.get(line);
        if (v === undefined) throw new Error(`csv-line oracle: unknown line ${line}`);
        return v;
      },
      publicInputs: [make(['Ada', `x${sep}y`, '36']), make(Array.from({ length: 3 }, field)), make([''])],
      hiddenInputs: repeat(9, () => make(Array.from({ length: rng.int(1, 6) }, field))),
    };
  },
};

const duration: ProblemTemplate = {
  id: 'parse-duration',
  category: 'parsing',
  make(rng) {
    const withDays = rng.next() < 0.5;
    const spaced = rng.next() < 0.5;
    const entry = rng.pick(['parseDuration', 'durationToSeconds', 'toSeconds']);
    const units = withDays ? ['d', 'h', 'm', 's'] : ['h', 'm', 's'];
    const seconds: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };
    const make = () => {
      const chosen = units.filter(() => rng.next() < 0.6);
      if (chosen.length === 0) chosen.push(rng.pick(units));
      return [chosen.map((u) => `${rng.int(0, u === 'd' ? 9 : 99)}${u}`).join(spaced ? ' ' : '')];
    };
    const sample = spaced ? '"1h 30m 15s"' : '"1h30m15s"';
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that converts a duration such as ${sample} into a number of seconds. Each of the units ${units.join(', ')} (${withDays ? 'days, ' : ''}hours, minutes, seconds) appears at most once, in that order${spaced ? ', parts separated by single spaces' : ''}; any of them may be missing, and each number is a non-negative integer that may have several digits.`,
      reference: `function ${entry}(text) {\n  const seconds = { d: 86400, h: 3600, m: 60, s: 1 };\n  let total = 0;\n  for (const m of text.matchAll(/(\\d+)([dhms])/g)) total += Number(m[1]) * seconds[m[2]];\n  return total;\n}\n`,
      buggy: `function ${entry}(text) {\n  const seconds = { d: 86400, h: 3600, m: 60, s: 1 };\n  let total = 0;\n  for (const m of text.matchAll(/(\\d)([dhms])/g)) total += Number(m[1]) * seconds[m[2]];\n  return total;\n}\n`,
      bugNote: 'numbers can have more than one digit',
      oracle: (text: string) => {
        let total = 0;
        let digits = '';
        for (const ch of text) {
          if (ch >= '0' && ch <= '9') digits += ch;
          else if (ch in seconds) { total += Number(digits) * seconds[ch]; digits = ''; }
        }
        return total;
      },
      publicInputs: [[spaced ? '1h 30m 15s' : '1h30m15s'], make(), [spaced ? '45s' : '2m']],
      hiddenInputs: repeat(9, make),
    };
  },
};

const balanced: ProblemTemplate = {
  id: 'balanced-brackets',
  category: 'parsing',
  make(rng) {
    const pairs = rng.shuffle(['()', '[]', '{}', '<>']).slice(0, rng.int(2, 4));
    const entry = rng.pick(['isBalanced', 'bracketsMatch', 'checkBrackets']);
    const opens = pairs.map((p) => p[0]).join('');
    const closes = pairs.map((p) => p[1]).join('');
    const balancedString = (depth: number): string => Array.from({ length: rng.int(0, 3) }, () => {
      const p = rng.pick(pairs);
      return (rng.next() < 0.3 ? word(rng, 1, 2) : '') + p[0] + (depth > 0 ? balancedString(depth - 1) : '') + p[1];
    }).join('');
    const mutate = (s: string) => {
      if (s.length < 2) return s + rng.pick([...opens]);
      const a = [...s];
      const i = rng.int(0, a.length - 2);
      if (rng.next() < 0.5) [a[i], a[i + 1]] = [a[i + 1], a[i]];
      else a.splice(i, 1);
      return a.join('');
    };
    const [o1, o2] = [pairs[0][0], pairs[1][0]];
    const [c1, c2] = [pairs[0][1], pairs[1][1]];
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that returns true when the brackets ${pairs.map((p) => `${p[0]}${p[1]}`).join(' ')} in \`text\` are balanced — every opening bracket is closed by the bracket of the same kind, in the right nesting order — and false otherwise. All other characters are ignored.`,
      reference: `function ${entry}(text) {\n  const closing = { ${pairs.map((p) => `${JSON.stringify(p[1])}: ${JSON.stringify(p[0])}`).join(', ')} };\n  const stack = [];\n  for (const ch of text) {\n    if (${JSON.stringify(opens)}.includes(ch)) stack.push(ch);\n    else if (ch in closing) {\n      if (stack.pop() !== closing[ch]) return false;\n    }\n  }\n  return stack.length === 0;\n}\n`,
      buggy: `function ${entry}(text) {\n  const opens = ${JSON.stringify(opens)};\n  const closes = ${JSON.stringify(closes)};\n  const depth = new Array(opens.length).fill(0);\n  for (const ch of text) {\n    if (opens.includes(ch)) depth[opens.indexOf(ch)]++;\n    else if (closes.includes(ch) && --depth[closes.indexOf(ch)] < 0) return false;\n  }\n  return depth.every((d) => d === 0);\n}\n`,
      bugNote: 'counting each kind separately misses wrongly nested brackets like "([)]"; a stack is needed',
      oracle: (text: string) => {
        let s = [...text].filter((c) => opens.includes(c) || closes.includes(c)).join('');
        for (;;) {
          const before = s;
          for (const p of pairs) s = s.split(p).join('');
          if (s === before) return s.length === 0;
        }
      },
      publicInputs: [[`${o1}${o2}${c1}${c2}`], [`a${o1}b${o2}${c2}${c1}`], [balancedString(2)]],
      hiddenInputs: repeat(10, (i) => [i % 2 === 0 ? balancedString(3) : mutate(balancedString(3))]),
    };
  },
};

const compareVersions: ProblemTemplate = {
  id: 'compare-versions',
  category: 'parsing',
  make(rng) {
    const entry = rng.pick(['compareVersions', 'versionCompare', 'cmpVersion']);
    const version = () => Array.from({ length: rng.int(1, 4) }, () => String(rng.pick([0, 1, 2, 9, 10, 11, rng.int(0, 30)]))).join('.');
    const pair = (): unknown[] => {
      const a = version();
      const r = rng.next();
      return [a, r < 0.25 ? a : r < 0.4 ? `${a}.0` : version()];
    };
    return {
      entry,
      params: ['a', 'b'],
      statement: `Write ${entry}(a, b) that compares two version strings made of non-negative integers separated by dots and returns -1 when a is older, 1 when a is newer and 0 when they are equal. Parts compare as numbers from left to right, and a missing part counts as 0 ("1.2" equals "1.2.0"; "1.10" is newer than "1.9").`,
      reference: `function ${entry}(a, b) {\n  const pa = a.split('.').map(Number);\n  const pb = b.split('.').map(Number);\n  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {\n    const x = pa[i] || 0;\n    const y = pb[i] || 0;\n    if (x !== y) return x < y ? -1 : 1;\n  }\n  return 0;\n}\n`,
      buggy: `function ${entry}(a, b) {\n  const pa = a.split('.');\n  const pb = b.split('.');\n  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {\n    const x = pa[i] || '0';\n    const y = pb[i] || '0';\n    if (x !== y) return x < y ? -1 : 1;\n  }\n  return 0;\n}\n`,
      bugNote: 'the parts must be compared as numbers, not as strings ("10" < "9" as text)',
      oracle: (a: string, b: string) => {
        const pa = a.split('.').map((s) => parseInt(s, 10));
        const pb = b.split('.').map((s) => parseInt(s, 10));
        while (pa.length < pb.length) pa.push(0);
        while (pb.length < pa.length) pb.push(0);
        const diff = pa.findIndex((x, i) => x !== pb[i]);
        return diff === -1 ? 0 : Math.sign(pa[diff] - pb[diff]);
      },
      publicInputs: [['1.10', '1.9'], ['1.2', '1.2.0'], pair()],
      hiddenInputs: repeat(9, pair),
    };
  },
};

export const PARSING_TEMPLATES: ProblemTemplate[] = [keyValues, evalExpression, csvLine, duration, balanced, compareVersions];
