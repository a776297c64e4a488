// String problems: word order, run-length coding, Caesar shift, palindromes, title case, common
// prefix, identifier case conversion. Each template's reference and oracle are written differently
// on purpose (the sandbox checks they agree).
import type { Rng } from '../../../util/rng';
import { repeat, word, type ProblemTemplate } from './types';

const WORDS = ['apple', 'river', 'stone', 'cloud', 'tiger', 'lamp', 'green', 'quick', 'fox', 'moon', 'sun', 'tree', 'bird', 'code', 'data', 'node', 'red', 'blue', 'sky', 'road'];

/** Words joined by runs of 1..maxGap spaces, optionally padded at both ends. */
function spacedSentence(rng: Rng, n: number, maxGap: number, pad: boolean): string {
  const gap = () => ' '.repeat(rng.int(1, maxGap));
  let body = rng.pick(WORDS);
  for (let i = 1; i < n; i++) body += gap() + rng.pick(WORDS);
  return pad ? gap() + body + gap() : body;
}

/** Letters with runs of equal characters (run lengths 1..maxRun). */
function runs(rng: Rng, nRuns: number, maxRun: number, letters = 'abcxyz'): string {
  let s = '';
  let prev = '';
  for (let i = 0; i < nRuns; i++) {
    let ch = rng.pick([...letters]);
    while (ch === prev) ch = rng.pick([...letters]);
    s += ch.repeat(rng.int(1, maxRun));
    prev = ch;
  }
  return s;
}

const reverseWords: ProblemTemplate = {
  id: 'reverse-words',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['reverseWords', 'reverseWordOrder', 'flipWords']);
    const [joiner, joinerWords] = rng.pick([[' ', 'a single space'], ['-', 'a hyphen "-"'], ['_', 'an underscore "_"'], [', ', 'a comma and a space ", "']] as const);
    const J = JSON.stringify(joiner);
    return {
      entry,
      params: ['text'],
      statement: rng.pick([
        `Write ${entry}(text) that returns the words of \`text\` in reverse order, joined by ${joinerWords}. Words are separated by one or more spaces; leading and trailing spaces are ignored. A string without words gives "".`,
        `Implement ${entry}(text): split \`text\` into words (runs of non-space characters separated by any number of spaces) and return them last to first, joined with ${joinerWords}. Return "" when there are no words.`,
      ]),
      reference: `function ${entry}(text) {\n  const words = text.split(' ').filter((w) => w.length > 0);\n  return words.reverse().join(${J});\n}\n`,
      buggy: `function ${entry}(text) {\n  return text.split(' ').reverse().join(${J});\n}\n`,
      bugNote: 'splitting on a single space leaves empty words where several spaces follow each other',
      oracle: (text: string) => text.trim().split(/ +/).filter(Boolean).reverse().join(joiner),
      publicInputs: [[spacedSentence(rng, 3, 1, false).replace(' ', '  ')], [spacedSentence(rng, 2, 1, true)], [rng.pick(WORDS)]],
      hiddenInputs: [...repeat(7, () => [spacedSentence(rng, rng.int(1, 6), 3, rng.next() < 0.5)]), [''], ['   ']],
    };
  },
};

const rleEncode: ProblemTemplate = {
  id: 'run-length-encode',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['runLengthEncode', 'rleEncode', 'compressRuns']);
    const style = rng.pick(['char-count', 'count-char', 'omit-one'] as const);
    const piece = (ch: string, n: number) => (style === 'char-count' ? `${ch}${n}` : style === 'count-char' ? `${n}${ch}` : n === 1 ? ch : `${ch}${n}`);
    const pieceJs = style === 'char-count' ? 'ch + n' : style === 'count-char' ? 'n + ch' : "(n === 1 ? ch : ch + n)";
    const example = style === 'char-count' ? '"aaabcc" → "a3b1c2"' : style === 'count-char' ? '"aaabcc" → "3a1b2c"' : '"aaabcc" → "a3bc2"';
    const rule = style === 'char-count' ? 'the character followed by the run length'
      : style === 'count-char' ? 'the run length followed by the character'
      : 'the character followed by the run length, leaving the length out when it is 1';
    return {
      entry,
      params: ['s'],
      statement: `Write ${entry}(s) that run-length encodes \`s\`: each maximal run of equal characters becomes ${rule} (${example}). Runs can be longer than 9. The empty string encodes to "".`,
      reference: `function ${entry}(s) {\n  let out = '';\n  let i = 0;\n  while (i < s.length) {\n    let j = i;\n    while (j < s.length && s[j] === s[i]) j++;\n    const ch = s[i];\n    const n = j - i;\n    out += ${pieceJs};\n    i = j;\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(s) {\n  let out = '';\n  let n = 1;\n  for (let i = 1; i < s.length; i++) {\n    const ch = s[i - 1];\n    if (s[i] === ch) n++;\n    else { out += ${pieceJs}; n = 1; }\n  }\n  return out;\n}\n`,
      bugNote: 'the last run is never written out after the loop ends',
      oracle: (s: string) => (s.match(/(.)\1*/g) ?? []).map((r) => piece(r[0], r.length)).join(''),
      publicInputs: [['aaabcc'], [runs(rng, 3, 4)], ['']],
      hiddenInputs: [...repeat(7, () => [runs(rng, rng.int(1, 6), 12)]), ['z'], [rng.pick(['x', 'y']).repeat(rng.int(10, 15))]],
    };
  },
};

const rleDecode: ProblemTemplate = {
  id: 'run-length-decode',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['runLengthDecode', 'rleDecode', 'expandRuns']);
    const countFirst = rng.next() < 0.5;
    const encode = (s: string) => (s.match(/(.)\1*/g) ?? []).map((r) => (countFirst ? `${r.length}${r[0]}` : `${r[0]}${r.length}`)).join('');
    const example = countFirst ? '"3a1b12c" → "aaab" followed by twelve "c"' : '"a3b1c12" → "aaab" followed by twelve "c"';
    const parse = countFirst ? '/(\\d+)([a-z])/g' : '/([a-z])(\\d+)/g';
    const pick = countFirst ? 'm[2].repeat(Number(m[1]))' : 'm[1].repeat(Number(m[2]))';
    const buggyPick = countFirst ? 's[i + 1].repeat(Number(s[i]))' : 's[i].repeat(Number(s[i + 1]))';
    return {
      entry,
      params: ['encoded'],
      statement: `Write ${entry}(encoded) that expands a run-length encoding of lowercase letters in which every run is written as ${countFirst ? 'its length (one or more digits) followed by the letter' : 'the letter followed by its length (one or more digits)'}, e.g. ${example}. "" decodes to "".`,
      reference: `function ${entry}(encoded) {\n  let out = '';\n  for (const m of encoded.matchAll(${parse})) out += ${pick};\n  return out;\n}\n`,
      buggy: `function ${entry}(encoded) {\n  const s = encoded;\n  let out = '';\n  for (let i = 0; i < s.length; i += 2) out += ${buggyPick};\n  return out;\n}\n`,
      bugNote: 'a run length can have more than one digit',
      oracle: (encoded: string) => {
        let out = '';
        let digits = '';
        let letter = '';
        for (const ch of encoded) {
          if (ch >= '0' && ch <= '9') digits += ch;
          else if (countFirst) { out += ch.repeat(Number(digits)); digits = ''; }
          else { if (letter) out += letter.repeat(Number(digits)); letter = ch; digits = ''; }
        }
        if (!countFirst && letter) out += letter.repeat(Number(digits));
        return out;
      },
      publicInputs: [[encode('aaab' + 'c'.repeat(12))], [encode(runs(rng, 3, 4))], ['']],
      hiddenInputs: [...repeat(7, () => [encode(runs(rng, rng.int(1, 5), 14))]), [encode('q')]],
    };
  },
};

const caesar: ProblemTemplate = {
  id: 'caesar-shift',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['caesarShift', 'shiftLetters', 'rotateLetters']);
    const k = rng.int(1, 25);
    const forward = rng.next() < 0.5;
    const delta = forward ? k : 26 - k;
    const sentence = () => Array.from({ length: rng.int(1, 4) }, () => rng.pick(WORDS)).map((w) => (rng.next() < 0.4 ? w.toUpperCase() : rng.next() < 0.5 ? w[0].toUpperCase() + w.slice(1) : w)).join(rng.pick([' ', ', ', '! ', '-'])) + rng.pick(['', '!', '?', ' 42']);
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that shifts every letter of \`text\` ${k} place${k === 1 ? '' : 's'} ${forward ? 'forward' : 'backward'} in the alphabet, wrapping around (${forward ? `"z" shifted forward by 1 is "a"` : `"a" shifted backward by 1 is "z"`}). Uppercase letters stay uppercase, lowercase stay lowercase, and every other character is unchanged.`,
      reference: `function ${entry}(text) {\n  const shift = ${delta};\n  return text.replace(/[a-z]/gi, (ch) => {\n    const base = ch <= 'Z' ? 65 : 97;\n    return String.fromCharCode(((ch.charCodeAt(0) - base + shift) % 26) + base);\n  });\n}\n`,
      buggy: `function ${entry}(text) {\n  let out = '';\n  for (const ch of text) {\n    if (/[a-z]/i.test(ch)) out += String.fromCharCode(((ch.charCodeAt(0) - 97 + ${delta}) % 26) + 97);\n    else out += ch;\n  }\n  return out;\n}\n`,
      bugNote: 'uppercase letters must be shifted within A–Z and stay uppercase',
      oracle: (text: string) => {
        const lower = 'abcdefghijklmnopqrstuvwxyz';
        const upper = lower.toUpperCase();
        return [...text].map((ch) => {
          const l = lower.indexOf(ch);
          if (l >= 0) return lower[(l + delta) % 26];
          const u = upper.indexOf(ch);
          return u >= 0 ? upper[(u + delta) % 26] : ch;
        }).join('');
      },
      publicInputs: [['Hello, World!'], [sentence().toLowerCase()], ['xyz ABC']],
      hiddenInputs: [...repeat(7, () => [sentence()]), [''], ['Zz Aa 09']],
    };
  },
};

const palindrome: ProblemTemplate = {
  id: 'palindrome',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['isPalindrome', 'readsSameBackwards', 'checkPalindrome']);
    const lettersOnly = rng.next() < 0.5;
    const keep = lettersOnly ? /[a-z]/ : /[a-z0-9]/;
    const kept = lettersOnly ? 'letters' : 'letters and digits';
    const noisy = (core: string) => [...core].map((ch) => (rng.next() < 0.4 ? ch.toUpperCase() : ch) + (rng.next() < 0.25 ? rng.pick([' ', ',', '!', ' - ', "'"]) : '')).join('');
    const pal = () => { const half = word(rng, 1, 5, 'abcdeilmnorst12'); return noisy(half + (rng.next() < 0.5 ? word(rng, 1, 1) : '') + [...half].reverse().join('')); };
    const notPal = () => noisy(word(rng, 3, 9, 'abcdeilmnorst'));
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that returns true when \`text\` reads the same forwards and backwards once you ignore letter case and keep only ${kept} (everything else is skipped), and false otherwise. A text with nothing left to compare counts as a palindrome.`,
      reference: `function ${entry}(text) {\n  const chars = text.toLowerCase().replace(/${lettersOnly ? '[^a-z]' : '[^a-z0-9]'}/g, '');\n  for (let i = 0, j = chars.length - 1; i < j; i++, j--) {\n    if (chars[i] !== chars[j]) return false;\n  }\n  return true;\n}\n`,
      buggy: `function ${entry}(text) {\n  return text === text.split('').reverse().join('');\n}\n`,
      bugNote: 'case and punctuation must be ignored before comparing',
      oracle: (text: string) => {
        const cs = [...text.toLowerCase()].filter((c) => keep.test(c));
        return cs.join('') === cs.reverse().join('');
      },
      publicInputs: [['Never odd, or even'], ['level'], [notPal()]],
      hiddenInputs: [...repeat(8, (i) => [i % 2 === 0 ? pal() : notPal()]), ['!!'], ['ab1ba']],
    };
  },
};

const titleCase: ProblemTemplate = {
  id: 'title-case',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['titleCase', 'toTitleCase', 'capitalizeWords']);
    const small = rng.next() < 0.5 ? rng.shuffle(['a', 'an', 'the', 'of', 'and', 'in', 'on', 'to']).slice(0, 4).sort() : [];
    const S = JSON.stringify(small);
    const mixed = () => Array.from({ length: rng.int(1, 5) }, () => (rng.next() < 0.3 && small.length ? rng.pick(small) : rng.pick(WORDS))).map((w) => [...w].map((c) => (rng.next() < 0.3 ? c.toUpperCase() : c)).join('')).join(' ');
    const rule = small.length ? ` Exception: the small words ${small.map((w) => `"${w}"`).join(', ')} are written all lowercase unless they are the first word.` : '';
    return {
      entry,
      params: ['text'],
      statement: `Write ${entry}(text) that returns \`text\` in title case: in every word (words are separated by single spaces) the first letter is uppercase and the rest lowercase.${rule} "" stays "".`,
      reference: `function ${entry}(text) {\n  const small = new Set(${S});\n  return text.split(' ').map((w, i) => {\n    const lower = w.toLowerCase();\n    if (i > 0 && small.has(lower)) return lower;\n    return lower.charAt(0).toUpperCase() + lower.slice(1);\n  }).join(' ');\n}\n`,
      buggy: `function ${entry}(text) {\n  const small = new Set(${S});\n  return text.split(' ').map((w, i) => (i > 0 && small.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1))).join(' ');\n}\n`,
      bugNote: 'the letters after the first must be lowercased too',
      oracle: (text: string) => text.split(' ').map((w, i) => {
        const l = w.toLowerCase();
        return i > 0 && small.includes(l) ? l : l.slice(0, 1).toUpperCase() + l.slice(1);
      }).join(' '),
      publicInputs: [[small.length ? `tHE ${small[0].toUpperCase()} ${rng.pick(WORDS)}` : `hELLO ${rng.pick(WORDS)}`], [mixed()], ['']],
      hiddenInputs: repeat(8, () => [mixed()]),
    };
  },
};

const commonPrefix: ProblemTemplate = {
  id: 'common-prefix',
  category: 'strings',
  make(rng) {
    const entry = rng.pick(['longestCommonPrefix', 'commonPrefix', 'sharedPrefix']);
    const group = (n: number) => {
      const prefix = word(rng, 0, 4, 'abcd');
      return Array.from({ length: n }, () => prefix + word(rng, 0, 4, 'abcd'));
    };
    return {
      entry,
      params: ['words'],
      statement: `Write ${entry}(words) that returns the longest string that is a prefix of every string in the array \`words\`. Return "" for an empty array or when the strings share no prefix.`,
      reference: `function ${entry}(words) {\n  if (words.length === 0) return '';\n  let prefix = words[0];\n  for (const w of words) {\n    while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);\n  }\n  return prefix;\n}\n`,
      buggy: `function ${entry}(words) {\n  if (words.length === 0) return '';\n  if (words.length === 1) return words[0];\n  let i = 0;\n  while (i < words[0].length && words[0][i] === words[1][i]) i++;\n  return words[0].slice(0, i);\n}\n`,
      bugNote: 'every string must be compared, not only the first two',
      oracle: (words: string[]) => {
        if (words.length === 0) return '';
        let n = 0;
        for (;;) {
          const c = words[0][n];
          if (c === undefined || words.some((w) => w[n] !== c)) return words[0].slice(0, n);
          n++;
        }
      },
      publicInputs: [[['flower', 'flow', 'flight']], [group(3)], [[]]],
      hiddenInputs: [...repeat(7, () => [group(rng.int(1, 5))]), [['same', 'same']], [['abc', 'abd', 'x']]],
    };
  },
};

const caseConvert: ProblemTemplate = {
  id: 'case-convert',
  category: 'strings',
  make(rng) {
    const kind = rng.pick(['snake-to-camel', 'kebab-to-camel', 'camel-to-snake'] as const);
    const entry = { 'snake-to-camel': rng.pick(['snakeToCamel', 'toCamelCase']), 'kebab-to-camel': rng.pick(['kebabToCamel', 'dashedToCamel']), 'camel-to-snake': rng.pick(['camelToSnake', 'toSnakeCase']) }[kind];
    const parts = () => Array.from({ length: rng.int(1, 4) }, () => rng.pick(WORDS));
    const camel = (ws: string[]) => ws.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
    const sep = kind === 'kebab-to-camel' ? '-' : '_';
    const toCamel = kind !== 'camel-to-snake';
    const input = (ws: string[]) => (toCamel ? ws.join(sep) : camel(ws));
    return {
      entry,
      params: ['name'],
      statement: toCamel
        ? `Write ${entry}(name) that converts a ${sep === '_' ? 'snake_case' : 'kebab-case'} identifier (lowercase words joined by "${sep}") to camelCase: the first word stays lowercase and every later word starts with an uppercase letter ("${['max', 'item', 'count'].join(sep)}" → "maxItemCount").`
        : `Write ${entry}(name) that converts a camelCase identifier to snake_case: every uppercase letter becomes "_" followed by that letter in lowercase ("maxItemCount" → "max_item_count").`,
      reference: toCamel
        ? `function ${entry}(name) {\n  return name.split(${JSON.stringify(sep)}).map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');\n}\n`
        : `function ${entry}(name) {\n  return name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());\n}\n`,
      buggy: toCamel
        ? `function ${entry}(name) {\n  return name.split(${JSON.stringify(sep)}).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');\n}\n`
        : `function ${entry}(name) {\n  return name.replace(/[A-Z]/g, (c) => '_' + c);\n}\n`,
      bugNote: toCamel ? 'the first word must stay lowercase (camelCase, not PascalCase)' : 'the uppercase letters must be lowercased after the underscore',
      oracle: (name: string) => (toCamel ? camel(name.split(sep)) : [...name].map((c) => (c >= 'A' && c <= 'Z' ? `_${c.toLowerCase()}` : c)).join('')),
      publicInputs: [[input(['max', 'item', 'count'])], [input(parts())], [input([rng.pick(WORDS)])]],
      hiddenInputs: repeat(8, () => [input(parts())]),
    };
  },
};

export const STRING_TEMPLATES: ProblemTemplate[] = [reverseWords, rleEncode, rleDecode, caesar, palindrome, titleCase, commonPrefix, caseConvert];
