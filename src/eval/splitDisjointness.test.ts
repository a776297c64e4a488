// Asserts that train / validation / test are disjoint for every family and prints the overlap
// counts (src/eval/splitAudit.ts builds the streams, leakCheck.ts counts). Any validation or test
// prompt, value, phrasing, user, product, tool or template found in a training or SFT stream
// fails this test and is named in the printed table.
import { afterAll, describe, expect, it } from 'vitest';
import { closeNodeSandbox } from '../envs/coding/sandbox/nodeSandbox';
import { ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { generateRoutingTask, ROUTING_LEVELS } from '../envs/functionCalling/routingTask';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { CURRICULA } from '../envs/taskSets';
import type { EnvFamily } from '../envs/types';
import { countOverlap, formatOverlapTable, type OverlapRow } from './leakCheck';
import { auditCoding, auditFunctionCalling, auditRouting, auditService, type AuditSizes } from './splitAudit';

afterAll(() => closeNodeSandbox());

const SIZES: AuditSizes = { seed: 1, train: 2000, heldOut: 300, sft: 200 };

function report(title: string, rows: readonly OverlapRow[]): void {
  console.log(`${title}\n${formatOverlapTable(rows)}`);
  for (const r of rows) {
    expect(r.items, `${r.heldOut}: nothing checked`).toBeGreaterThan(0);
    expect(r.texts, `${r.stream}: empty stream`).toBeGreaterThan(0);
  }
  expect(rows.filter((r) => r.overlapping > 0).map((r) => `${r.stream} × ${r.heldOut}: ${r.examples.join('; ')}`)).toEqual([]);
}

describe('train / validation / test are disjoint by construction', () => {
  it('routing (every level): prompts, values, phrasings; SFT routing chats', async () => {
    const all: OverlapRow[] = [];
    for (const level of ROUTING_LEVELS) all.push(...(await auditRouting(level, ROUTING_FAMILIES[level], SIZES)));
    report('routing split audit (seed 1)', all);
  });

  it('BFCL-style mix: prompts, argument values, entity values, phrasings, unseen tools; expert SFT data', async () => {
    report('function-calling split audit (seed 1)', await auditFunctionCalling(SIZES));
  });

  // every curriculum level together (status, write, multi-step, retail): sizes are per level
  it('service: users, orders, products, ids and user phrasings; expert SFT data (all levels)', async () => {
    const rows = await auditService({ ...SIZES, train: 120, heldOut: 30, sft: 15 });
    expect(rows[0].stream).toBe(`service train databases (${CURRICULA.service.join(', ')})`); // every level of the curriculum
    report('service split audit (seed 1)', rows);
  });

  // every curriculum level together (one-liners, loops, parsing, functions): sizes are per level
  it('coding: whole templates and statements; expert SFT data (all levels)', async () => {
    const rows = await auditCoding({ ...SIZES, train: 200, heldOut: 60, sft: 4 });
    expect(rows[0].stream).toBe(`coding train templates (${CURRICULA.coding.join(', ')})`); // every level of the curriculum
    report('coding split audit (seed 1)', rows);
  });

  it('the audit fails on a generator that ignores its split (the old seed-salt routing streams)', async () => {
    // The generator before the split cut, in effect: every split draws from every value and phrasing
    // (here: the train stream is also fed validation and test content, as the old salted streams were).
    const leaky: EnvFamily<FunctionCallingTask> = {
      ...ROUTING_FAMILIES.route4,
      generateTask: (seed, index, split) => generateRoutingTask(seed, index, split === 'train' ? (['train', 'validation', 'test'] as const)[index % 3] : split),
    };
    const rows = await auditRouting('route4', leaky, { seed: 1, train: 600, heldOut: 100, sft: 0 });
    console.log(`a leaky generator, for contrast\n${formatOverlapTable(rows)}`);
    for (const r of rows) {
      // the SFT augmentation and GRPO's random-value tasks replace every value with random letters: their prompts
      // and values cannot leak even from a leaky generator, their phrasings (kept as they are) do
      const randomised = (r.stream.includes('SFT-augmented') || r.stream.includes('GRPO random-value')) && !r.heldOut.includes('phrasings');
      // word edits keep the values (they leak from a leaky generator); an edited held-out phrasing may or may not still read as one
      const edited = r.stream.includes('SFT-edited') && !r.heldOut.includes('values');
      if (edited) continue;
      // frames keep the values (they leak from a leaky generator) but replace the phrasing: no held-out phrasing or prompt
      if (r.stream.includes('SFT-framed')) {
        if (r.heldOut.includes('values')) expect(r.overlapping, `${r.stream} × ${r.heldOut}`).toBeGreaterThan(0);
        else expect(r.overlapping, `${r.stream} × ${r.heldOut}`).toBe(0);
        continue;
      }
      if (randomised) expect(r.overlapping, `${r.stream} × ${r.heldOut}`).toBe(0);
      else expect(r.overlapping, `${r.stream} × ${r.heldOut}`).toBeGreaterThan(0);
    }
  });

  it('counts exact, whole-word and template matches, and not partial words', () => {
    const stream = { name: 's', texts: ['weather in Paris?', 'Parisian weather', 'time in Oslo'] };
    expect(countOverlap({ name: 'w', items: ['Paris', 'Rome'], match: 'word' }, stream)).toMatchObject({ overlapping: 1, occurrences: 1 });
    expect(countOverlap({ name: 't', items: ['weather in {x}?', '{x} weather', 'clock in {x}'], match: 'template' }, stream)).toMatchObject({ overlapping: 2, occurrences: 2 });
    expect(countOverlap({ name: 'e', items: ['time in Oslo', 'time in'], match: 'exact' }, stream)).toMatchObject({ overlapping: 1, items: 2 });
  });
});
